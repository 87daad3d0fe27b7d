import type { AppLoadContext } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { userApi } from "./api.server";
import { BANNED_PREFIX } from "../../shared/platform-removal";
import { GUEST_COOKIE, readCookie, serializeCookie, sessionCookieName } from "./cookies";
import type { UserRole } from "../../shared/roles";
import { isAdmin, type SessionInfo, type User } from "./types";

import { safeRedirect } from "./redirects";

export { safeRedirect };

/**
 * The session (issue 13): the browser holds only an opaque id in an HttpOnly cookie
 * (`__Host-session` over https, cookies.ts sessionCookieName); the Worker resolves it for each
 * page request into `context.webToken`, a minutes-long token the loaders call the API with
 * (workers/lib/web-sessions.ts). No page data ever carries a token. A session the API
 * refuses (ended, logged out everywhere) is dropped: the cookie is cleared (spec 000,
 * section 6: "without a valid token the stored tokens are cleared").
 */
interface Args {
  request: Request;
  context: AppLoadContext;
}

const isHttps = (request: Request) => new URL(request.url).protocol === "https:";

/** The token standing for this request's session, or null when signed out. */
export const getToken = (args: Args): string | null => args.context.webToken ?? null;

/** A JWT's claims, read without verifying (the API verifies; this only sizes cookies). */
function claimsOf(token: string): { exp?: unknown; sub?: unknown } | null {
  try {
    const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(payload + "=".repeat((4 - (payload.length % 4)) % 4))) as {
      exp?: unknown;
      sub?: unknown;
    };
  } catch {
    return null; // not a JWT we can read
  }
}

/** Seconds until the JWT's `exp` (0 when it carries none we can read). */
function tokenMaxAge(token: string): number {
  const exp = claimsOf(token)?.exp;
  return typeof exp === "number" ? Math.max(0, exp - Math.floor(Date.now() / 1000)) : 0;
}

/**
 * Signs the browser in: trades `token` (from login, sign-up, a magic link or a password
 * change) for a web session and answers the `Set-Cookie` that holds its id, or null when
 * the API could not make one (the action then shows an error; nobody is half signed in).
 *
 * `inDiscordFrame`: the Discord Activity (issue 16) runs in Discord's iframe, a cross-site
 * frame, where a Lax cookie is never sent. Its session cookie is `SameSite=None; Secure;
 * Partitioned` (CHIPS): kept in a jar of its own for the top-level site (Discord), so it is
 * sent only inside Discord's frame, never on our own site or under any other top-level site,
 * and the web session a person has in their browser stays apart. (Browsers treat
 * http://localhost and 127.0.0.1 as secure, so a local run keeps it too.)
 */
export async function startSession(
  args: Args,
  token: string,
  inDiscordFrame = false,
): Promise<string | null> {
  const res = await userApi<{ sessionId: string; expiresAt: string }>(args, "/auth/web-sessions", {
    method: "POST",
    token,
  });
  if (!res.ok) return null;
  return serializeCookie(sessionCookieName(args.request.url), res.data.sessionId, {
    httpOnly: true,
    sameSite: inDiscordFrame ? "None" : "Lax",
    secure: inDiscordFrame || isHttps(args.request),
    partitioned: inDiscordFrame,
    maxAge: (Date.parse(res.data.expiresAt) - Date.now()) / 1000,
  });
}

/** The kept guest token and its uuid, or null when none (or it is about to expire). */
export function getGuest(request: Request): { token: string; uuid: string } | null {
  const t = readCookie(request.headers.get("Cookie"), GUEST_COOKIE);
  if (!t || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(t) || tokenMaxAge(t) < 120) return null;
  const sub = claimsOf(t)?.sub;
  return typeof sub === "string" && sub ? { token: t, uuid: sub } : null;
}

/** `Set-Cookie` that keeps a guest token (GUEST_COOKIE); it expires a minute before the token. */
export function setGuestCookie(request: Request, token: string): string {
  return serializeCookie(GUEST_COOKIE, token, {
    httpOnly: true,
    sameSite: "Lax",
    secure: isHttps(request),
    maxAge: tokenMaxAge(token) - 60,
  });
}

/** `Set-Cookie` that removes the session cookie. */
export function clearSessionCookie(request: Request): string {
  return serializeCookie(sessionCookieName(request.url), "", {
    httpOnly: true,
    sameSite: "Lax",
    secure: isHttps(request),
    maxAge: 0,
  });
}

export interface Session {
  /** The signed-in account, or null for a guest. */
  user: User | null;
  /** For the server's API calls only (getToken); never return it in page data. */
  token: string | null;
  roles: UserRole[];
  isAdmin: boolean;
  /** Set when the cookie must be cleared (the API refused the token). */
  setCookie: string | null;
  /**
   * The API's words when the account behind the session is banned ("Your account is banned
   * until ... Reason: ..."): the page shows them instead of itself (issue 15). The session is
   * otherwise a guest's. null when not banned.
   */
  banned?: string | null;
}

/** Who is calling, from `GET /auth/session`. Never throws. */
export async function getSession(args: Args): Promise<Session> {
  const token = getToken(args);
  const guest: Session = { user: null, token: null, roles: [], isAdmin: false, setCookie: null };
  if (!token) {
    // A cookie that stands for no live session (logged out elsewhere, expired): drop it.
    const stale = readCookie(
      args.request.headers.get("Cookie"),
      sessionCookieName(args.request.url),
    );
    return stale === null ? guest : { ...guest, setCookie: clearSessionCookie(args.request) };
  }
  const res = await userApi<SessionInfo>(args, "/auth/session", { token });
  if (!res.ok) {
    if (res.status === 401) return { ...guest, setCookie: clearSessionCookie(args.request) };
    // A ban keeps the web session only to say why (workers/user-service/platform-bans.ts).
    if (res.status === 403 && !res.generic && res.message.startsWith(BANNED_PREFIX))
      return { ...guest, banned: res.message };
    // The API failed some other way: keep the cookie and show the page as a guest.
    return guest;
  }
  const { user, tokenType } = res.data;
  if (!user || (tokenType && tokenType !== "user" && tokenType !== "bot")) return guest;
  const roles = res.data.roles ?? user.roles ?? [];
  return { user: { ...user, roles }, token, roles, isAdmin: isAdmin(roles), setCookie: null };
}

/** For the log-in and sign-up pages: a visitor already signed in goes on to `?redirectTo`. */
export async function redirectSignedIn(args: Args): Promise<null> {
  const session = await getSession(args);
  if (session.user)
    throw redirect(safeRedirect(new URL(args.request.url).searchParams.get("redirectTo")));
  return null;
}

/** `/login?redirectTo=<here>` for a page that needs an account. */
export function loginRedirect(request: Request, headers?: HeadersInit) {
  const url = new URL(request.url);
  const here = url.pathname + url.search;
  return redirect(`/login?redirectTo=${encodeURIComponent(here)}`, { headers });
}

/** The signed-in user, or a redirect to log in (clearing a refused cookie). */
export async function requireUser(args: Args): Promise<Session & { user: User; token: string }> {
  const session = await getSession(args);
  if (!session.user || !session.token) {
    throw loginRedirect(
      args.request,
      session.setCookie ? { "Set-Cookie": session.setCookie } : undefined,
    );
  }
  return session as Session & { user: User; token: string };
}
