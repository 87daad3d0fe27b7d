import { magicPath, safePath } from "../../shared/redirects";

/** A path on this site only (shared/redirects.ts), else `fallback`. */
export function safeRedirect(
  to: FormDataEntryValue | string | null | undefined,
  fallback = "/",
): string {
  return safePath(to) ?? fallback;
}

/** Where a magic link's target leads (shared/redirects.ts `magicPath`); home if nowhere safe. */
export function magicTarget(raw: string | null | undefined): string {
  return (raw && magicPath(raw)) || "/";
}

/** `path` carrying the page's `redirectTo` on (log-in and sign-up link to each other). */
export function withRedirectTo(path: string, redirectTo: string | null): string {
  return redirectTo ? `${path}?redirectTo=${encodeURIComponent(redirectTo)}` : path;
}
