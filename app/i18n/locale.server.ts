import { readCookie, serializeCookie } from "~/lib/cookies";
import { DEFAULT_LOCALE, isLocale, LOCALE_COOKIE, type Locale } from "./index";

/** The best of our locales for an Accept-Language header, honouring q-values. */
function fromAcceptLanguage(header: string | null): Locale | null {
  if (!header) return null;
  const ranked = header
    .split(",")
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      return {
        lang: tag.trim().toLowerCase().split("-")[0],
        q: q ? Number(q.slice(2)) || 0 : 1,
        i,
      };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked.map((x) => x.lang).find(isLocale) ?? null;
}

/**
 * The request's locale: `?lang=en|es` forces it (and the answer saves it in the
 * `tt-locale` cookie), else that cookie, else Accept-Language, else English.
 */
export function resolveLocale(request: Request): { locale: Locale; setCookie: string | null } {
  const forced = new URL(request.url).searchParams.get("lang");
  if (isLocale(forced)) {
    const saved = readCookie(request.headers.get("Cookie"), LOCALE_COOKIE);
    const setCookie =
      saved === forced
        ? null
        : serializeCookie(LOCALE_COOKIE, forced, { maxAge: 365 * 24 * 3600, sameSite: "Lax" });
    return { locale: forced, setCookie };
  }
  const cookie = readCookie(request.headers.get("Cookie"), LOCALE_COOKIE);
  if (isLocale(cookie)) return { locale: cookie, setCookie: null };
  return {
    locale: fromAcceptLanguage(request.headers.get("Accept-Language")) ?? DEFAULT_LOCALE,
    setCookie: null,
  };
}
