import { and, desc, eq, isNull, max, ne, sql } from "drizzle-orm";
import { Hono } from "hono";
import { createFactory, createMiddleware } from "hono/factory";
import { z } from "zod";
import { CLIENT_EMAIL_TYPES, EMAIL_TYPES } from "../../shared/roles";
import { db } from "../db/client";
import { userEmails, type UserEmailRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireUser } from "../lib/auth";
import { emailContactHashOrNull } from "../lib/contact-hash";
import { ApiError } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { MSG } from "./messages";
import { tellAccountChanged } from "./security-mail";
import {
  canResend,
  checkVerificationCode,
  RESEND_GAP_MS,
  sendVerificationCode,
} from "./verification";
import { publicOrigin } from "../lib/links";
import { targetKey } from "../lib/abuse-limits";
import { takeAttempt, type Take } from "../lib/rate-limit";

/**
 * A signed-in account's e-mail addresses: list, add, delete, verify by code, resend the
 * code. Rows are never removed, only marked DELETED, so the history of an address stays.
 */
export const emailRoutes = new Hono<AppEnv>();

/** The row as clients see it: never the code hash or attempt counter. */
export function toEmail(row: UserEmailRow, loginEmail: string | null) {
  return {
    id: row.id,
    email: row.email,
    type: row.type,
    status: row.status,
    verifiedAt: row.verifiedAt === null ? null : new Date(row.verifiedAt).toISOString(),
    createdAt: new Date(row.createdAt).toISOString(),
    isLogin: row.email === loginEmail,
  };
}

/** The caller's live (not DELETED) row for an address; at most one exists (see POST). */
function ownRow(env: Env, userId: number, email: string) {
  return db(env)
    .select()
    .from(userEmails)
    .where(
      and(
        eq(userEmails.userId, userId),
        eq(userEmails.email, email),
        ne(userEmails.status, "DELETED"),
      ),
    )
    .orderBy(desc(userEmails.id))
    .get();
}

/** PENDING rows wait for a code; VERIFIED and CREATED_BY_ADMIN rows need none. */
const isVerified = (row: UserEmailRow) =>
  row.status === "VERIFIED" || row.status === "CREATED_BY_ADMIN";

emailRoutes.get("/users/emails", requireUser, async (c) => {
  const who = caller(c);
  const rows = await db(c.env)
    .select()
    .from(userEmails)
    .where(and(eq(userEmails.userId, who.user.id), ne(userEmails.status, "DELETED")))
    .orderBy(userEmails.id)
    .all();
  return c.json(rows.map((r) => toEmail(r, who.user.email)));
});

const addBody = z.object({
  email: fields.email,
  type: z
    .enum(EMAIL_TYPES, { error: `type must be one of ${CLIENT_EMAIL_TYPES.join(", ")}` })
    .refine((t) => (CLIENT_EMAIL_TYPES as readonly string[]).includes(t), {
      error: (i) =>
        `type ${String(i.input)} comes only from linking a ${String(i.input)} account; use one of ${CLIENT_EMAIL_TYPES.join(", ")}`,
    })
    .default("personal"),
});

/**
 * POST /users/emails: add an address; it starts PENDING_VERIFICATION and gets a code.
 * Taken means: another account logs in with it or has verified it, or the caller already
 * has it. The check and the insert are one statement, so a double submit adds one row.
 */
emailRoutes.post("/users/emails", requireUser, valid("json", addBody), async (c) => {
  const who = caller(c);
  const { email, type } = c.req.valid("json");
  const uid = who.user.id;
  // Every add may mail a code to any address: a budget per account, per address added, and
  // for mails to that address, all taken before anything is written (a 429 changes nothing).
  const mail: Take = { rule: "mailPerTarget", key: targetKey(email) };
  const attempt = await takeAttempt(
    c.env,
    [
      { rule: "addEmailPerAccount", key: who.uuid },
      { rule: "addEmailPerTarget", key: targetKey(email) },
      mail,
    ],
    (wait, rule) => (rule === "mailPerTarget" ? MSG.tooManyMails : MSG.tooManyEmailAdds)(wait),
  );
  const hash = await emailContactHashOrNull(c.env, email);
  const inserted = await db(c.env).get<{ id: number } | undefined>(sql`
    insert into user_emails (user_id, email, type, status, contact_hash)
    select ${uid}, ${email}, ${type}, 'PENDING_VERIFICATION', ${hash}
    where not exists (select 1 from users where email = ${email} and id != ${uid})
      and not exists (select 1 from user_emails where email = ${email} and status != 'DELETED' and (user_id = ${uid} or status = 'VERIFIED'))
    returning id`);
  if (!inserted) {
    await attempt.release([mail]);
    throw new ApiError(403, MSG.emailTaken);
  }
  const d = db(c.env);
  const row = (await d.select().from(userEmails).where(eq(userEmails.id, inserted.id)).get())!;
  // Adding, deleting and re-adding must not mail-bomb an inbox: if this address got a code
  // less than the resend gap ago (on any row), no mail now; the row inherits that send time,
  // so an explicit resend is allowed once the gap has passed.
  const last = await d
    .select({ at: max(userEmails.codeSentAt) })
    .from(userEmails)
    .where(and(eq(userEmails.email, email), ne(userEmails.id, row.id)))
    .get();
  if (last?.at && Date.now() - last.at < RESEND_GAP_MS) {
    await d.update(userEmails).set({ codeSentAt: last.at }).where(eq(userEmails.id, row.id)).run();
    await attempt.release([mail]);
  } else {
    await sendVerificationCode(c.env, who.user, row, publicOrigin(c));
  }
  await tellAccountChanged(c.env, who.user, "email-added", row.email);
  await audit(c, "user.email-added", who.uuid, { emailId: row.id, type });
  return c.json(toEmail(row, who.user.email), 201);
});

const idParam = z.object({ id: fields.int(1, Number.MAX_SAFE_INTEGER) });

/** DELETE /users/emails/{id}: the caller's own rows only; someone else's is "not found". */
emailRoutes.delete("/users/emails/:id", requireUser, valid("param", idParam), async (c) => {
  const who = caller(c);
  const { id } = c.req.valid("param");
  const d = db(c.env);
  const row = await d
    .select()
    .from(userEmails)
    .where(
      and(
        eq(userEmails.id, id),
        eq(userEmails.userId, who.user.id),
        ne(userEmails.status, "DELETED"),
      ),
    )
    .get();
  if (!row) throw new ApiError(404, MSG.emailNotFound);
  // Without its login e-mail an account could not log in or reset its password.
  if (row.email === who.user.email) throw new ApiError(403, MSG.loginEmailUndeletable);
  const deleted = await d
    .update(userEmails)
    .set({ status: "DELETED", codeHash: null, updatedAt: Date.now() })
    .where(and(eq(userEmails.id, id), ne(userEmails.status, "DELETED")))
    .returning()
    .get();
  if (!deleted) throw new ApiError(404, MSG.emailNotFound);
  await tellAccountChanged(c.env, who.user, "email-removed", deleted.email);
  await audit(c, "user.email-deleted", who.uuid, { emailId: id });
  return c.json(toEmail(deleted, who.user.email));
});

const verifyBody = z.object({
  email: fields.email,
  code: z
    .string({ error: "code must be a string of 6 digits" })
    .trim()
    .regex(/^\d{6}$/, "code must be 6 digits"),
});

/** The old path answers like its successor, marked deprecated (`Deprecation: true`, with a successor link), errors included. */
const markDeprecated = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  c.res.headers.set("Deprecation", "true");
  c.res.headers.set("Link", '</api/user-service/users/emails/verify>; rel="successor-version"');
});

/**
 * POST /users/emails/verify (and the deprecated /users/confirm-email): the code from the
 * mail verifies the caller's row for that address. Already verified is a success, so a
 * double submit does not show an error. Five wrong codes spend the code
 * (checkVerificationCode), after which only a new code works.
 */
const verifyHandlers = createFactory<AppEnv>().createHandlers(
  requireUser,
  valid("json", verifyBody),
  async (c) => {
    const who = caller(c);
    const { email, code } = c.req.valid("json");
    const row = await ownRow(c.env, who.user.id, email);
    if (!row) throw new ApiError(404, MSG.emailNotFound);
    if (!isVerified(row)) {
      // Wrong codes are counted per account and address over a day, across resends: a new
      // code does not re-arm the guesses (RULES.codeGuessPerAddress).
      const guess: Take = { rule: "codeGuessPerAddress", key: `${who.uuid}|${targetKey(email)}` };
      const attempt = await takeAttempt(c.env, [guess], MSG.tooManyCodeGuesses);
      if (!(await checkVerificationCode(c.env, row, code)))
        throw new ApiError(403, MSG.verifyWrongCode);
      await attempt.reset([guess]);
      await audit(c, "user.email-verified", who.uuid, { emailId: row.id });
    }
    const fresh = (await db(c.env)
      .select()
      .from(userEmails)
      .where(eq(userEmails.id, row.id))
      .get())!;
    return c.json(toEmail(fresh, who.user.email), 201);
  },
);
emailRoutes.post("/users/emails/verify", ...verifyHandlers);
emailRoutes.post("/users/confirm-email", markDeprecated, ...verifyHandlers);

/**
 * POST /users/emails/verification-email: a new code for an unverified row, at most one
 * mail per RESEND_GAP_MS. The send slot is taken with a compare-and-set on codeSentAt, so
 * two parallel resends send one mail.
 */
emailRoutes.post(
  "/users/emails/verification-email",
  requireUser,
  valid("json", z.object({ email: fields.email })),
  async (c) => {
    const who = caller(c);
    const row = await ownRow(c.env, who.user.id, c.req.valid("json").email);
    if (!row) throw new ApiError(404, MSG.emailNotFound);
    if (isVerified(row) || !canResend(row)) throw new ApiError(403, MSG.resendRefused);
    const mail: Take = { rule: "mailPerTarget", key: targetKey(row.email) };
    const attempt = await takeAttempt(c.env, [mail], MSG.tooManyMails);
    const claimed = await db(c.env)
      .update(userEmails)
      .set({ codeSentAt: Date.now() })
      .where(
        and(
          eq(userEmails.id, row.id),
          row.codeSentAt === null
            ? isNull(userEmails.codeSentAt)
            : eq(userEmails.codeSentAt, row.codeSentAt),
        ),
      )
      .returning({ id: userEmails.id })
      .get();
    if (!claimed) {
      await attempt.release();
      throw new ApiError(403, MSG.resendRefused);
    }
    await sendVerificationCode(c.env, who.user, row, publicOrigin(c));
    return c.json(toEmail(row, who.user.email), 201);
  },
);
