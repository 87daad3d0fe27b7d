import { readCookie, serializeCookie } from "./cookies";

/**
 * The OAuth state cookie (issue 16; docs/DECISIONS.md, "Linked accounts"). The API binds a
 * link's `state` to the account; this HttpOnly cookie also binds it to the browser that
 * started it, so a code and state pasted into another browser (or a link an attacker sends)
 * is refused before the API is asked. SameSite=Lax: the provider's redirect back is a
 * top-level GET, which carries Lax cookies; the path keeps it off every other page.
 */
export const STATE_COOKIE = "tt_oauth";
/** The cookie's provider part for a Discord sign-in (a link uses the provider's name). */
export const SIGN_IN = "discord-sign-in";
const PATH = "/settings/connections";

export function stateCookie(request: Request, provider: string, state: string): string {
  return serializeCookie(STATE_COOKIE, `${provider}.${state}`, {
    httpOnly: true,
    sameSite: "Lax",
    secure: new URL(request.url).protocol === "https:",
    path: PATH,
    maxAge: 600,
  });
}

export const clearStateCookie = (request: Request) =>
  serializeCookie(STATE_COOKIE, "", {
    httpOnly: true,
    sameSite: "Lax",
    secure: new URL(request.url).protocol === "https:",
    path: PATH,
    maxAge: 0,
  });

/** Whether the browser holds the state `state` was for `provider` (one compare, both known). */
export function stateMatches(request: Request, provider: string, state: string | null): boolean {
  const held = readCookie(request.headers.get("Cookie"), STATE_COOKIE);
  return !!state && !!held && held === `${provider}.${state}`;
}
