import type { ContactKind } from "../db/social-schema";
import type { Env } from "../env";
import { hex } from "./crypto";
import { normalisePhone } from "./phones";
import { hasRootSecret, purposeKey } from "./purpose-keys";

/**
 * Contact-book hashes (docs/DECISIONS.md, "The contact book"). A phone or e-mail is
 * normalised, then HMAC-SHA-256'd under the "contact-book" purpose key (derived from
 * ROOT_SECRET), and only that hash is stored, both for a user's contact book and for each
 * user_emails row, so a book matches accounts without anyone's raw address being kept or
 * compared. A plain SHA-256 would not do: the space of phone numbers is small enough to
 * reverse every hash by brute force; without the server key that is impossible.
 *
 * The kind is part of the hashed text, so a phone and an e-mail never share a hash.
 */

/** E-mails: trimmed and lower-cased (the form user_emails stores). */
export const normaliseEmail = (s: string) => s.trim().toLowerCase();

/**
 * Phones are read by lib/phones.ts (libphonenumber-js, full metadata): a valid international
 * number becomes E.164; anything else (a local number without its country code, a number no
 * plan issues) is not a usable contact. A national number cannot be matched without knowing
 * the owner's country, so it is skipped rather than guessed.
 */
export { normalisePhone };

/** The hash of an already-normalised value. 503 without ROOT_SECRET (purposeKey). */
export async function contactHash(
  env: Pick<Env, "ROOT_SECRET">,
  kind: ContactKind,
  normalised: string,
): Promise<string> {
  const key = await purposeKey(env, "contactBook");
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    new TextEncoder().encode(`${kind}:${normalised}`),
  );
  return hex(mac);
}

/**
 * The hash to store on a new user_emails row, or null when no ROOT_SECRET is set: adding an
 * address must not fail for want of it; matching fills null rows later (contact-book.ts).
 */
/** The same for a verified number's user_phones row (E.164 already). */
export const phoneContactHashOrNull = (env: Pick<Env, "ROOT_SECRET">, phone: string) =>
  hasRootSecret(env) ? contactHash(env, "phone", phone) : Promise.resolve(null);

export const emailContactHashOrNull = (env: Pick<Env, "ROOT_SECRET">, email: string) =>
  hasRootSecret(env) ? contactHash(env, "email", normaliseEmail(email)) : Promise.resolve(null);
