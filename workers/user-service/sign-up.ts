import { holdsSuperRole, isSuperUser } from "../../shared/roles";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../env";
import { caller, requireAdmin, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { fields, requireFields, valid } from "../lib/validate";
import { publicOrigin } from "../lib/links";
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
  const user = await createUser(c.env, { ...body, origin: publicOrigin(c) });
  await audit(c.env, "user.sign-up", user.uuid, { via: "email" });
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
    await audit(c.env, "user.admin-sign-up", caller(c).uuid, { userUuid: user.uuid });
    return c.json(toOwnProfile(user), 201);
  },
);

/**
 * POST /users/sign-up-bot: a signed-in person makes a bot account they own. The bot logs
 * in with its own e-mail and password and trades that session for a long-lived bot token
 * at GET /users/bot-token.
 */
signUpRoutes.post("/users/sign-up-bot", requireUser, valid("json", credentials), async (c) => {
  const owner = caller(c, ["user"]);
  const body = c.req.valid("json");
  const bot = await createUser(c.env, {
    ...body,
    roles: ["bot"],
    ownerUuid: owner.uuid,
    emailStatus: "VERIFIED",
  });
  await audit(c.env, "user.bot-sign-up", owner.uuid, { botUuid: bot.uuid });
  return c.json(toOwnProfile(bot), 201);
});

/** GET /users/bot-token: a bot account's long-lived token (type bot). */
signUpRoutes.get("/users/bot-token", requireUser, async (c) => {
  const who = caller(c);
  if (!who.roles.includes("bot")) throw new ApiError(403, MSG.notABot);
  const session = await issueSession(c.env, who.user, "bot");
  return c.json({ token: session.token, tokenType: "bot", expiresAt: session.expiresAt });
});
