import { eq } from "drizzle-orm";
import { z } from "zod";
import type { RoomRoleEntry, RoomState } from "../../shared/protocol";
import type { UserRole } from "../../shared/roles";
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

/** Platform roles that may change any room's roles (the brief's table). */
const PLATFORM_MODERATORS: readonly UserRole[] = ["admin", "superUser", "globalModerator"];
/** What the owner and co-owners may grant or remove ("owner" moves only by change-owner). */
const OWNER_GRANTS: readonly RoomRoleName[] = [
  "moderator",
  "coOwner",
  "dj",
  "djDisabled",
  "chatDisabled",
  "banned",
  "kicked",
];
/** What room moderators may grant or remove. */
const MODERATOR_GRANTS: readonly RoomRoleName[] = [
  "dj",
  "djDisabled",
  "chatDisabled",
  "banned",
  "kicked",
];

export const isPlatformModerator = (who: Pick<Caller, "roles">) =>
  who.roles.some((r) => PLATFORM_MODERATORS.includes(r));

/**
 * Why `who` may not grant (or remove) `role` for the target, or null when they may. Checked
 * against the object's roles at the time of the call, plus the D1 owner (the object adds
 * "owner" from its settings, not from a role row).
 */
export function moderationRefusal(
  room: RoomRow,
  roles: RoomRoleEntry[],
  who: Caller,
  targetUuid: string,
  role: RoomRoleName,
  granting: boolean,
): string | null {
  const targetIsOwner = room.ownerUuid === targetUuid;
  // Nobody, staff included, can lock the owner out of their own room.
  if (granting && targetIsOwner && (role === "banned" || role === "kicked"))
    return MSG.ownerUnbannable;
  if (isPlatformModerator(who) || room.ownerUuid === who.uuid)
    return OWNER_GRANTS.includes(role) ? null : MSG.notAModerator;
  const held = rolesOf(roles, who.uuid);
  if (held.has("coOwner")) {
    if (targetIsOwner) return MSG.coOwnerTarget;
    return OWNER_GRANTS.includes(role) ? null : MSG.notAModerator;
  }
  if (held.has("moderator")) {
    if (!MODERATOR_GRANTS.includes(role)) return MSG.moderatorLimit(MODERATOR_GRANTS);
    const target = rolesOf(roles, targetUuid);
    if (targetIsOwner || target.has("owner") || target.has("coOwner") || target.has("moderator"))
      return MSG.moderatorTarget;
    return null;
  }
  return MSG.notAModerator;
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
