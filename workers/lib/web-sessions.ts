import { and, desc, eq, gt, lte, notInArray } from "drizzle-orm";
import { GUEST_COOKIE, readCookie, sessionCookieName } from "../../app/lib/cookies";
import type { TokenType } from "../../shared/roles";
import { db } from "../db/client";
import { webSessions } from "../db/schema";
import type { Env } from "../env";
import { randomToken, sha256 } from "./crypto";
import { signToken, verifyToken, type TokenClaims } from "./jwt";
import { sameOrigin } from "./same-origin";

/**
 * Web sessions (issue 13; OWASP ASVS 4.0 V3). The browser never holds a bearer token:
 *
 * - Signing in on a page makes a row here and sets a cookie holding a random 256-bit id
 *   (`__Host-session` over https, HttpOnly, SameSite=Lax). D1 keeps only its SHA-256.
 * - A page request: the Worker resolves the cookie and mints a WEB_TOKEN_TTL_SECONDS token
 *   for the loaders' in-process API calls (load context `webToken`). It never leaves the
 *   server: the root loader hands the page the user, not a token.
 * - A browser's own API call (`fetch('/api/...')`, uploads, the HLS playlist) and its room
 *   socket carry the cookie; the gateway honours it only from our origin (same-origin.ts), so
 *   another site cannot ride it. A guest's kept guest token (GUEST_COOKIE) is honoured the
 *   same way.
 * - A session ends when its row goes (logout), when the account's sessionVersion moves (log
 *   out everywhere, password change or reset), at expiresAt (30 days after sign-in, absolute),
 *   or when the account is deactivated. A user keeps at most MAX_WEB_SESSIONS_PER_USER: a new
 *   one beyond that ends the oldest, so a script signing in in a loop cannot grow the table.
 */
export const WEB_SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
export const MAX_WEB_SESSIONS_PER_USER = 20;
/** A minted token outlives any one page request, and nothing else. */
export const WEB_TOKEN_TTL_SECONDS = 300;

/** What a session id looks like: 32 random bytes, base64url. Anything else is not looked up. */
const SESSION_ID = /^[\w-]{43}$/;

export interface NewWebSession {
  /** The cookie's value: shown once, never stored. */
  id: string;
  expiresAt: number;
}

/** Starts a web session for an account (`sv`: its sessionVersion now). */
export async function createWebSession(
  env: Env,
  who: { uuid: string; type: Extract<TokenType, "user" | "bot">; sv: number },
  userAgent: string | null,
): Promise<NewWebSession> {
  const id = randomToken(32);
  const now = Date.now();
  const expiresAt = now + WEB_SESSION_TTL_MS;
  const d = db(env);
  const mine = eq(webSessions.userUuid, who.uuid);
  // The newest MAX_WEB_SESSIONS_PER_USER stay; expired ones go in the same batch.
  const keep = d
    .select({ idHash: webSessions.idHash })
    .from(webSessions)
    .where(mine)
    .orderBy(desc(webSessions.createdAt))
    .limit(MAX_WEB_SESSIONS_PER_USER);
  await d.batch([
    d.insert(webSessions).values({
      idHash: await sha256(id),
      userUuid: who.uuid,
      tokenType: who.type,
      sessionVersion: who.sv,
      createdAt: now,
      expiresAt,
      userAgent: userAgent?.slice(0, 200) || null,
    }),
    d.delete(webSessions).where(and(mine, lte(webSessions.expiresAt, now))),
    d.delete(webSessions).where(and(mine, notInArray(webSessions.idHash, keep))),
  ]);
  return { id, expiresAt };
}

/**
 * The claims a session cookie's id stands for, or null (malformed, unknown, ended, expired).
 * Whether the account still stands behind it (sessionVersion, deactivation) is the caller's
 * check, as for any token (lib/auth.ts callerFrom).
 */
export async function webSessionClaims(env: Env, id: string): Promise<TokenClaims | null> {
  if (!SESSION_ID.test(id)) return null;
  const row = await db(env)
    .select()
    .from(webSessions)
    .where(and(eq(webSessions.idHash, await sha256(id)), gt(webSessions.expiresAt, Date.now())))
    .get();
  if (!row) return null;
  return {
    sub: row.userUuid,
    type: row.tokenType,
    roles: [],
    sv: row.sessionVersion,
    sid: row.idHash,
  };
}

/** Ends one session (logout). */
export async function endWebSession(env: Env, idHash: string): Promise<void> {
  await db(env).delete(webSessions).where(eq(webSessions.idHash, idHash)).run();
}

/** The statement that ends every session of an account (log out everywhere). */
export const endAllWebSessions = (env: Env, userUuid: string) =>
  db(env).delete(webSessions).where(eq(webSessions.userUuid, userUuid));

/** The session cookie's id on `request`, if it has one. */
export const sessionCookie = (request: Request): string | null =>
  readCookie(request.headers.get("Cookie"), sessionCookieName(request.url));

/**
 * Who a browser's own request (an API call or a room socket) is, from its cookies: the web
 * session, else a kept guest token. Only from our origin: elsewhere the cookies count for
 * nothing (the request is anonymous), so a cross-site request cannot act as the user.
 */
export async function cookieClaims(env: Env, request: Request): Promise<TokenClaims | null> {
  if (!sameOrigin(request, env)) return null;
  const id = sessionCookie(request);
  if (id) return webSessionClaims(env, id);
  const guest = readCookie(request.headers.get("Cookie"), GUEST_COOKIE);
  const claims = guest ? await verifyToken(env, guest) : null;
  return claims?.type === "guest" ? claims : null;
}

/**
 * For a page request: a minutes-long token standing for the session cookie, for the loaders'
 * in-process API calls, or null without a live session. The API checks it like any token.
 */
export async function mintWebToken(env: Env, request: Request): Promise<string | null> {
  const id = sessionCookie(request);
  const claims = id ? await webSessionClaims(env, id) : null;
  return claims ? signToken(env, claims, WEB_TOKEN_TTL_SECONDS) : null;
}
