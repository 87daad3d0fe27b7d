import { sql } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { BADGES, MODERATOR_ROLES, type Badge } from "../../shared/roles";
import { users, type UserRow } from "../db/schema";
import type { AppEnv } from "../env";
import { requireRole, requireService } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { assertMayWear } from "../merch-service/avatars/avatar-rules";
import { findAnyUserOr404, toModeratedProfile } from "./accounts";
import { changesRoomFace, tellUserRooms } from "../room-service/user-rooms";
import { MSG } from "./messages";
import { actionTarget, moderate, refuseIf } from "./moderation-log";
import { profileFields, socialFields } from "./profiles";

/**
 * A moderator edits someone else's profile and badges (issue 15; seed 000 "update a profile as
 * admin, change badges"), and other services add or remove badges (`/users/*-badges-service`,
 * the service key). Badges (VERIFIED, PLATINUM, DOUBLE_PLATINUM, JQBX, STAFF) show on every
 * profile DTO (`badges`). The moderator calls follow the hierarchy (moderation-rules.ts);
 * every change is a moderation action (editProfile, changeBadges) naming what changed.
 */
export const adminProfileRoutes = new Hono<AppEnv>();

const mods = requireRole(...MODERATOR_ROLES);

/** The same fields and bounds as the person's own edit (profiles.ts), on another account. */
const profileAdminBody = z
  .strictObject({ userUuid: fields.uuid, ...profileFields, ...socialFields })
  .refine((b) => Object.keys(b).length > 1, MSG.profileUpdateEmpty);

const badgeList = (min: number) =>
  z
    .array(z.enum(BADGES, { error: `each badge must be one of ${BADGES.join(", ")}` }), {
      error: "badges must be a list",
    })
    .min(min, `name at least ${min} badge`)
    .max(BADGES.length, `badges must have at most ${BADGES.length} entries`)
    .transform((list) => [...new Set(list)]);
const changeBadgesBody = z.strictObject({ userUuid: fields.uuid, badges: badgeList(0) });
const serviceBadgesBody = z.strictObject({ userUuid: fields.uuid, badges: badgeList(1) });

adminProfileRoutes.post(
  "/users/profile-admin",
  mods,
  valid("json", profileAdminBody),
  async (c) => {
    const { userUuid, ...changes } = c.req.valid("json");
    const { actor, target } = await actionTarget(c, userUuid);
    // Whom an avatar may be worn by is the target's matter (issue 6), whoever sets it.
    if (changes.avatarId) await assertMayWear(c.env, target, changes.avatarId);
    const keys = Object.keys(changes) as (keyof typeof changes)[];
    const from = Object.fromEntries(keys.map((k) => [k, target[k as keyof UserRow] ?? null]));
    const updated = await moderate(
      c,
      target,
      { actionType: "editProfile", actorUuid: actor.uuid, details: { from, to: changes } },
      { set: changes },
    );
    if (!updated) throw new ApiError(409, MSG.targetChanged);
    // The rooms they are in show the new name or avatar now (issue 15).
    if (changesRoomFace(changes)) await tellUserRooms(c.env, updated.uuid);
    return c.json(toModeratedProfile(updated), 201);
  },
);

adminProfileRoutes.post(
  "/users/change-badges-admin",
  mods,
  valid("json", changeBadgesBody),
  async (c) => {
    const { userUuid, badges } = c.req.valid("json");
    const { actor, target } = await actionTarget(c, userUuid);
    const updated = await moderate(
      c,
      target,
      {
        actionType: "changeBadges",
        actorUuid: actor.uuid,
        details: { from: target.badges, to: badges },
      },
      { set: { badges } },
    );
    if (!updated) throw new ApiError(409, MSG.targetChanged);
    await tellUserRooms(c.env, updated.uuid); // badges show in rooms too, at once (issue 15)
    return c.json(toModeratedProfile(updated), 201);
  },
);

/**
 * The service calls change the stored list in one statement (a union or a difference of the
 * JSON lists), so two services adding different badges at once both land.
 */
async function serviceBadges(c: Context<AppEnv>, userUuid: string, badges: Badge[], add: boolean) {
  const target = await findAnyUserOr404(c.env, userUuid);
  const who = c.get("caller");
  // An admin's token on a service route: still never on their own account.
  if (who && who.uuid === target.uuid) refuseIf("self");
  const list = JSON.stringify(badges);
  const next = add
    ? sql`(select json_group_array(value) from (select value from json_each(${users.badges}) union select value from json_each(${list})))`
    : sql`(select json_group_array(value) from json_each(${users.badges}) where value not in (select value from json_each(${list})))`;
  const updated = await moderate(
    c,
    target,
    {
      actionType: "changeBadges",
      actorUuid: who?.uuid ?? "service",
      details: add ? { added: badges } : { removed: badges },
    },
    { set: { badges: next } },
  );
  if (!updated) throw new ApiError(409, MSG.targetChanged);
  await tellUserRooms(c.env, updated.uuid);
  return c.json(toModeratedProfile(updated), 201);
}

adminProfileRoutes.post(
  "/users/add-badges-service",
  requireService,
  valid("json", serviceBadgesBody),
  (c) => serviceBadges(c, c.req.valid("json").userUuid, c.req.valid("json").badges, true),
);

adminProfileRoutes.post(
  "/users/remove-badges-service",
  requireService,
  valid("json", serviceBadgesBody),
  (c) => serviceBadges(c, c.req.valid("json").userUuid, c.req.valid("json").badges, false),
);
