/**
 * Where a redirect may lead, one rule for the API (which stores magic-link targets) and the
 * web app (which follows them): a path on this site only, never `//host` or `/\host` (an open
 * redirect), and never one that becomes such a path once decoded (`/%2F%2Fevil.example`).
 */

/** A path on this site, or null: never `//host`, `/\host`, control characters or backslashes. */
export function safePath(to: unknown): string | null {
  if (typeof to !== "string" || !to.startsWith("/") || to.startsWith("//")) return null;
  // Control characters and backslashes can be read as a host by some browsers.
  if (/[\u0000-\u001f\u007f\\]/.test(to)) return null;
  return to;
}

/** `raw` decoded until it settles (a target may be encoded once or twice); null if malformed. */
export function decodeTarget(raw: string): string | null {
  let target = raw;
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(target); i++) {
    try {
      target = decodeURIComponent(target);
    } catch {
      return null;
    }
  }
  return /%[0-9a-f]{2}/i.test(target) ? null : target;
}

const PLAN = /^\/?subscribe-plan\/([\w-]{1,50})\/?$/;

/**
 * Where a magic link's target leads (spec 000, section 2): `subscribe-plan/{plan}` goes to
 * the subscription page for that plan; anything else is a path on this site once decoded.
 * Null when it is neither.
 *
 * @example magicPath("subscribe-plan/pro") // "/subscription?plan=pro"
 * @example magicPath("%2Frooms%2Fabc")     // "/rooms/abc"
 * @example magicPath("/%2F%2Fevil.example") // null
 */
export function magicPath(raw: string): string | null {
  const target = decodeTarget(raw);
  if (target === null) return null;
  const plan = target.match(PLAN);
  if (plan) return `/subscription?plan=${encodeURIComponent(plan[1])}`;
  return safePath(target);
}
