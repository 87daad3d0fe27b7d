import type { AppLoadContext } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { userApi } from "./api.server";
import { readCookie, serializeCookie, sessionCookieName } from "./cookies";
import type { UserRole } from "../../shared/roles";
import { isAdmin, type SessionInfo, type User } from "./types";

import { safeRedirect } from "./redirects";

export { safeRedirect };

/**
 * The session: the user-service JWT in an httpOnly cookie (`__Host-` over https,
 * cookies.ts sessionCookieName), set only by our actions.
 * Loaders read it and call the API with `Authorization: Bearer`. A token the API answers
 * 401 for is dropped (spec 000, section 6: "without a valid token the stored tokens are
 * cleared").
 */
const DEFAULT_MAX_AGE = 30 * 24 * 3600;

interface Args {
  request: Request;
  context: AppLoadContext;
}

const isHttps = (request: Request) => new URL(request.url).protocol === "https:";

export function getToken(request: Request): string | null {
  const t = readCookie(request.headers.get("Cookie"), sessionCookieName(request.url));
  return t && /^[\w-]+\.[\w-]+\.[\w-]+$/.test(t) ? t : null;
}

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

/** Seconds until the JWT's `exp`, or 30 days when it carries none we can read. */
function tokenMaxAge(token: string): number {
  const exp = claimsOf(token)?.exp;
  return typeof exp === "number"
    ? Math.max(0, exp - Math.floor(Date.now() / 1000))
    : DEFAULT_MAX_AGE;
}

/** `Set-Cookie` that stores the token (SameSite=Lax; Secure only over https). */
export function setTokenCookie(request: Request, token: string): string {
  return serializeCookie(sessionCookieName(request.url), token, {
    httpOnly: true,
    sameSite: "Lax",
    secure: isHttps(request),
    maxAge: tokenMaxAge(token),
  });
}

/**
 * A signed-out visitor's guest token, kept between pages so the guest stays one guest: their
 * songs heard count against the free-play limit (GUEST_FREE_PLAYS) across reloads. It
 * expires a minute before the token, so a kept one still verifies.
 */
export const GUEST_COOKIE = "tt_guest";

/** The kept guest token and its uuid, or null when none (or it is about to expire). */
export function getGuest(request: Request): { token: string; uuid: string } | null {
  const t = readCookie(request.headers.get("Cookie"), GUEST_COOKIE);
  if (!t || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(t) || tokenMaxAge(t) < 120) return null;
  const sub = claimsOf(t)?.sub;
  return typeof sub === "string" && sub ? { token: t, uuid: sub } : null;
}

/** `Set-Cookie` that keeps a guest token (see GUEST_COOKIE). */
export function setGuestCookie(request: Request, token: string): string {
  return serializeCookie(GUEST_COOKIE, token, {
    httpOnly: true,
    sameSite: "Lax",
    secure: isHttps(request),
    maxAge: tokenMaxAge(token) - 60,
  });
}

/** `Set-Cookie` that removes the token. */
export function clearTokenCookie(request: Request): string {
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
  token: string | null;
  roles: UserRole[];
  isAdmin: boolean;
  /** Set when the cookie must be cleared (the API refused the token). */
  setCookie: string | null;
}

/** Who is calling, from `GET /auth/session`. Never throws. */
export async function getSession(args: Args): Promise<Session> {
  const token = getToken(args.request);
  const guest: Session = { user: null, token: null, roles: [], isAdmin: false, setCookie: null };
  if (!token) return guest;
  const res = await userApi<SessionInfo>(args, "/auth/session", { token });
  if (!res.ok) {
    if (res.status === 401) return { ...guest, setCookie: clearTokenCookie(args.request) };
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
