import { and, count, eq, inArray, isNull, max, min, ne, sql } from "drizzle-orm";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { batchOf, db } from "../db/client";
import { userContactHashes, userEmails, users, type ContactKind } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireAdmin, requireUser } from "../lib/auth";
import { contactHash, normaliseEmail, normalisePhone } from "../lib/contact-hash";
import { ApiError } from "../lib/errors";
import { valid } from "../lib/validate";
import { findAnyUserOr404, toOtherProfile } from "../user-service/accounts";
import { SOCIAL_MSG } from "./messages";
import { iso, paged, peoplePage, uuidParam, visibleTo, type Page } from "./people";

/**
 * The contact book (docs/DECISIONS.md, "The contact book"). The client sends phones and
 * e-mails; we keep only their keyed hashes (lib/contact-hash.ts), never the raw book.
 * - POST adds to the book (a union: what is already there stays, duplicates are ignored);
 *   DELETE empties it. A book that changed on the phone is re-sent as DELETE then POST.
 * - At most MAX_PER_CALL contacts a call and MAX_PER_USER stored, checked in the insert
 *   itself, so concurrent posts cannot pass the cap together.
 * - A value that cannot be normalised (a phone without its +country code, a malformed
 *   e-mail) is skipped and counted, not a 400: real address books hold such entries.
 * - Matching is against users' VERIFIED e-mails (user_emails.contact_hash) and verified
 *   phones (user_phones.contact_hash, written by mobile sign-in: user-service/mobile-auth.ts).
 */
export const contactBookRoutes = new Hono<AppEnv>();

export const MAX_PER_CALL = 1000;
export const MAX_PER_USER = 5000;
/** How many old user_emails rows without a hash one matching call fills in. */
const BACKFILL_BATCH = 100;

const contact = z
  .strictObject({
    phone: z
      .string({ error: "phone must be a string" })
      .max(40, "phone must be at most 40 characters")
      .optional(),
    email: z
      .string({ error: "email must be a string" })
      .max(254, "email must be at most 254 characters")
      .optional(),
  })
  .refine((c) => (c.phone === undefined) !== (c.email === undefined), SOCIAL_MSG.contactOneOf);
type Contact = z.output<typeof contact>;

const bookBody = z.strictObject({
  contacts: z
    .array(contact, { error: "contacts must be a list of { phone } or { email }" })
    .min(1, "contacts must list at least one contact")
    .max(MAX_PER_CALL, `contacts must list at most ${MAX_PER_CALL} contacts`),
});

const isEmail = (s: string) => z.email().safeParse(s).success;

/** The distinct hashes of the usable contacts, and how many were not usable. */
async function hashesOf(env: Env, contacts: Contact[]) {
  // Normalised values, de-duplicated per kind: `${kind}\n${value}` -> [kind, value].
  const normal = new Map<string, [ContactKind, string]>();
  let skipped = 0;
  for (const c of contacts) {
    const kind: ContactKind = c.phone !== undefined ? "phone" : "email";
    const value = kind === "phone" ? await normalisePhone(c.phone!) : normaliseEmail(c.email!);
    if (!value || (kind === "email" && !isEmail(value))) skipped++;
    else normal.set(`${kind}\n${value}`, [kind, value]);
  }
  const entries = await Promise.all(
    [...normal.values()].map(async ([kind, value]) => ({
      kind,
      hash: await contactHash(env, kind, value),
    })),
  );
  return { entries, skipped };
}

/**
 * Adds `contacts` to the caller's book in one statement (the list travels as one JSON
 * parameter): the cap counts stored and new hashes together, so the whole call is stored or
 * none of it. 409 when it would pass MAX_PER_USER.
 */
async function addContacts(env: Env, me: string, contacts: Contact[]) {
  const { entries, skipped } = await hashesOf(env, contacts);
  const before = await bookCount(env, me);
  if (entries.length) {
    const r = await env.DB.prepare(
      `insert or ignore into user_contact_hashes (user_uuid, kind, hash)
       select ?1, j.value ->> 'kind', j.value ->> 'hash' from json_each(?2) j
       where (select count(*) from (
         select hash from user_contact_hashes where user_uuid = ?1
         union select j2.value ->> 'hash' from json_each(?2) j2)) <= ?3`,
    )
      .bind(me, JSON.stringify(entries), MAX_PER_USER)
      .run();
    if ((r.meta.changes ?? 0) === 0 && (await missingCount(env, me, entries)) > 0)
      throw new ApiError(409, SOCIAL_MSG.contactBookFull(MAX_PER_USER));
  }
  const total = await bookCount(env, me);
  return { received: contacts.length, skipped, added: total - before, total };
}

/** How many of `entries` are not in the book (a refused insert leaves them all missing). */
async function missingCount(env: Env, me: string, entries: { hash: string }[]) {
  const r = await env.DB.prepare(
    `select count(*) as n from json_each(?2) j
     where not exists (select 1 from user_contact_hashes where user_uuid = ?1 and hash = j.value ->> 'hash')`,
  )
    .bind(me, JSON.stringify(entries))
    .first<{ n: number }>();
  return r?.n ?? 0;
}

const bookCount = async (env: Env, uuid: string) =>
  (
    await db(env)
      .select({ n: count() })
      .from(userContactHashes)
      .where(eq(userContactHashes.userUuid, uuid))
      .get()
  )?.n ?? 0;

// 1,000 contacts of at most ~300 bytes each; anything larger is not a contact book.
const bookLimit = bodyLimit({
  maxSize: 512 * 1024,
  onError: () => {
    throw new ApiError(413, `contacts must list at most ${MAX_PER_CALL} contacts`);
  },
});

contactBookRoutes.post(
  "/user-book-contact",
  requireUser,
  bookLimit,
  valid("json", bookBody),
  async (c) => c.json(await addContacts(c.env, caller(c).uuid, c.req.valid("json").contacts), 201),
);

contactBookRoutes.post(
  "/user-book-contact/single",
  requireUser,
  valid("json", contact),
  async (c) => c.json(await addContacts(c.env, caller(c).uuid, [c.req.valid("json")]), 201),
);

/** What is stored of a book: counts and times. The hashes themselves say nothing to anyone. */
async function bookSummary(env: Env, uuid: string) {
  const rows = await db(env)
    .select({
      kind: userContactHashes.kind,
      n: count(),
      first: min(userContactHashes.createdAt),
      last: max(userContactHashes.createdAt),
    })
    .from(userContactHashes)
    .where(eq(userContactHashes.userUuid, uuid))
    .groupBy(userContactHashes.kind)
    .all();
  const of = (k: ContactKind) => rows.find((r) => r.kind === k)?.n ?? 0;
  const firsts = rows.map((r) => r.first ?? 0);
  const lasts = rows.map((r) => r.last ?? 0);
  return {
    total: of("phone") + of("email"),
    phones: of("phone"),
    emails: of("email"),
    firstAddedAt: firsts.length ? iso(Math.min(...firsts)) : null,
    lastAddedAt: lasts.length ? iso(Math.max(...lasts)) : null,
    stored: "keyed hashes only (HMAC-SHA-256 of each normalised phone or e-mail); no raw contacts",
  };
}

contactBookRoutes.get("/user-book-contact", requireUser, async (c) =>
  c.json(await bookSummary(c.env, caller(c).uuid)),
);

contactBookRoutes.delete("/user-book-contact", requireUser, async (c) => {
  const r = await db(c.env)
    .delete(userContactHashes)
    .where(eq(userContactHashes.userUuid, caller(c).uuid))
    .run();
  return c.json({ deleted: r.meta.changes ?? 0, total: 0 });
});

contactBookRoutes.get(
  "/user-book-contact/admin/:id",
  requireAdmin,
  valid("param", uuidParam),
  async (c) => {
    const user = await findAnyUserOr404(c.env, c.req.valid("param").id);
    return c.json({ uuid: user.uuid, ...(await bookSummary(c.env, user.uuid)) });
  },
);

/**
 * Fills contact_hash on up to BACKFILL_BATCH verified rows that predate it (added before
 * migration 0014, or while ROOT_SECRET was unset). Bounded per call, so the cost of old rows
 * is spread over many matchings instead of one long request.
 */
async function backfillEmailHashes(env: Env) {
  const d = db(env);
  const rows = await d
    .select({ id: userEmails.id, email: userEmails.email })
    .from(userEmails)
    .where(
      and(
        isNull(userEmails.contactHash),
        inArray(userEmails.status, ["VERIFIED", "CREATED_BY_ADMIN"]),
      ),
    )
    .limit(BACKFILL_BATCH)
    .all();
  if (!rows.length) return;
  const hashes = await Promise.all(
    rows.map((r) => contactHash(env, "email", normaliseEmail(r.email))),
  );
  await d.batch(
    batchOf(
      rows.map((r, i) =>
        d.update(userEmails).set({ contactHash: hashes[i] }).where(eq(userEmails.id, r.id)),
      ),
    ),
  );
}

/**
 * The ids of accounts whose verified contact is in `me`'s book: a verified e-mail (proved by
 * its code, or made by an admin, which needs no proof: users.emailVerified is true for both),
 * or the account's verified number (every user_phones row is verified: a number is stored only
 * when its code was).
 */
const matchedUserIds = (me: string) =>
  sql`select e.user_id from user_contact_hashes h
      join user_emails e on e.contact_hash = h.hash
        and e.status in ('VERIFIED', 'CREATED_BY_ADMIN')
      where h.user_uuid = ${me} and h.kind = 'email'
      union
      select p.user_id from user_contact_hashes h
      join user_phones p on p.contact_hash = h.hash
      where h.user_uuid = ${me} and h.kind = 'phone'`;

/** Matches as public profiles, by nickname; never the matched address. */
async function matches(env: Env, me: string, page: Page, notFriends: boolean) {
  await backfillEmailHashes(env);
  const where = and(
    sql`${users.id} in (${matchedUserIds(me)})`,
    ne(users.uuid, me),
    visibleTo(me, users.uuid),
    notFriends
      ? sql`not exists (select 1 from friends f where (f.user_a = ${me} and f.user_b = ${users.uuid}) or (f.user_a = ${users.uuid} and f.user_b = ${me}))`
      : undefined,
  );
  const d = db(env);
  const [rows, [{ total }]] = await d.batch([
    d
      .select()
      .from(users)
      .where(where)
      .orderBy(users.nickname, users.id)
      .limit(page.take)
      .offset(page.skip),
    d.select({ total: count() }).from(users).where(where),
  ]);
  return paged(rows.map(toOtherProfile), total, page);
}

contactBookRoutes.get(
  "/user-book-contact/matching-contacts",
  requireUser,
  valid("query", peoplePage),
  async (c) => c.json(await matches(c.env, caller(c).uuid, c.req.valid("query"), false)),
);

/** POST (as the spec has it): matches who are not yet my friends, blocked ones never shown. */
contactBookRoutes.post(
  "/user-book-contact/matching-contacts-friends",
  requireUser,
  valid("query", peoplePage),
  async (c) => c.json(await matches(c.env, caller(c).uuid, c.req.valid("query"), true)),
);
