/** Tiny cookie helpers (no dependency): read one cookie, write a Set-Cookie value. */
export function readCookie(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  return null;
}

export interface CookieOptions {
  maxAge?: number;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: "Lax" | "Strict" | "None";
  path?: string;
  /** CHIPS: kept in a jar of the top-level site's own (the Discord Activity's session). */
  partitioned?: boolean;
}

export function serializeCookie(name: string, value: string, o: CookieOptions = {}): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${o.path ?? "/"}`];
  if (o.maxAge !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(o.maxAge))}`);
  if (o.maxAge === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (o.httpOnly) parts.push("HttpOnly");
  if (o.secure) parts.push("Secure");
  parts.push(`SameSite=${o.sameSite ?? "Lax"}`);
  if (o.partitioned) parts.push("Partitioned");
  return parts.join("; ");
}

/**
 * The session cookie's name. It holds only an opaque random id (workers/lib/web-sessions.ts);
 * over https it carries the `__Host-` prefix: the browser then keeps it only if it is Secure,
 * for Path=/ and with no Domain, so no subdomain (or a man-in-the-middle on http) can plant
 * or overwrite it (issue 13). A local http dev server cannot set a Secure cookie, so there it
 * is plain `tt_session`.
 */
export const sessionCookieName = (url: string): string =>
  new URL(url).protocol === "https:" ? "__Host-session" : "tt_session";

/**
 * A signed-out visitor's guest token (a guest JWT, HttpOnly), kept between pages so the guest
 * stays one guest: their songs heard count against the free-play limit across reloads.
 */
export const GUEST_COOKIE = "tt_guest";
