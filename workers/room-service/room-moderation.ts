import { eq } from "drizzle-orm";
import { z } from "zod";
import type { RoomRoleEntry, RoomState } from "../../shared/protocol";
import { actorRank, isPlatformStaff, RANK, refusal, ROLE_MIN_RANK } from "../../shared/permissions";
import { ROOM_ROLES, type RoomRoleName } from "../../shared/rooms";
import { db } from "../db/client";
import { users, type RoomRow } from "../db/schema";
import type { Env } from "../env";
import type { Caller } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { roomStub, withTimeout, type RoomRpc } from "./room-dto";
import { MSG } from "./messages";

/**
 * The rules and object calls behind /roomUserRoles (room-roles.ts): who may grant or remove
 * which room role against whom, the UserRoles shape, and the object calls with their
 * failures mapped to 503 (never a 500: the object being down is not the client's fault).
 */

/** Whether an RPC failed because the object has no such method (workerd's TypeError text). */
export const isMissingMethod = (err: unknown) =>
  /does not implement|is not a function|no such method|method not found|not implemented/i.test(
    String((err as Error)?.message ?? err),
  );

/** Runs one object call; any failure becomes a 503 with a message (logged with the room). */
export async function onObject<T>(
  env: Env,
  room: RoomRow,
  what: string,
  call: (stub: RoomRpc) => Promise<T>,
  ms = 5000,
): Promise<T> {
  try {
    return await withTimeout(roomStub(env, room.uuid).then(call), ms);
  } catch (err) {
    console.error(`room ${room.uuid}: ${what} failed`, err);
    throw new ApiError(503, MSG.objectDown);
  }
}

/** The object's full state, or 503. */
export async function liveState(env: Env, room: RoomRow): Promise<RoomState> {
  try {
    return await withTimeout((await roomStub(env, room.uuid)).getState(), 5000);
  } catch (err) {
    console.error(`room ${room.uuid}: getState failed`, err);
    throw new ApiError(503, MSG.objectDown);
  }
}

/** Roles still in force: the published state may predate an expiry the alarm has not yet run. */
export function activeRoles(state: RoomState, now = Date.now()): RoomRoleEntry[] {
  const roles = state?.settings?.roomRoles;
  if (!Array.isArray(roles)) return [];
  return roles.filter(
    (r) =>
      (ROOM_ROLES as readonly string[]).includes(r.role) &&
      (r.expirationTime == null || r.expirationTime > now),
  );
}

export const rolesOf = (roles: RoomRoleEntry[], userUuid: string) =>
  new Set(roles.filter((r) => r.userUuid === userUuid).map((r) => r.role));

/** The most telling role a user held before a change (Moderation action previousRole). */
const ROLE_ORDER: readonly RoomRoleName[] = [
  "owner",
  "coOwner",
  "moderator",
  "dj",
  "banned",
  "kicked",
  "djDisabled",
  "chatDisabled",
];
/** The roles a room moderator may grant or remove (named in the refusal). */
const MODERATOR_GRANTS = ROOM_ROLES.filter((r) => ROLE_MIN_RANK[r] === RANK.moderator);

export const previousRole = (held: Set<RoomRoleName>, isOwner: boolean): RoomRoleName | null =>
  isOwner ? "owner" : (ROLE_ORDER.find((r) => held.has(r)) ?? null);

/** UserRoles (REFERENCE.md). The object keeps no row id nor timestamps, so id is derived and the dates are null. */
export function toUserRoleDto(
  room: RoomRow,
  r: { userUuid: string; role: RoomRoleName; expirationTime: number | null },
) {
  return {
    id: `${room.id}:${r.userUuid}:${r.role}`,
    roomId: room.id,
    userUuid: r.userUuid,
    role: r.role,
    expirationTime: r.expirationTime === null ? null : new Date(r.expirationTime).toISOString(),
    createdAt: null,
    updatedAt: null,
  };
}

export const isPlatformModerator = (who: Pick<Caller, "roles">) => isPlatformStaff(who.roles);

/**
 * Why `who` may not grant (or remove) `role` for the target, or null when they may: the one
 * table in shared/permissions.ts, asked with the object's roles at the time of the call plus
 * the D1 owner (the object adds "owner" from its settings, not from a role row).
 */
export function moderationRefusal(
  room: RoomRow,
  roles: RoomRoleEntry[],
  who: Caller,
  targetUuid: string,
  role: RoomRoleName,
  granting: boolean,
): string | null {
  const heldBy = (uuid: string) => {
    const held = rolesOf(roles, uuid);
    if (room.ownerUuid === uuid) held.add("owner");
    return held;
  };
  const actor = { uuid: who.uuid, held: heldBy(who.uuid), platformRoles: who.roles };
  const why = refusal(
    actor,
    { action: "role", role, removing: !granting },
    { uuid: targetUuid, held: heldBy(targetUuid) },
  );
  switch (why) {
    case null:
      return null;
    case "owner":
      return MSG.ownerUnbannable;
    case "self":
      return MSG.kickSelf;
    case "roleLimit":
      return actorRank(actor.held, who.roles) === RANK.moderator
        ? MSG.moderatorLimit(MODERATOR_GRANTS)
        : MSG.notAModerator;
    case "target":
      return actorRank(actor.held, who.roles) === RANK.coOwner
        ? MSG.coOwnerTarget
        : MSG.moderatorTarget;
    case "notAllowed":
      return MSG.notAModerator;
  }
}

/** Whether an account with this uuid exists (a role for a typo'd uuid would sit there unseen). */
export async function accountExists(env: Env, uuid: string): Promise<boolean> {
  return !!(await db(env).select({ id: users.id }).from(users).where(eq(users.uuid, uuid)).get());
}

/** A room in a body: its numeric id, uuid or slug (as `{id}` in a path). */
export const roomRef = z.union(
  [
    z.string().trim().min(1, "roomId is required").max(64, "roomId is too long"),
    z.number().int().positive().transform(String),
  ],
  {
    error: "roomId must be a room id, uuid or slug",
  },
);
