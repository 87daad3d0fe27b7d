import { Hono } from "hono";
import { z } from "zod";
import { MODERATOR_ROLES, USER_CAPABILITIES } from "../../shared/roles";
import type { AppEnv } from "../env";
import { caller, requireRole } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { addCapability, findUserOr404, removeCapability, toOwnProfile } from "./accounts";
import { MSG } from "./messages";

/**
 * Capabilities (uploadMusic, promoteRoom): a moderator-type call grants or removes one
 * (seed 000, section 6). Granting one the user already has is 403 with the catalogue's
 * "This user has already this role."; removing one they lack is a 404. Nobody changes their
 * own: a moderator granting themselves uploadMusic is refused (403), another must do it.
 */
export const capabilityRoutes = new Hono<AppEnv>();

const target = z.object({
  userId: z.string().min(1).max(64),
  capability: z.enum(USER_CAPABILITIES, {
    error: `capability must be one of ${USER_CAPABILITIES.join(", ")}`,
  }),
});

capabilityRoutes.put(
  "/users/:userId/capabilities/:capability",
  requireRole(...MODERATOR_ROLES),
  valid("param", target),
  async (c) => {
    const { userId, capability } = c.req.valid("param");
    const u = await findUserOr404(c.env, userId);
    if (u.uuid === caller(c).uuid) throw new ApiError(403, MSG.ownCapabilities);
    const updated = await addCapability(c.env, u.id, capability);
    if (!updated) throw new ApiError(403, MSG.capabilityExists);
    await audit(c.env, "user.capability-added", caller(c).uuid, { userUuid: u.uuid, capability });
    return c.json(toOwnProfile(updated));
  },
);

capabilityRoutes.delete(
  "/users/:userId/capabilities/:capability",
  requireRole(...MODERATOR_ROLES),
  valid("param", target),
  async (c) => {
    const { userId, capability } = c.req.valid("param");
    const u = await findUserOr404(c.env, userId);
    if (u.uuid === caller(c).uuid) throw new ApiError(403, MSG.ownCapabilities);
    const updated = await removeCapability(c.env, u.id, capability);
    if (!updated) throw new ApiError(404, MSG.capabilityNotHeld);
    await audit(c.env, "user.capability-removed", caller(c).uuid, { userUuid: u.uuid, capability });
    return c.json(toOwnProfile(updated));
  },
);
