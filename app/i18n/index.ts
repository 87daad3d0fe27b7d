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

/** The text for `key` in `locale`, with `{name}` placeholders filled from `vars`. */
export function translate(locale: Locale, key: MessageKey, vars?: Vars): string {
  const text = dictionaries[locale][key] ?? en[key] ?? key;
  return vars
    ? text.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m))
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
 * A count in words: `key.zero` / `key.one` for 0 / 1 and the dictionary has it, else `key`,
 * with `{count}` filled in. `plural(t, "crate.songCount", 3)` → "3 songs".
 */
export function plural(t: T, key: MessageKey, count: number, vars?: Vars): string {
  const special = count === 0 ? `${key}.zero` : count === 1 ? `${key}.one` : null;
  return special && hasKey(special) ? t(special, { count, ...vars }) : t(key, { count, ...vars });
}
