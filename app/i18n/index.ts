import { useRouteLoaderData } from "@remix-run/react";
import { useCallback } from "react";
import { en, type Dictionary, type MessageKey } from "./en";
import { es } from "./es";

export type { MessageKey } from "./en";

/** The languages the spec names (section 2): en and es; en is the default. */
export const LOCALES = ["en", "es"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";
/** The cookie (and localStorage key) that remembers the choice. */
export const LOCALE_COOKIE = "tt-locale";

const dictionaries: Record<Locale, Dictionary> = { en, es };

export const isLocale = (v: unknown): v is Locale =>
  typeof v === "string" && (LOCALES as readonly string[]).includes(v);

export type Vars = Record<string, string | number>;
export type T = (key: MessageKey, vars?: Vars) => string;

const pluralRules: Record<Locale, Intl.PluralRules> = {
  en: new Intl.PluralRules("en"),
  es: new Intl.PluralRules("es"),
};

/** A `count` var as a number: a number, or a string of plain digits (else not a count). */
const countOf = (v: string | number | undefined): number | null =>
  typeof v === "number" && Number.isFinite(v)
    ? v
    : typeof v === "string" && /^\d+$/.test(v)
      ? Number(v)
      : null;

/**
 * The form of `key` for `count` (issue 20: "1 tokens" must read "1 token"): `key.zero` for
 * 0 when the dictionary has it, then `key.<rule>` by `Intl.PluralRules` for the locale
 * (`one`, `many`, ...), else `key` itself (the "other" form).
 */
function pluralForm(locale: Locale, key: MessageKey, count: number | null): string {
  if (count === null) return key;
  const has = (k: string) => k in dictionaries[locale] || k in en;
  if (count === 0 && has(`${key}.zero`)) return `${key}.zero`;
  const rule = `${key}.${pluralRules[locale].select(count)}`;
  return has(rule) ? rule : key;
}

/**
 * The text for `key` in `locale`, with `{name}` placeholders filled from `vars`; a numeric
 * `count` picks the plural form (`pluralForm`) and is written with the locale's digit groups.
 */
export function translate(locale: Locale, key: MessageKey, vars?: Vars): string {
  const form = pluralForm(locale, key, countOf(vars?.count)) as MessageKey;
  const text = dictionaries[locale][form] ?? en[form] ?? key;
  return vars
    ? text.replace(/\{(\w+)\}/g, (m, k: string) =>
        // A count reads as the language writes numbers ("1,502 here", "1.502 aquí").
        k === "count" && typeof vars[k] === "number"
          ? vars[k].toLocaleString(locale)
          : k in vars
            ? String(vars[k])
            : m,
      )
    : text;
}

/** True when `key` names a message (for values such as a zodiac sign or badge). */
export const hasKey = (key: string): key is MessageKey => key in en;

/** The locale the root loader chose (en while the root has no data, as in a crash page). */
export function useLocale(): Locale {
  const data = useRouteLoaderData("root") as { locale?: Locale } | undefined;
  return isLocale(data?.locale) ? data.locale : DEFAULT_LOCALE;
}

/**
 * The translate function for the current locale.
 *
 * @example const t = useT(); <h1>{t("login.heading")}</h1>
 */
export function useT(): T {
  const locale = useLocale();
  return useCallback<T>((key, vars) => translate(locale, key, vars), [locale]);
}

/** A page title for `meta` exports: `export const meta = pageMeta("login.title")`. */
export function pageMeta(key: MessageKey) {
  return ({ matches }: { matches: ReadonlyArray<{ id: string; data?: unknown } | undefined> }) => {
    const root = matches.find((m) => m?.id === "root")?.data as { locale?: Locale } | undefined;
    const locale = isLocale(root?.locale) ? root.locale : DEFAULT_LOCALE;
    const title = translate(locale, key);
    const app = translate(locale, "app.name");
    return [{ title: title === app || key === "home.title" ? title : `${title} · ${app}` }];
  };
}

/**
 * A count in words (`translate` picks the plural form by `Intl.PluralRules`), with
 * `{count}` filled in. `plural(t, "crate.songCount", 3)` → "3 songs".
 */
export function plural(t: T, key: MessageKey, count: number, vars?: Vars): string {
  return t(key, { count, ...vars });
}
