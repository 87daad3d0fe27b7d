import type { NumberType } from "libphonenumber-js/max";
import { lazyModule } from "./lazy-module";

/**
 * Phone numbers, read the one way everything here reads them: libphonenumber-js with its
 * full ("max") metadata, which knows each country's number ranges and their line types.
 * What comes out is E.164 ("+447400123456") or nothing.
 *
 * Only international input is read: a number without its country code cannot be placed
 * without guessing the caller's country, so "07400 123456" is not a number here. Spaces,
 * dashes, dots and brackets are ignored, and a leading "00" counts as "+".
 *
 * The library and its metadata (the biggest part) are loaded on first use
 * (lib/lazy-module.ts), and only for input that passes the cheap checks below, so a Worker
 * that never reads a number, or only reads junk, never evaluates them.
 */
export interface ParsedPhone {
  /** E.164. */
  phone: string;
  /** ISO 3166 alpha-2, when the number belongs to one country's plan. */
  country: string | null;
  /** The country calling code without "+" ("44"). */
  callingCode: string;
  /** libphonenumber's line type; undefined when its metadata cannot tell. */
  lineType: NumberType;
  valid: boolean;
}

/** The longest input read at all: E.164 is at most 16 characters; formatting adds a few. */
export const MAX_PHONE_INPUT = 40;

/** Digits and the formatting people write around them; no letters (no "ext.", no "x12"). */
const WRITTEN = /^[+\d\s\-.()/]+$/;

const loadLibphonenumber = lazyModule(() => import("libphonenumber-js/max"));

export async function parsePhone(input: string): Promise<ParsedPhone | null> {
  if (input.length > MAX_PHONE_INPUT || !WRITTEN.test(input)) return null;
  const compact = input.trim().replace(/^00/, "+");
  if (!compact.startsWith("+")) return null;
  const { parsePhoneNumberFromString } = await loadLibphonenumber();
  const parsed = parsePhoneNumberFromString(compact);
  if (!parsed) return null;
  const valid = parsed.isValid();
  return {
    phone: parsed.number,
    country: parsed.country ?? null,
    callingCode: parsed.countryCallingCode,
    lineType: valid ? parsed.getType() : undefined,
    valid,
  };
}

/** A valid number in E.164, or null: the contact book's reading (lib/contact-hash.ts). */
export async function normalisePhone(input: string): Promise<string | null> {
  const p = await parsePhone(input);
  return p?.valid ? p.phone : null;
}

/**
 * The range a number is in, for the toll-fraud limit (RULES.textCodePerPrefix): its calling
 * code and the first three digits after it ("+44 740"). Pumping attacks text a block of
 * premium or hijacked numbers in one range, from many networks and numbers, so neither the
 * per-number nor the per-network limit sees them; a burst to one range does.
 */
export const phonePrefix = (p: Pick<ParsedPhone, "phone" | "callingCode">) =>
  `+${p.callingCode} ${p.phone.slice(1 + p.callingCode.length, 4 + p.callingCode.length)}`;

/** "+44 •••• ••3456": a number as the pages show it to anyone but its owner. */
export const maskPhone = (phone: string) =>
  phone.length <= 6
    ? phone
    : `${phone.slice(0, 3)}${"•".repeat(phone.length - 7)}${phone.slice(-4)}`;
