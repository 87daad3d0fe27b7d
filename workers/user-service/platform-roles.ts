import { Hono, type Context } from "hono";
import { z } from "zod";
import { MODERATOR_ROLES } from "../../shared/roles";
import type { AppEnv } from "../env";
import { caller, requireRole } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { tellUserRooms } from "../room-service/user-rooms";
import { findAnyUserOr404, toModeratedProfile } from "./accounts";
import { MSG } from "./messages";
import { moderate, refuseIf } from "./moderation-log";
import { GRANTABLE_ROLES, refusalToChangeRole, type GrantableRole } from "./moderation-rules";

/**
 * Platform roles (issue 15; seed 000 "Moderator-type calls": add role, add global moderator
 * role). moderation-rules.ts decides who may grant or remove which role on whom: a rank
 * strictly above the role and the target, the admin and superUser roles by a superUser only,
 * never on oneself. `/users/remove-role` is ours: the moderation page needs the way back.
 * Roles are read from D1 on every call and every socket, so a change takes effect at once;
 * the rooms the person is in are told (their sockets take the new roles).
 */
export const platformRoleRoutes = new Hono<AppEnv>();

const roleField = z.enum(GRANTABLE_ROLES, {
  error: `role must be one of ${GRANTABLE_ROLES.join(", ")}`,
});
const roleBody = z.strictObject({ userUuid: fields.uuid, role: roleField });
const mods = requireRole(...MODERATOR_ROLES);

async function changeRole(c: Context<AppEnv>, userUuid: string, role: GrantableRole, add: boolean) {
  const actor = caller(c);
  const target = await findAnyUserOr404(c.env, userUuid);
  refuseIf(refusalToChangeRole(actor, target, role));
  const held = target.roles.includes(role);
  if (add && held) throw new ApiError(403, MSG.capabilityExists);
  if (!add && !held) throw new ApiError(404, MSG.roleNotHeld);
  const roles = add ? [...target.roles, role] : target.roles.filter((r) => r !== role);
  // moderate() writes only if the roles are still the ones read: a racing change is a 409.
  const updated = await moderate(
    c,
    target,
    {
      actionType: add ? "grantRole" : "removeRole",
      actorUuid: actor.uuid,
      previousRole: target.roles,
      role,
    },
    { set: { roles } },
  );
  if (!updated) throw new ApiError(409, MSG.targetChanged);
  await tellUserRooms(c.env, target.uuid);
  return c.json(toModeratedProfile(updated), 201);
}

platformRoleRoutes.post("/users/add-role", mods, valid("json", roleBody), (c) => {
  const { userUuid, role } = c.req.valid("json");
  return changeRole(c, userUuid, role, true);
});

platformRoleRoutes.post("/users/remove-role", mods, valid("json", roleBody), (c) => {
  const { userUuid, role } = c.req.valid("json");
  return changeRole(c, userUuid, role, false);
});

platformRoleRoutes.post(
  "/users/add-global-moderator-role",
  mods,
  valid("json", z.strictObject({ userUuid: fields.uuid })),
  (c) => changeRole(c, c.req.valid("json").userUuid, "globalModerator", true),
);
