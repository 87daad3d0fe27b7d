import { holdsSuperRole, isSuperUser } from "../../shared/roles";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { oneTimeTokens, userEmails, users, type UserRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireAdmin, requireUser } from "../lib/auth";
import { randomToken, sha256 } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { hashPassword, verifyPassword } from "../lib/password";
import { RULES, targetKey } from "../lib/abuse-limits";
import { takeAttempt, type Take } from "../lib/rate-limit";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { notify } from "../queues/notifications";
import { findUserOr404, issueSession, toOwnProfile } from "./accounts";
import { tellAccountChanged } from "./security-mail";
import { MSG } from "./messages";
import { publicOrigin } from "../lib/links";
import { tellUserRooms } from "../room-service/user-rooms";

/** Change, forget, reset and set a password; an admin can set anyone's. */
export const passwordRoutes = new Hono<AppEnv>();

export const RESET_TOKEN_TTL_MS = 3600_000;
/** At most one reset mail per account per minute (same gap as verification codes). */
export const RESET_MAIL_GAP_MS = 60_000;
/**
 * Wrong current passwords on change-password, per account: a stolen session must not be
 * able to guess the password (and so take the account over) at full speed.
 */
export const CHANGE_PASSWORD_LIMIT = RULES.changePassword;

/**
 * Stores a new password and ends the account's sessions (sessionVersion + 1: tokens signed
 * before stop working) and its outstanding magic links and reset links, in one D1 batch.
 * `verifyLogin` also marks the login e-mail verified (a reset proved the inbox).
 */
async function replacePassword(
  env: Env,
  user: UserRow,
  password: string,
  verifyLogin = false,
): Promise<UserRow> {
  const d = db(env);
  const now = Date.now();
  const setPassword = d
    .update(users)
    .set({
      passwordHash: await hashPassword(password),
      sessionVersion: sql`${users.sessionVersion} + 1`,
      updatedAt: now,
      ...(verifyLogin ? { emailVerified: true } : {}),
    })
    .where(eq(users.id, user.id))
    .returning();
  const endLinks = d
    .update(oneTimeTokens)
    .set({ usedAt: now })
    .where(and(eq(oneTimeTokens.userId, user.id), isNull(oneTimeTokens.usedAt)));
  const verifyLoginEmail = d
    .update(userEmails)
    .set({ status: "VERIFIED", verifiedAt: now, codeHash: null, updatedAt: now })
    .where(
      and(
        eq(userEmails.userId, user.id),
        eq(userEmails.email, user.email ?? ""),
        eq(userEmails.status, "PENDING_VERIFICATION"),
      ),
    );
  const [updated] = verifyLogin
    ? await d.batch([setPassword, endLinks, verifyLoginEmail])
    : await d.batch([setPassword, endLinks]);
  // The ended sessions' sockets close in every room now, not when their tokens expire.
  await tellUserRooms(env, user.uuid);
  await tellAccountChanged(env, user, "password");
  return updated[0];
}

const changeBody = z.object({
  password: z
    .string({ error: "password must be a string" })
    .min(1, "password should not be empty")
    .max(128, "password must be at most 128 characters"),
  newPassword: z
    .string({ error: "newPassword must be a string" })
    .min(8, "newPassword must be at least 8 characters")
    .max(128, "newPassword must be at most 128 characters"),
});

/**
 * POST /users/change-password: needs a verified login e-mail and the current password
 * (one message for both, as the catalogue has it). Other sessions end; the caller gets a
 * fresh session in the answer so they stay signed in.
 */
passwordRoutes.post("/users/change-password", requireUser, valid("json", changeBody), async (c) => {
  const who = caller(c);
  const { password, newPassword } = c.req.valid("json");
  const takes: Take[] = [{ rule: "changePassword", key: who.uuid }];
  // Counted before the check (a wrong password keeps it), so parallel guesses share the limit.
  const attempt = await takeAttempt(c.env, takes, MSG.tooManyPasswordAttempts);
  const rightPassword = await verifyPassword(password, who.user.passwordHash);
  if (rightPassword) await attempt.reset(takes);
  if (!rightPassword || !who.user.emailVerified) throw new ApiError(401, MSG.changePasswordRefused);
  if (newPassword === password) throw new ApiError(400, MSG.samePassword);
  const updated = await replacePassword(c.env, who.user, newPassword);
  await audit(c, "user.password-changed", who.uuid);
  return c.json(await issueSession(c.env, updated, who.type === "bot" ? "bot" : "user"), 201);
});

/**
 * POST /users/forgot-password: always the same answer, so it never tells whether an
 * account exists. For a live account: a one-time reset token (only its hash is kept, good
 * for an hour) mailed as a link. The "one mail per minute" check and the insert are one
 * statement, so parallel requests send one mail; over the limit nothing is said.
 */
passwordRoutes.post(
  "/users/forgot-password",
  valid("json", z.object({ email: fields.email })),
  async (c) => {
    const { email } = c.req.valid("json");
    // Counted for every address, known or not, so a 429 never tells whether an account
    // exists. It never locks the owner out: every mail it allows goes to the owner, and each
    // link stays good for an hour, so the owner always holds a working one.
    await takeAttempt(c.env, [{ rule: "mailPerTarget", key: targetKey(email) }], MSG.tooManyMails);
    const d = db(c.env);
    const user = await d.select().from(users).where(eq(users.email, email)).get();
    if (user && !user.deactivated) {
      const token = randomToken();
      const now = Date.now();
      const inserted = await d.get<{ token_hash: string } | undefined>(sql`
      insert into one_time_tokens (token_hash, kind, user_id, expires_at, created_at)
      select ${await sha256(token)}, 'password-reset', ${user.id}, ${now + RESET_TOKEN_TTL_MS}, ${now}
      where not exists (select 1 from one_time_tokens where user_id = ${user.id} and kind = 'password-reset' and created_at > ${now - RESET_MAIL_GAP_MS})
      returning token_hash`);
      if (inserted) {
        const link = `${publicOrigin(c)}/reset-password?token=${encodeURIComponent(token)}`;
        await notify(c.env, {
          channel: "email",
          to: email,
          subject: "Reset your Hangout password",
          text: `Hi ${user.nickname},\n\nSomeone (hopefully you) asked to reset your Hangout password. Open this link within one hour to choose a new one:\n\n${link}\n\nIf it was not you, ignore this e-mail; your password stays the same.`,
        });
        await audit(c, "user.password-reset-requested", user.uuid);
      }
    }
    return c.json({ message: MSG.forgotPasswordSent }, 201);
  },
);

const resetBody = z.object({
  token: z.string({ error: "token must be a string" }).min(1, "token should not be empty").max(200),
  password: fields.password,
});

/**
 * POST /users/reset-password: trades a reset token for a new password. The token is spent
 * with a conditional update (of two racing resets one wins), and only after the password
 * passed its checks, so "same as before" leaves the link usable.
 */
passwordRoutes.post("/users/reset-password", valid("json", resetBody), async (c) => {
  const { token, password } = c.req.valid("json");
  const hash = await sha256(token);
  const d = db(c.env);
  const row = await d
    .select()
    .from(oneTimeTokens)
    .where(and(eq(oneTimeTokens.tokenHash, hash), eq(oneTimeTokens.kind, "password-reset")))
    .get();
  if (!row || row.usedAt !== null || row.expiresAt <= Date.now())
    throw new ApiError(403, MSG.resetRefused);
  const user = await d.select().from(users).where(eq(users.id, row.userId)).get();
  if (!user || user.deactivated) throw new ApiError(403, MSG.resetRefused);
  if (await verifyPassword(password, user.passwordHash)) throw new ApiError(400, MSG.samePassword);
  const spent = await d
    .update(oneTimeTokens)
    .set({ usedAt: Date.now() })
    .where(
      and(
        eq(oneTimeTokens.tokenHash, hash),
        isNull(oneTimeTokens.usedAt),
        gt(oneTimeTokens.expiresAt, Date.now()),
      ),
    )
    .returning({ userId: oneTimeTokens.userId })
    .get();
  if (!spent) throw new ApiError(403, MSG.resetRefused);
  await replacePassword(c.env, user, password, true);
  await audit(c, "user.password-reset", user.uuid);
  return c.json({ message: MSG.passwordReset }, 201);
});

/**
 * POST /users/set-password: the first password of an account made without one. The
 * update is conditional on there still being none, so it cannot overwrite a password.
 */
passwordRoutes.post(
  "/users/set-password",
  requireUser,
  valid("json", z.object({ password: fields.password })),
  async (c) => {
    const who = caller(c);
    if (who.user.passwordHash !== null) throw new ApiError(403, MSG.passwordAlreadySet);
    const updated = await db(c.env)
      .update(users)
      .set({
        passwordHash: await hashPassword(c.req.valid("json").password),
        updatedAt: Date.now(),
      })
      .where(and(eq(users.id, who.user.id), isNull(users.passwordHash)))
      .returning()
      .get();
    if (!updated) throw new ApiError(403, MSG.passwordAlreadySet);
    await audit(c, "user.password-set", who.uuid);
    return c.json(toOwnProfile(updated), 201);
  },
);

const adminBody = z.object({
  userId: z.union(
    [
      z.number().int().positive(),
      z
        .string()
        .trim()
        .regex(/^(\d+|[0-9a-fA-F-]{36})$/),
    ],
    { error: "userId must be a user id (number) or uuid" },
  ),
  password: fields.password,
});

/** POST /users/change-password-admin: an admin sets a user's password; their sessions end. */
passwordRoutes.post(
  "/users/change-password-admin",
  requireAdmin,
  valid("json", adminBody),
  async (c) => {
    const { userId, password } = c.req.valid("json");
    const target = await findUserOr404(c.env, String(userId));
    // Resetting an admin's password is taking over their account: a superUser's act only.
    if (holdsSuperRole(target.roles) && !isSuperUser(caller(c).roles))
      throw new ApiError(403, MSG.onlySuperUserResetsAdmins);
    const updated = await replacePassword(c.env, target, password);
    await audit(
      c,
      "user.password-changed-by-admin",
      caller(c).uuid,
      { userUuid: target.uuid },
      undefined,
      { targetUuid: target.uuid },
    );
    return c.json(toOwnProfile(updated), 201);
  },
);
