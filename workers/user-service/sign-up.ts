import { holdsSuperRole, isSuperUser } from "../../shared/roles";
import { and, eq, lte } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { userEmails, users } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireAdmin, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { fields, requireFields, valid } from "../lib/validate";
import { publicOrigin } from "../lib/links";
import { clientNet } from "../lib/abuse-limits";
import { takeAttempt } from "../lib/rate-limit";
import { audit } from "../queues/audit";
import { createUser, issueSession, toOwnProfile } from "./accounts";
import { MSG } from "./messages";

/** Sign-up for people, by admins, and for bots. */
export const signUpRoutes = new Hono<AppEnv>();

// The catalogue gives one message when e-mail or password is missing; a present but
// malformed value gets the precise reason instead.
const account = z.object({
  email: fields.email,
  password: fields.password,
  nickname: fields.nickname.optional(),
});
const credentials = requireFields(["email", "password"], MSG.signUpMissing, account);
const adminRoles = z
  .array(
    z.enum(["user", "moderator", "staff", "promoter", "globalModerator", "admin", "superUser"]),
  )
  .min(1);

/** POST /users/sign-up: a new account; answers with a session so the user is signed in. */
signUpRoutes.post("/users/sign-up", valid("json", credentials), async (c) => {
  const body = c.req.valid("json");
  // Before anything is written: a refused sign-up makes no account and sends no mail.
  await takeAttempt(
    c.env,
    [{ rule: "signUpPerIp", key: clientNet(c.req.header("CF-Connecting-IP")) }],
    MSG.tooManySignUps,
  );
  const user = await createUser(c.env, { ...body, origin: publicOrigin(c) });
  await audit(c, "user.sign-up", user.uuid, { via: "email" });
  return c.json(await issueSession(c.env, user), 201);
});

/** POST /users/admin/sign-up: an admin makes an account; its e-mail needs no verification. */
signUpRoutes.post(
  "/users/admin/sign-up",
  requireAdmin,
  valid(
    "json",
    requireFields(
      ["email", "password"],
      MSG.signUpMissing,
      account.extend({ roles: adminRoles.optional() }),
    ),
  ),
  async (c) => {
    const body = c.req.valid("json");
    if (body.roles && holdsSuperRole(body.roles) && !isSuperUser(caller(c).roles))
      throw new ApiError(403, MSG.onlySuperUserMakesAdmins);
    const user = await createUser(c.env, { ...body, emailStatus: "CREATED_BY_ADMIN" });
    await audit(c, "user.admin-sign-up", caller(c).uuid, { userUuid: user.uuid }, undefined, {
      targetUuid: user.uuid,
    });
    return c.json(toOwnProfile(user), 201);
  },
);

/** How many bot accounts one person may own (issue 13: "bots per user are limited"). */
export const MAX_BOTS_PER_OWNER = 10;

/**
 * A bot's login address must be its owner's own verified login address with a `+tag`
 * (kim+dj-bot@example.com for kim@example.com). Mail to it reaches the owner's mailbox, so
 * the owner has proven it, and no one can make a bot that squats another person's address
 * (the real owner would later hear "This email is already registered") or get a verified
 * address for free. No mail is sent to it.
 */
export function isOwnersTag(botEmail: string, ownerEmail: string | null): boolean {
  if (!ownerEmail) return false;
  const [local, domain] = ownerEmail.toLowerCase().split("@");
  const m = botEmail.toLowerCase().match(/^([^@+]+)\+[^@+]{1,40}@(.+)$/);
  return !!m && m[1] === local.split("+")[0] && m[2] === domain;
}

/**
 * POST /users/sign-up-bot: a signed-in person with a verified login address makes a bot
 * account they own (see isOwnersTag). The bot logs in with that address and its password
 * and trades that session for a long-lived bot token at GET /users/bot-token. At most
 * MAX_BOTS_PER_OWNER: racing sign-ups insert, then the ones past the limit (by id, so the
 * earliest win) are removed again, so the limit holds at rest whatever the concurrency.
 */
signUpRoutes.post("/users/sign-up-bot", requireUser, valid("json", credentials), async (c) => {
  const owner = caller(c, ["user"]);
  const body = c.req.valid("json");
  if (!owner.user.emailVerified) throw new ApiError(403, MSG.botOwnerUnverified);
  if (!isOwnersTag(body.email, owner.user.email))
    throw new ApiError(400, MSG.botEmailNotOwners(owner.user.email ?? "you@example.com"));
  const d = db(c.env);
  if ((await d.$count(users, eq(users.ownerUuid, owner.uuid))) >= MAX_BOTS_PER_OWNER)
    throw new ApiError(403, MSG.tooManyBots(MAX_BOTS_PER_OWNER));
  const bot = await createUser(c.env, {
    ...body,
    roles: ["bot"],
    ownerUuid: owner.uuid,
    emailStatus: "VERIFIED",
  });
  const ahead = await d.$count(users, and(eq(users.ownerUuid, owner.uuid), lte(users.id, bot.id)));
  if (ahead > MAX_BOTS_PER_OWNER) {
    await d.batch([
      d.delete(userEmails).where(eq(userEmails.userId, bot.id)),
      d.delete(users).where(eq(users.id, bot.id)),
    ]);
    throw new ApiError(403, MSG.tooManyBots(MAX_BOTS_PER_OWNER));
  }
  await audit(c, "user.bot-sign-up", owner.uuid, { botUuid: bot.uuid });
  return c.json(toOwnProfile(bot), 201);
});

/** GET /users/bot-token: a bot account's long-lived token (type bot). */
signUpRoutes.get("/users/bot-token", requireUser, async (c) => {
  const who = caller(c);
  if (!who.roles.includes("bot")) throw new ApiError(403, MSG.notABot);
  const session = await issueSession(c.env, who.user, "bot");
  return c.json({ token: session.token, tokenType: "bot", expiresAt: session.expiresAt });
});
