import { sql } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { MODERATOR_ROLES, USER_CAPABILITIES, type UserCapability } from "../../shared/roles";
import { users } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireRole } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { findUserOr404, hasCapability, toModeratedProfile } from "./accounts";
import { MSG } from "./messages";
import { moderate, refuseIf } from "./moderation-log";
import { refusalToAct } from "./moderation-rules";

/**
 * Capabilities (uploadMusic, promoteRoom): a moderator-type call grants or removes one
 * (seed 000, section 6). Granting one the user already has is 403 with the catalogue's
 * "This user has already this role."; removing one they lack is a 404. Nobody changes their
 * own: a moderator granting themselves uploadMusic is refused (403), another must do it.
 * The platform hierarchy (moderation-rules.ts) applies: only on an account the caller
 * outranks. Each change is a moderation action (addCapability, removeCapability).
 */
export const capabilityRoutes = new Hono<AppEnv>();

const target = z.object({
  userId: z.string().min(1).max(64),
  capability: z.enum(USER_CAPABILITIES, {
    error: `capability must be one of ${USER_CAPABILITIES.join(", ")}`,
  }),
});

// Capabilities live in a JSON column. Each change is one UPDATE that computes the new list
// from the stored one, so two moderators (or a moderator and a voucher) changing one account
// at once both land; a read-then-write lost one of them.
async function change(
  c: Context<AppEnv>,
  userId: string,
  capability: UserCapability,
  add: boolean,
) {
  const u = await findUserOr404(c.env, userId);
  const actor = caller(c);
  if (u.uuid === actor.uuid) throw new ApiError(403, MSG.ownCapabilities);
  refuseIf(refusalToAct(actor, u));
  const updated = await moderate(
    c,
    u,
    {
      actionType: add ? "addCapability" : "removeCapability",
      actorUuid: actor.uuid,
      details: { capability },
    },
    add
      ? {
          set: { capabilities: sql`json_insert(${users.capabilities}, '$[#]', ${capability})` },
          when: sql`not ${hasCapability(capability)}`,
        }
      : {
          set: {
            capabilities: sql`(select json_group_array(value) from json_each(${users.capabilities}) where value != ${capability})`,
          },
          when: hasCapability(capability),
        },
  );
  if (!updated)
    throw add ? new ApiError(403, MSG.capabilityExists) : new ApiError(404, MSG.capabilityNotHeld);
  await audit(
    c,
    add ? "user.capability-added" : "user.capability-removed",
    actor.uuid,
    { userUuid: u.uuid, capability },
    undefined,
    { targetUuid: u.uuid },
  );
  return c.json(toModeratedProfile(updated));
}

capabilityRoutes.put(
  "/users/:userId/capabilities/:capability",
  requireRole(...MODERATOR_ROLES),
  valid("param", target),
  (c) => change(c, c.req.valid("param").userId, c.req.valid("param").capability, true),
);

capabilityRoutes.delete(
  "/users/:userId/capabilities/:capability",
  requireRole(...MODERATOR_ROLES),
  valid("param", target),
  (c) => change(c, c.req.valid("param").userId, c.req.valid("param").capability, false),
);
