import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { Context } from "hono";
import {
  InvalidGrant,
  oauthClient,
  PROVIDER_NAMES,
  tokenRequest,
  type Identity,
  type OAuthClient,
  type TokenAnswer,
} from "../adapters/oauth";
import { outside } from "../adapters/music";
import type { TokenSource } from "../adapters/music/http";
import { db } from "../db/client";
import {
  linkedAccounts,
  oauthStates,
  type LinkedAccountRow,
  type LinkProvider,
  type LinkVariant,
} from "../db/schema";
import type { AppEnv, Env } from "../env";
import { randomToken, sha256 } from "../lib/crypto";
import { isDevEnvironment } from "../lib/environments";
import { ApiError, isUniqueViolation } from "../lib/errors";
import { currentKeyId, open, seal } from "../lib/sealed";
import { LINK_MSG } from "./linked-messages";

/**
 * The OAuth mechanics every provider route shares (docs/DECISIONS.md, "Linked accounts"):
 * the authorize URL with a single-use state (and PKCE where the provider takes it), the
 * code exchange, the sealed link row, and access tokens that are cached sealed, refreshed
 * when they lapse or once on a 401, and dropped when the provider revokes the grant.
 */

/** How long a state stays good: a person signing in at the provider takes a minute or two. */
export const STATE_TTL_MS = 10 * 60_000;
/** A cached access token is not handed out in its last minute. */
const ACCESS_MARGIN_MS = 60_000;

/** The client for a provider, or 503 naming it when its keys are not set. */
export function requireClient(env: Env, provider: LinkProvider, variant: LinkVariant = "web") {
  const client = oauthClient(env, provider, variant);
  if (!client) throw new ApiError(503, LINK_MSG.notConfigured(PROVIDER_NAMES[provider]));
  return client;
}

/**
 * Where the provider sends the browser back: from configuration only (PUBLIC_HOST, or the
 * mobile app's registered scheme), never from the request, except in development where a
 * local run on any port has no PUBLIC_HOST. Null: not configured.
 */
export function redirectUri(c: Context<AppEnv>, client: OAuthClient): string | null {
  if (client.variant === "mobile") return c.env.SOUNDCLOUD_MOBILE_REDIRECT_URI ?? null;
  const origin =
    c.env.PUBLIC_HOST || (isDevEnvironment(c.env) ? new URL(c.req.url).origin : undefined);
  return origin
    ? `${origin.replace(/\/+$/, "")}/settings/connections/callback/${client.provider}`
    : null;
}

export function requireRedirect(c: Context<AppEnv>, client: OAuthClient): string {
  const uri = redirectUri(c, client);
  if (!uri) throw new ApiError(503, LINK_MSG.notConfigured(client.name));
  return uri;
}

const b64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const stateAad = (hash: string) => `oauth-state:${hash}`;

/**
 * A new state for `client`, bound to `userId` (null: a Discord sign-in), and the authorize
 * URL that carries it. Expired states are swept here, so the table stays small.
 */
export async function authorizeUrl(
  c: Context<AppEnv>,
  client: OAuthClient,
  intent: "link" | "sign-in",
  userId: number | null,
) {
  const redirect = requireRedirect(c, client);
  const state = randomToken();
  const hash = await sha256(state);
  const verifier = client.pkce ? randomToken(48) : null;
  const sealed = verifier ? await seal(c.env, "providerTokens", verifier, stateAad(hash)) : null;
  const expiresAt = Date.now() + STATE_TTL_MS;
  const d = db(c.env);
  await d.batch([
    d.delete(oauthStates).where(lt(oauthStates.expiresAt, Date.now())),
    d.insert(oauthStates).values({
      stateHash: hash,
      provider: client.provider,
      variant: client.variant,
      intent,
      userId,
      verifierEnc: sealed?.value ?? null,
      keyId: sealed?.keyId ?? (await currentKeyId(c.env, "providerTokens")),
      expiresAt,
    }),
  ]);
  const url = new URL(client.authorizeUrl);
  const q = url.searchParams;
  q.set("response_type", "code");
  q.set("client_id", client.clientId);
  q.set("redirect_uri", redirect);
  q.set("state", state);
  if (client.scopes.length) q.set("scope", client.scopes.join(" "));
  if (verifier) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
    q.set("code_challenge", b64url(digest));
    q.set("code_challenge_method", "S256");
  }
  for (const [k, v] of Object.entries(client.extraAuthorize ?? {})) q.set(k, v);
  return { url: url.toString(), state, expiresAt: new Date(expiresAt).toISOString() };
}

/**
 * Spends `state` for `client` and `userId` in one conditional update: unknown, expired,
 * used, another provider's or another account's state changes nothing and is a 400; of two
 * racing exchanges only one gets a row. Answers the PKCE verifier (null without PKCE).
 */
export async function spendState(
  env: Env,
  client: OAuthClient,
  state: string,
  intent: "link" | "sign-in",
  userId: number | null,
): Promise<string | null> {
  const hash = await sha256(state);
  const row = await db(env)
    .update(oauthStates)
    .set({ usedAt: Date.now() })
    .where(
      and(
        eq(oauthStates.stateHash, hash),
        eq(oauthStates.provider, client.provider),
        eq(oauthStates.variant, client.variant),
        eq(oauthStates.intent, intent),
        userId === null ? isNull(oauthStates.userId) : eq(oauthStates.userId, userId),
        isNull(oauthStates.usedAt),
        gt(oauthStates.expiresAt, Date.now()),
      ),
    )
    .returning({ verifierEnc: oauthStates.verifierEnc, keyId: oauthStates.keyId })
    .get();
  if (!row) throw new ApiError(400, LINK_MSG.badState);
  if (!row.verifierEnc) return null;
  const verifier = await open(env, "providerTokens", row.keyId, row.verifierEnc, stateAad(hash));
  if (!verifier) throw new ApiError(400, LINK_MSG.badState);
  return verifier;
}

/** Trades an authorization code for tokens; a code the provider refuses is a 400. */
export async function exchangeCode(
  client: OAuthClient,
  code: string,
  redirect: string | null,
  verifier: string | null,
): Promise<TokenAnswer> {
  const grant: Record<string, string> = { grant_type: "authorization_code", code };
  if (redirect) grant.redirect_uri = redirect;
  if (verifier) grant.code_verifier = verifier;
  return outside(client.name, async () => {
    try {
      return await tokenRequest(client, grant);
    } catch (err) {
      if (err instanceof InvalidGrant) throw new ApiError(400, LINK_MSG.codeRefused(client.name));
      throw err;
    }
  });
}

/** Who the new tokens belong to (a provider failure is a 502 naming it). */
export const identify = (env: Env, client: OAuthClient, tokens: TokenAnswer) =>
  outside(client.name, () => client.identity(env, tokens.accessToken));

const aad = (userId: number, p: LinkProvider, v: LinkVariant, column: "refresh" | "access") =>
  `linked:${userId}:${p}:${v}:${column}`;

/** The sealed columns for a row's secrets, all under the current key. */
async function sealedColumns(
  env: Env,
  userId: number,
  provider: LinkProvider,
  variant: LinkVariant,
  refresh: string | null,
  access: { token: string; expiresAt: number } | null,
) {
  const r = refresh
    ? await seal(env, "providerTokens", refresh, aad(userId, provider, variant, "refresh"))
    : null;
  const a = access
    ? await seal(env, "providerTokens", access.token, aad(userId, provider, variant, "access"))
    : null;
  return {
    refreshTokenEnc: r?.value ?? null,
    accessTokenEnc: a?.value ?? null,
    accessExpiresAt: access?.expiresAt ?? null,
    keyId: r?.keyId ?? a?.keyId ?? (await currentKeyId(env, "providerTokens")),
  };
}

/**
 * Stores (or replaces) `userId`'s link to `who` at `client`'s provider. A provider account
 * already linked to someone else is a 409: one provider identity links one account.
 */
export async function saveLink(
  env: Env,
  userId: number,
  client: Pick<OAuthClient, "provider" | "variant" | "name">,
  who: Identity,
  secrets: { refresh: string | null; access: { token: string; expiresAt: number } | null },
  scope: string | null = null,
): Promise<LinkedAccountRow> {
  const { provider, variant } = client;
  const cols = await sealedColumns(env, userId, provider, variant, secrets.refresh, secrets.access);
  const now = Date.now();
  const values = {
    externalId: who.id,
    displayName: who.displayName?.slice(0, 100) ?? null,
    scope: scope?.slice(0, 500) ?? null,
    ...cols,
    updatedAt: now,
  };
  try {
    return await db(env)
      .insert(linkedAccounts)
      .values({ userId, provider, variant, ...values, createdAt: now })
      .onConflictDoUpdate({
        target: [linkedAccounts.userId, linkedAccounts.provider, linkedAccounts.variant],
        set: values,
      })
      .returning()
      .get();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(409, LINK_MSG.linkedElsewhere(client.name));
    throw err;
  }
}

/** The full link flow for a signed-in account: spend the state, trade the code, store. */
export async function linkWithCode(
  c: Context<AppEnv>,
  client: OAuthClient,
  userId: number,
  body: { code: string; state: string },
) {
  const verifier = await spendState(c.env, client, body.state, "link", userId);
  const tokens = await exchangeCode(client, body.code, requireRedirect(c, client), verifier);
  const who = await identify(c.env, client, tokens);
  const row = await saveLink(
    c.env,
    userId,
    client,
    who,
    {
      refresh: tokens.refreshToken,
      access: { token: tokens.accessToken, expiresAt: Date.now() + tokens.expiresIn * 1000 },
    },
    tokens.scope,
  );
  return { row, tokens, who };
}

export function findLink(env: Env, userId: number, provider: LinkProvider, variant: LinkVariant) {
  return db(env)
    .select()
    .from(linkedAccounts)
    .where(
      and(
        eq(linkedAccounts.userId, userId),
        eq(linkedAccounts.provider, provider),
        eq(linkedAccounts.variant, variant),
      ),
    )
    .get();
}

/** Opens a row's secret, or null when its key is gone or the value was tampered with. */
export const openSecret = (env: Env, row: LinkedAccountRow, column: "refresh" | "access") => {
  const value = column === "refresh" ? row.refreshTokenEnc : row.accessTokenEnc;
  return value
    ? open(
        env,
        "providerTokens",
        row.keyId,
        value,
        aad(row.userId, row.provider, row.variant, column),
      )
    : Promise.resolve(null);
};

// One refresh per link at a time in this isolate: concurrent callers share it.
const refreshing = new Map<number, Promise<{ token: string; expiresAt: number }>>();

async function refresh(env: Env, row: LinkedAccountRow) {
  const client = requireClient(env, row.provider, row.variant);
  const current = await openSecret(env, row, "refresh");
  if (!current) throw new ApiError(409, LINK_MSG.revoked(client.name));
  let tokens: TokenAnswer;
  try {
    tokens = await outside(client.name, () =>
      tokenRequest(client, { grant_type: "refresh_token", refresh_token: current }),
    );
  } catch (err) {
    if (!(err instanceof InvalidGrant)) throw err;
    // Revoked at the provider: the dead secrets go (only if no newer link replaced them).
    await db(env)
      .update(linkedAccounts)
      .set({
        refreshTokenEnc: null,
        accessTokenEnc: null,
        accessExpiresAt: null,
        updatedAt: Date.now(),
      })
      .where(
        and(
          eq(linkedAccounts.id, row.id),
          eq(linkedAccounts.refreshTokenEnc, row.refreshTokenEnc ?? ""),
        ),
      );
    throw new ApiError(409, LINK_MSG.revoked(client.name));
  }
  const access = { token: tokens.accessToken, expiresAt: Date.now() + tokens.expiresIn * 1000 };
  // Providers may rotate the refresh token (Spotify, SoundCloud) or keep it (Google).
  const cols = await sealedColumns(
    env,
    row.userId,
    row.provider,
    row.variant,
    tokens.refreshToken ?? current,
    access,
  );
  await db(env)
    .update(linkedAccounts)
    .set({ ...cols, updatedAt: Date.now() })
    .where(eq(linkedAccounts.id, row.id));
  return access;
}

/**
 * A usable access token for `userId`'s link: the cached one while it has over a minute
 * left, else a refreshed one (`fresh` forces the refresh: the provider just said 401).
 * Not linked: 404; revoked: 409 (and the link's secrets are gone).
 */
export async function accessToken(
  env: Env,
  userId: number,
  provider: LinkProvider,
  variant: LinkVariant = "web",
  fresh = false,
): Promise<{ token: string; expiresAt: number }> {
  const row = await findLink(env, userId, provider, variant);
  if (!row) throw new ApiError(404, LINK_MSG.notLinked(PROVIDER_NAMES[provider]));
  if (!fresh && row.accessExpiresAt && row.accessExpiresAt - ACCESS_MARGIN_MS > Date.now()) {
    const token = await openSecret(env, row, "access");
    if (token) return { token, expiresAt: row.accessExpiresAt };
  }
  const inflight = refreshing.get(row.id);
  if (inflight) return inflight;
  const p = refresh(env, row).finally(() => refreshing.delete(row.id));
  refreshing.set(row.id, p);
  return p;
}

/**
 * A TokenSource (adapters/music/http.ts) for calls made with a person's own link: the
 * provider's 401 makes exactly one refresh and one retry.
 */
export function linkedTokenSource(
  env: Env,
  userId: number,
  provider: LinkProvider,
  header: (t: string) => Record<string, string>,
): TokenSource {
  return {
    retryOn: [401],
    header,
    get: async (fresh) => (await accessToken(env, userId, provider, "web", fresh)).token,
  };
}

/** Removes a link (its secrets with it). Answers whether there was one. */
export async function unlink(
  env: Env,
  userId: number,
  provider: LinkProvider,
  variant: LinkVariant,
) {
  const gone = await db(env)
    .delete(linkedAccounts)
    .where(
      and(
        eq(linkedAccounts.userId, userId),
        eq(linkedAccounts.provider, provider),
        eq(linkedAccounts.variant, variant),
      ),
    )
    .returning({ id: linkedAccounts.id })
    .get();
  return !!gone;
}

/** The token answer the API gives a client: an access token and when it lapses, never a refresh token. */
export const accessAnswer = (a: { token: string; expiresAt: number }) => ({
  accessToken: a.token,
  expiresAt: new Date(a.expiresAt).toISOString(),
  expiresIn: Math.max(0, Math.floor((a.expiresAt - Date.now()) / 1000)),
});

/** A link as the Connected accounts page shows it (no secret, ever). */
export const linkView = (r: LinkedAccountRow) => ({
  provider: r.provider,
  variant: r.variant,
  externalId: r.externalId,
  displayName: r.displayName,
  /** False once the provider revoked the grant: the person should link again. */
  active: !!(r.refreshTokenEnc || r.accessTokenEnc),
  linkedAt: new Date(r.createdAt).toISOString(),
});
