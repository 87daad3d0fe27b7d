import { DEFAULT_COLOR } from "../../shared/roles";
import type { Locale } from "~/i18n";

/** A user's colour as `#RRGGBB` (stored without the `#`), the default 562DF9 otherwise. */
export function userColor(color: string | null | undefined): string {
  const hex = (color ?? "").trim().replace(/^#/, "");
  return /^[0-9a-f]{6}$/i.test(hex) ? `#${hex.toUpperCase()}` : `#${DEFAULT_COLOR}`;
}

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
export function textOn(hex: string): string {
  const c = [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  const l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? "#0B0A12" : "#FFFFFF";
}

/** Epoch milliseconds, an ISO string or a Date, as a Date (null when unreadable). */
export function toDate(v: unknown): Date | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v;
  if (typeof v === "number" || (typeof v === "string" && /^\d+$/.test(v))) {
    const n = Number(v);
    // Seconds or milliseconds: anything before 2001 in ms is taken as seconds.
    const d = new Date(n < 1e12 ? n * 1000 : n);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  if (typeof v === "string" && v) {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}

const tag = (locale: Locale) => (locale === "es" ? "es-ES" : "en-GB");

// UTC on both server and browser, so the first paint and hydration print the same text.
export function formatDate(v: unknown, locale: Locale): string {
  const d = toDate(v);
  return d
    ? new Intl.DateTimeFormat(tag(locale), { dateStyle: "medium", timeZone: "UTC" }).format(d)
    : "";
}

export function formatDateTime(v: unknown, locale: Locale): string {
  const d = toDate(v);
  return d
    ? `${new Intl.DateTimeFormat(tag(locale), { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" }).format(d)} UTC`
    : "";
}

/** "Ana López", or the nickname when no name is set. */
export const fullName = (u: { firstName?: string | null; lastName?: string | null }) =>
  [u.firstName, u.lastName].filter(Boolean).join(" ");
