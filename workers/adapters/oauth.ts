import type { LinkProvider, LinkVariant } from "../db/linked-schema";
import type { Env } from "../env";
import {
  joinUrl,
  PROVIDER_TIMEOUT_MS,
  providerJson,
  ProviderError,
  type TokenSource,
} from "./music/http";

/**
 * OAuth 2.0 clients for account linking (issue 16): where each provider's authorize and
 * token endpoints are, our client's id and secret, whether it takes PKCE, and how to ask who
 * a token belongs to. Every host comes from the environment (defaults are the providers'
 * own), so tests and the e2e run point them at stubs. A provider is configured only when
 * its client id and secret are set; `oauthClient` answers null otherwise.
 */
export interface Identity {
  id: string;
  displayName: string | null;
  /** Discord only: the account's e-mail and whether Discord verified it. */
  email?: string | null;
  emailVerified?: boolean;
}

export interface OAuthClient {
  provider: LinkProvider;
  variant: LinkVariant;
  name: string;
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  /** Whether the provider documents PKCE for this flow (the challenge is then sent, S256). */
  pkce: boolean;
  /** How the client authenticates at the token endpoint. */
  clientAuth: "basic" | "body";
  /** More authorize parameters (Google: offline access, so a refresh token is granted). */
  extraAuthorize?: Record<string, string>;
  /** The Authorization header for an access token. */
  header(token: string): Record<string, string>;
  /** Who `token` belongs to. */
  identity(env: Env, token: string): Promise<Identity>;
}

export const PROVIDER_NAMES: Record<LinkProvider, string> = {
  discord: "Discord",
  spotify: "Spotify",
  youtube: "YouTube",
  soundcloud: "SoundCloud",
  apple: "Apple Music",
};

const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const asToken = (t: string): TokenSource => ({ get: async () => t, header: bearer, retryOn: [] });
const str = (v: unknown) => (typeof v === "string" && v ? v : null);

export const discordApi = (env: Env) => env.DISCORD_API_URL || "https://discord.com/api";
const soundcloudAuth = (env: Env) => env.SOUNDCLOUD_AUTH_URL || "https://secure.soundcloud.com";

async function me(name: string, url: string, token: TokenSource) {
  const body = await providerJson(name, url, {}, token);
  if (!body || typeof body !== "object")
    throw new ProviderError(name, 0, "did not say who the token belongs to");
  return body as Record<string, unknown>;
}

/** The OAuth client for `provider` (and SoundCloud's `variant`), or null when not configured. */
export function oauthClient(
  env: Env,
  provider: LinkProvider,
  variant: LinkVariant = "web",
): OAuthClient | null {
  switch (provider) {
    case "discord":
      if (!env.DISCORD_CLIENT_ID || !env.DISCORD_CLIENT_SECRET || variant !== "web") return null;
      return {
        provider,
        variant,
        name: PROVIDER_NAMES.discord,
        authorizeUrl: env.DISCORD_AUTHORIZE_URL || "https://discord.com/oauth2/authorize",
        tokenUrl: joinUrl(discordApi(env), "oauth2/token"),
        clientId: env.DISCORD_CLIENT_ID,
        clientSecret: env.DISCORD_CLIENT_SECRET,
        scopes: ["identify", "email"],
        // Discord documents PKCE only for public clients; ours is confidential, so the
        // single-use state carries the protection.
        pkce: false,
        clientAuth: "basic",
        header: bearer,
        async identity(e, token) {
          const u = await me("Discord", joinUrl(discordApi(e), "users/@me"), asToken(token));
          const id = str(u.id);
          if (!id || !/^\d{1,25}$/.test(id)) throw new ProviderError("Discord", 0, "no user id");
          return {
            id,
            displayName: str(u.global_name) ?? str(u.username),
            email: str(u.email),
            emailVerified: u.verified === true,
          };
        },
      };
    case "spotify":
      if (
        !env.SPOTIFY_ACCOUNTS_URL ||
        !env.SPOTIFY_API_URL ||
        !env.SPOTIFY_CLIENT_ID ||
        !env.SPOTIFY_CLIENT_SECRET ||
        variant !== "web"
      )
        return null;
      return {
        provider,
        variant,
        name: PROVIDER_NAMES.spotify,
        authorizeUrl: joinUrl(env.SPOTIFY_ACCOUNTS_URL, "authorize"),
        tokenUrl: joinUrl(env.SPOTIFY_ACCOUNTS_URL, "api/token"),
        clientId: env.SPOTIFY_CLIENT_ID,
        clientSecret: env.SPOTIFY_CLIENT_SECRET,
        // Playback in the browser and crate export to a private playlist.
        scopes: [
          "user-read-private",
          "streaming",
          "user-read-playback-state",
          "user-modify-playback-state",
          "playlist-modify-private",
        ],
        pkce: true,
        clientAuth: "basic",
        header: bearer,
        async identity(e, token) {
          const u = await me("Spotify", joinUrl(e.SPOTIFY_API_URL!, "v1/me"), asToken(token));
          const id = str(u.id);
          if (!id) throw new ProviderError("Spotify", 0, "no user id");
          return { id, displayName: str(u.display_name) ?? id };
        },
      };
    case "youtube":
      if (!env.GOOGLE_CLIENT_ID || !env.GOOGLE_CLIENT_SECRET || variant !== "web") return null;
      return {
        provider,
        variant,
        name: PROVIDER_NAMES.youtube,
        authorizeUrl: env.GOOGLE_AUTHORIZE_URL || "https://accounts.google.com/o/oauth2/v2/auth",
        tokenUrl: env.GOOGLE_TOKEN_URL || "https://oauth2.googleapis.com/token",
        clientId: env.GOOGLE_CLIENT_ID,
        clientSecret: env.GOOGLE_CLIENT_SECRET,
        scopes: ["https://www.googleapis.com/auth/youtube.readonly"],
        pkce: true,
        clientAuth: "body",
        // Without offline access Google grants no refresh token; consent makes it grant one
        // again when the person links a second time.
        extraAuthorize: { access_type: "offline", prompt: "consent" },
        header: bearer,
        async identity(e, token) {
          const base = e.YOUTUBE_API_URL || "https://www.googleapis.com/youtube/v3";
          const body = await me(
            "YouTube",
            joinUrl(base, "channels", { part: "snippet", mine: "true" }),
            asToken(token),
          );
          const ch = (
            body.items as { id?: unknown; snippet?: { title?: unknown } }[] | undefined
          )?.[0];
          const id = str(ch?.id);
          if (!id) throw new ProviderError("YouTube", 0, "the account has no channel");
          return { id, displayName: str(ch?.snippet?.title) };
        },
      };
    case "soundcloud": {
      const mobile = variant === "mobile";
      const id = mobile ? env.SOUNDCLOUD_MOBILE_CLIENT_ID : env.SOUNDCLOUD_CLIENT_ID;
      const secret = mobile ? env.SOUNDCLOUD_MOBILE_CLIENT_SECRET : env.SOUNDCLOUD_CLIENT_SECRET;
      if (!id || !secret || !env.SOUNDCLOUD_API_URL) return null;
      if (mobile && !env.SOUNDCLOUD_MOBILE_REDIRECT_URI) return null;
      const auth = soundcloudAuth(env);
      return {
        provider,
        variant,
        name: PROVIDER_NAMES.soundcloud,
        // SoundCloud's auth host is not its API host (secure.soundcloud.com vs api.soundcloud.com).
        authorizeUrl: joinUrl(auth, "authorize"),
        tokenUrl: joinUrl(auth, "oauth/token"),
        clientId: id,
        clientSecret: secret,
        scopes: [],
        pkce: true,
        clientAuth: "body",
        header: (t) => ({ Authorization: `OAuth ${t}` }),
        async identity(e, token) {
          const u = await me("SoundCloud", joinUrl(e.SOUNDCLOUD_API_URL!, "me"), {
            get: async () => token,
            header: (t: string) => ({ Authorization: `OAuth ${t}` }),
            retryOn: [],
          });
          const uid = u.urn ?? u.id;
          if (uid === undefined || uid === null) throw new ProviderError("SoundCloud", 0, "no id");
          return { id: String(uid), displayName: str(u.username) };
        },
      };
    }
    case "apple":
      // Apple Music is not OAuth: MusicKit hands the page a Music User Token (linked-apple.ts).
      return null;
  }
}

/** A token endpoint's answer. */
export interface TokenAnswer {
  accessToken: string;
  refreshToken: string | null;
  expiresIn: number;
  scope: string | null;
}

/**
 * The provider said the grant is no good: a spent or unknown code, or a revoked refresh
 * token (RFC 6749 5.2 `invalid_grant`).
 */
export class InvalidGrant extends Error {}

/** POSTs a grant to the client's token endpoint (RFC 6749 4.1.3 and 6). */
export async function tokenRequest(
  client: Pick<OAuthClient, "name" | "tokenUrl" | "clientId" | "clientSecret" | "clientAuth">,
  grant: Record<string, string>,
): Promise<TokenAnswer> {
  const form = new URLSearchParams(grant);
  const headers: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    Accept: "application/json",
  };
  if (client.clientAuth === "basic")
    headers.Authorization = `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`;
  else {
    form.set("client_id", client.clientId);
    form.set("client_secret", client.clientSecret);
  }
  let res: Response;
  try {
    res = await fetch(client.tokenUrl, {
      method: "POST",
      headers,
      body: form,
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
  } catch (err) {
    throw new ProviderError(client.name, 0, `token endpoint unreachable (${(err as Error).name})`);
  }
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    throw new ProviderError(client.name, res.status, "token answer is not JSON");
  }
  if (!res.ok) {
    if (body.error === "invalid_grant") throw new InvalidGrant(String(body.error));
    throw new ProviderError(client.name, res.status, `token endpoint answered ${res.status}`);
  }
  const accessToken = str(body.access_token);
  if (!accessToken) throw new ProviderError(client.name, 0, "token answer had no access_token");
  return {
    accessToken,
    refreshToken: str(body.refresh_token),
    expiresIn: typeof body.expires_in === "number" ? body.expires_in : 3600,
    scope: str(body.scope),
  };
}
