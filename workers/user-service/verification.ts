import { and, eq, gt, isNotNull, lt, sql } from "drizzle-orm";
import { db } from "../db/client";
import { userEmails, users, type UserEmailRow, type UserRow } from "../db/schema";
import type { Env } from "../env";
import { secretsEqual, sha256, sixDigitCode } from "../lib/crypto";
import { notify } from "../queues/notifications";

/**
 * E-mail verification by six-digit code.
 * - A code is kept only as its SHA-256; it is good for CODE_TTL_MS.
 * - At most one mail per address every RESEND_GAP_MS (60 s): the spec names a minimum gap
 *   but not its value; a minute stops mail-bombing and is short enough for a typo'd inbox.
 * - Five wrong guesses spend the code (a new one must be sent), so six digits cannot be
 *   brute-forced. A new code resets only this per-code count: the verify route also limits
 *   wrong guesses per account and address over a day (RULES.codeGuessPerAddress), so
 *   resending cannot re-arm the guesses.
 */
export const RESEND_GAP_MS = 60_000;
export const CODE_TTL_MS = 24 * 3600_000;
export const MAX_CODE_ATTEMPTS = 5;

/** E-mails a fresh code for `row`; `origin` is where the link in the mail points (publicOrigin). */
export async function sendVerificationCode(
  env: Env,
  user: Pick<UserRow, "nickname">,
  row: UserEmailRow,
  origin: string,
) {
  const code = sixDigitCode();
  await db(env)
    .update(userEmails)
    .set({
      codeHash: await sha256(code),
      codeSentAt: Date.now(),
      codeAttempts: 0,
      updatedAt: Date.now(),
    })
    .where(eq(userEmails.id, row.id))
    .run();
  const link = `${origin}/verify-email?email=${encodeURIComponent(row.email)}`;
  await notify(env, {
    channel: "email",
    to: row.email,
    subject: `Your Hangout verification code: ${code}`,
    text: `Hi ${user.nickname},\n\nYour verification code is ${code}. Enter it at ${link} within 24 hours.\n\nIf you did not sign up, ignore this e-mail.`,
  });
}

/** Whether a resend is allowed now (not verified, and the gap since the last mail passed). */
export function canResend(row: UserEmailRow, now = Date.now()) {
  return (
    row.status !== "VERIFIED" && (row.codeSentAt === null || now - row.codeSentAt >= RESEND_GAP_MS)
  );
}

/**
 * Checks `code` against the row. Each check first spends one attempt in a single atomic
 * update, so parallel guesses cannot get past the limit. Right: the address is VERIFIED
 * (and the account's login e-mail verified if it is that one). Returns whether it matched.
 */
export async function checkVerificationCode(
  env: Env,
  row: UserEmailRow,
  code: string,
): Promise<boolean> {
  const d = db(env);
  const spent = await d
    .update(userEmails)
    .set({ codeAttempts: sql`${userEmails.codeAttempts} + 1` })
    .where(
      and(
        eq(userEmails.id, row.id),
        lt(userEmails.codeAttempts, MAX_CODE_ATTEMPTS),
        isNotNull(userEmails.codeHash),
        gt(userEmails.codeSentAt, Date.now() - CODE_TTL_MS),
      ),
    )
    .returning({ codeHash: userEmails.codeHash })
    .get();
  // The stored hash against the guess's, in constant time: equal strings, no early exit.
  if (!spent?.codeHash || !(await secretsEqual(await sha256(code), spent.codeHash))) return false;
  await d
    .update(userEmails)
    .set({ status: "VERIFIED", verifiedAt: Date.now(), codeHash: null, updatedAt: Date.now() })
    .where(eq(userEmails.id, row.id))
    .run();
  const user = await d.select().from(users).where(eq(users.id, row.userId)).get();
  if (user?.email === row.email)
    await d
      .update(users)
      .set({ emailVerified: true, updatedAt: Date.now() })
      .where(eq(users.id, user.id))
      .run();
  return true;
}
