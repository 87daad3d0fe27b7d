import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { db } from "../workers/db/client";
import { linkedAccounts } from "../workers/db/schema";
import type { Env } from "../workers/env";
import { callWith, type CallInit } from "./helpers";
import { json, stubFetch, type Handler } from "./music-stubs";

/**
 * A stand-in OAuth provider at the fetch boundary (issue 16 tests): it issues codes the way
 * the provider's authorize page would, and answers the token endpoint as RFC 6749 says
 * (codes are single-use and bound to the redirect URI and the PKCE challenge; refresh tokens
 * can be revoked; `invalid_grant` for anything it will not honour), plus a "who am I" call
 * that accepts only live access tokens. Every instance has its own hosts, so isolate-level
 * token caches never leak between tests.
 */
let n = 0;
const b64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

export interface FakeIdentity {
  id: string;
  name: string;
  email?: string;
  verified?: boolean;
}

export class FakeProvider {
  readonly tag = `p${n++}${Math.random().toString(36).slice(2, 7)}`;
  readonly auth = `https://auth-${this.tag}.test`;
  readonly api = `https://api-${this.tag}.test`;
  private codes = new Map<
    string,
    { used: boolean; challenge: string | null; redirect: string; who: FakeIdentity }
  >();
  private refresh = new Map<string, FakeIdentity>();
  private access = new Map<string, FakeIdentity>();
  tokenCalls: URLSearchParams[] = [];
  /** Access tokens the API should refuse once with 401 (then they work... never again: they are dropped). */
  refuseNext = new Set<string>();
  private seq = 0;

  /** The provider's consent page: a code for `who`, bound to the authorize URL's challenge and redirect. */
  approve(authorizeUrl: string, who: FakeIdentity): { code: string; state: string } {
    const u = new URL(authorizeUrl);
    const code = `code-${this.tag}-${this.seq++}`;
    this.codes.set(code, {
      used: false,
      challenge: u.searchParams.get("code_challenge"),
      redirect: u.searchParams.get("redirect_uri") ?? "",
      who,
    });
    return { code, state: u.searchParams.get("state") ?? "" };
  }

  revokeAll() {
    this.refresh.clear();
    this.access.clear();
  }

  private issue(who: FakeIdentity) {
    const at = `at-${this.tag}-${this.seq++}`;
    const rt = `rt-${this.tag}-${this.seq++}`;
    this.access.set(at, who);
    this.refresh.set(rt, who);
    return { access_token: at, refresh_token: rt, expires_in: 3600, token_type: "Bearer" };
  }

  /** The token endpoint. */
  token: Handler = async (_url, init) => {
    const form = new URLSearchParams(String(init?.body ?? ""));
    this.tokenCalls.push(form);
    const bad = () => json({ error: "invalid_grant" }, 400);
    const grant = form.get("grant_type");
    if (grant === "client_credentials")
      return json({ access_token: `app-${this.tag}-${this.seq++}`, expires_in: 3600 });
    if (grant === "refresh_token") {
      const rt = form.get("refresh_token") ?? "";
      const who = this.refresh.get(rt);
      if (!who) return bad();
      this.refresh.delete(rt); // rotated, as Spotify and SoundCloud do
      return json(this.issue(who));
    }
    const code = this.codes.get(form.get("code") ?? "");
    if (!code || code.used) return bad();
    code.used = true;
    if (code.redirect && form.get("redirect_uri") !== code.redirect) return bad();
    if (code.challenge) {
      const digest = await crypto.subtle.digest(
        "SHA-256",
        new TextEncoder().encode(form.get("code_verifier") ?? ""),
      );
      if (b64url(digest) !== code.challenge) return bad();
    }
    return json(this.issue(code.who));
  };

  /** Who an `Authorization: Bearer|OAuth <token>` belongs to, or null (the API then says 401). */
  whoIs(init: RequestInit | undefined): FakeIdentity | null {
    const h = new Headers(init?.headers).get("Authorization") ?? "";
    const t = h.replace(/^(Bearer|OAuth)\s+/, "");
    if (this.refuseNext.delete(t)) {
      this.access.delete(t);
      return null;
    }
    return this.access.get(t) ?? null;
  }

  /** A "who am I" handler answering `shape(who)`. */
  me(shape: (who: FakeIdentity) => unknown): Handler {
    return (_url, init) => {
      const who = this.whoIs(init);
      return who ? json(shape(who)) : json({ error: "invalid_token" }, 401);
    };
  }
}

/** Provider settings pointing at `fake`. */
export function spotifyEnv(fake: FakeProvider): Partial<Env> {
  return {
    SPOTIFY_ACCOUNTS_URL: fake.auth,
    SPOTIFY_API_URL: fake.api,
    SPOTIFY_CLIENT_ID: `sp-${fake.tag}`,
    SPOTIFY_CLIENT_SECRET: "sp-secret",
  };
}
export function discordEnv(fake: FakeProvider): Partial<Env> {
  return {
    DISCORD_CLIENT_ID: `dc-${fake.tag}`,
    DISCORD_CLIENT_SECRET: "dc-secret",
    DISCORD_API_URL: fake.api,
    DISCORD_AUTHORIZE_URL: `${fake.auth}/oauth2/authorize`,
  };
}
export function youtubeEnv(fake: FakeProvider): Partial<Env> {
  return {
    GOOGLE_CLIENT_ID: `g-${fake.tag}`,
    GOOGLE_CLIENT_SECRET: "g-secret",
    GOOGLE_AUTHORIZE_URL: `${fake.auth}/o/oauth2/v2/auth`,
    GOOGLE_TOKEN_URL: `${fake.auth}/token`,
    YOUTUBE_API_URL: `${fake.api}/youtube/v3`,
  };
}
export function soundcloudEnv(fake: FakeProvider): Partial<Env> {
  return {
    SOUNDCLOUD_AUTH_URL: fake.auth,
    SOUNDCLOUD_API_URL: fake.api,
    SOUNDCLOUD_CLIENT_ID: `sc-${fake.tag}`,
    SOUNDCLOUD_CLIENT_SECRET: "sc-secret",
    SOUNDCLOUD_MOBILE_CLIENT_ID: `scm-${fake.tag}`,
    SOUNDCLOUD_MOBILE_CLIENT_SECRET: "scm-secret",
    SOUNDCLOUD_MOBILE_REDIRECT_URI: "hangout://soundcloud",
  };
}

/** Stubs fetch with every fake's token endpoint and "who am I" call (plus `more`). */
export function stubProviders(routes: [string | RegExp, Handler][]) {
  return stubFetch(routes);
}

export const spotifyRoutes = (fake: FakeProvider): [string, Handler][] => [
  [`${fake.auth}/api/token`, fake.token],
  [`${fake.api}/v1/me`, fake.me((w) => ({ id: w.id, display_name: w.name }))],
];
export const discordRoutes = (fake: FakeProvider): [string, Handler][] => [
  [`${fake.api}/oauth2/token`, fake.token],
  [
    `${fake.api}/users/@me`,
    fake.me((w) => ({
      id: w.id,
      username: w.name,
      global_name: w.name,
      email: w.email ?? null,
      verified: w.verified ?? false,
    })),
  ],
];
export const youtubeRoutes = (fake: FakeProvider): [string, Handler][] => [
  [`${fake.auth}/token`, fake.token],
  [
    `${fake.api}/youtube/v3/channels`,
    fake.me((w) => ({ items: [{ id: w.id, snippet: { title: w.name } }] })),
  ],
];
export const soundcloudRoutes = (fake: FakeProvider): [string, Handler][] => [
  [`${fake.auth}/oauth/token`, fake.token],
  [`${fake.api}/me`, fake.me((w) => ({ id: Number(w.id), username: w.name }))],
];

/** The user-service on the gateway with `over` in the env. */
export const us = (over: Partial<Env>, path: string, init?: CallInit) =>
  callWith(over, "user-service", path, init);

/** Starts a link at the API, approves it at `fake`, answers the code and state to finish with. */
export async function startLink(
  over: Partial<Env>,
  fake: FakeProvider,
  provider: string,
  token: string | undefined,
  who: FakeIdentity,
  query = "",
) {
  const res = await us(over, `/auth/${provider}/authorize-url${query}`, { token });
  if (res.status !== 200)
    throw new Error(`authorize-url: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...fake.approve(res.body.url, who), url: new URL(res.body.url as string) };
}

/** The raw link row, as D1 holds it. */
export const linkRow = (userId: number, provider: string) =>
  db(env)
    .select()
    .from(linkedAccounts)
    .where(eq(linkedAccounts.userId, userId))
    .all()
    .then((rows) => rows.filter((r) => r.provider === provider));

/** A fresh identity at a provider. */
export const someone = (over: Partial<FakeIdentity> = {}): FakeIdentity => ({
  id: String(Math.floor(Math.random() * 1e15) + 1e15),
  name: `Person ${Math.random().toString(36).slice(2, 7)}`,
  ...over,
});
