/** A path on this site only: never `//host` or `/\host` (no open redirect). */
export function safeRedirect(
  to: FormDataEntryValue | string | null | undefined,
  fallback = "/",
): string {
  if (typeof to !== "string" || !to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\"))
    return fallback;
  // Control characters and backslashes can be read as a host by some browsers.
  if (/[\u0000-\u001f\\]/.test(to)) return fallback;
  return to;
}

/**
 * Where a magic link's target leads (spec 000, section 2): `subscribe-plan/{plan}` goes to
 * the subscription page for that plan; anything else is an encoded path on this site, used
 * only if it starts with a single "/" (never another host). Otherwise home.
 *
 * @example magicTarget("subscribe-plan/pro") // "/subscription?plan=pro"
 * @example magicTarget("%2Frooms%2Fabc")     // "/rooms/abc"
 * @example magicTarget("%2F%2Fevil.example")  // "/"
 */
export function magicTarget(raw: string | null | undefined): string {
  if (!raw) return "/";
  let target = raw;
  // The target arrives URL-encoded (once, sometimes twice); decode until it settles.
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(target); i++) {
    try {
      target = decodeURIComponent(target);
    } catch {
      return "/";
    }
  }
  const plan = target.match(/^\/?subscribe-plan\/([^/?#]+)\/?$/);
  if (plan) return `/subscription?plan=${encodeURIComponent(plan[1])}`;
  return safeRedirect(target, "/");
}

/** `path` carrying the page's `redirectTo` on (log-in and sign-up link to each other). */
export function withRedirectTo(path: string, redirectTo: string | null): string {
  return redirectTo ? `${path}?redirectTo=${encodeURIComponent(redirectTo)}` : path;
}
