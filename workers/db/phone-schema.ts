import { nowMs } from "./now";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Phones (issue 15, seed 000 "Phone validation", "Mobile auth"): the verified number of an
 * account, the one-time codes on their way to a number, recent validations, and the
 * whitelist of numbers with a fixed code (app review). Numbers are E.164 ("+447400123456"),
 * the one form lib/phones.ts lets through. `user_id` is users.id (accounts are deactivated,
 * never deleted, so no cascade is needed). Times are epoch milliseconds.
 */
const now = nowMs;

/**
 * An account's verified number. A number belongs to one account (unique `phone`) and an
 * account has one number (unique `user_id`; verifying another replaces it). `contact_hash`
 * is the number's contact-book HMAC (lib/contact-hash.ts), so friends' books match it.
 */
export const userPhones = sqliteTable(
  "user_phones",
  {
    userId: integer("user_id").primaryKey(),
    phone: text("phone").notNull(),
    contactHash: text("contact_hash"),
    verifiedAt: integer("verified_at").notNull().default(now),
  },
  (t) => [
    uniqueIndex("user_phones_phone_idx").on(t.phone),
    index("user_phones_contact_hash_idx").on(t.contactHash),
  ],
);

export const TEXT_CHANNELS = ["sms", "whatsapp"] as const;
export type TextChannel = (typeof TEXT_CHANNELS)[number];

/**
 * The live code of a number: one row per number (a new code replaces the old). Only the
 * code's SHA-256 (with the number) is kept. A verify deletes the row in the statement that
 * matches it, so a code signs in once; `attempts` counts wrong guesses at this code.
 */
export const phoneCodes = sqliteTable("phone_codes", {
  phone: text("phone").primaryKey(),
  codeHash: text("code_hash").notNull(),
  channel: text("channel").$type<TextChannel>().notNull(),
  attempts: integer("attempts").notNull().default(0),
  expiresAt: integer("expires_at").notNull(),
  createdAt: integer("created_at").notNull().default(now),
});

export const PHONE_RESULTS = ["VALID", "INVALID", "VOIP", "VALIDATION_ERROR"] as const;
export type PhoneResult = (typeof PHONE_RESULTS)[number];

/**
 * Recent validations (`/phone-validation/recents`): what was asked, by whom (null for a
 * caller who was not signed in), and the answer. Kept 30 days (the cron purges).
 */
export const phoneValidations = sqliteTable(
  "phone_validations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id"),
    /** E.164 when the input parsed; else the input itself, cut to 40 characters. */
    phone: text("phone").notNull(),
    result: text("result").$type<PhoneResult>().notNull(),
    /** libphonenumber's or the lookup service's line type (MOBILE, VOIP, FIXED_LINE...). */
    lineType: text("line_type"),
    country: text("country"),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    index("phone_validations_user_idx").on(t.userId, t.id),
    index("phone_validations_created_idx").on(t.createdAt),
  ],
);

/**
 * Whitelisted numbers: a fixed code signs them in without any message being sent, for app
 * store review and demo devices. Admins manage them (`/admin/phoneNumbers`,
 * `/mobile-auth/whitelist`).
 */
export const phoneWhitelist = sqliteTable(
  "phone_whitelist",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    phone: text("phone").notNull(),
    code: text("code").notNull(),
    note: text("note"),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("phone_whitelist_phone_idx").on(t.phone)],
);

export type UserPhoneRow = typeof userPhones.$inferSelect;
export type PhoneWhitelistRow = typeof phoneWhitelist.$inferSelect;
