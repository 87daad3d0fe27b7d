/**
 * The one permission table for a room: who may act on whom. The Room object (socket
 * actions: removeDj, skipSong, deleteChat, kickUser), the room-service (REST: role grants
 * and removals, the kick call, chat clearing) and the browser (which buttons to show) all
 * ask `refusal` here, so the socket and REST can never disagree (test/room-permissions.test.ts
 * walks every pair).
 *
 * The rule (docs/DECISIONS.md, rooms live state):
 * - Everyone has a rank: platform staff (admin, superUser, globalModerator) above the
 *   owner, above co-owners, above room moderators, above everyone else. Other platform
 *   roles (moderator, staff, promoter, ...) carry no power in rooms.
 * - An action against someone else needs the action's minimum rank, and the target must be
 *   strictly below the actor (a moderator never acts on another moderator, a co-owner on
 *   another co-owner). A target's rank is their room rank: platform roles protect nobody.
 * - Nobody bans or kicks the owner (staff included), and nobody kicks themselves.
 * - Acting on yourself (leaving the stage, skipping your own song, deleting your own
 *   message) needs no rank; callers check that before asking here.
 */
import type { RoomRoleName } from "./rooms";
import type { UserRole } from "./roles";

type Roles = readonly (string | null | undefined)[];

/** Platform roles that hold power in every room. */
export const PLATFORM_STAFF: readonly UserRole[] = ["admin", "superUser", "globalModerator"];

export const RANK = { none: 0, moderator: 1, coOwner: 2, owner: 3, staff: 4 } as const;
export type Rank = (typeof RANK)[keyof typeof RANK];

/** Actions against another user (or the room), with the least rank each needs. */
export const ACTION_MIN_RANK = {
  removeDj: RANK.moderator,
  skipSong: RANK.moderator,
  deleteChat: RANK.moderator,
  kickUser: RANK.moderator,
  clearChat: RANK.moderator,
} as const satisfies Record<string, Rank>;

/** Granting or removing a room role needs this rank ("owner" moves only by change-owner). */
export const ROLE_MIN_RANK: Readonly<Record<RoomRoleName, Rank | null>> = {
  dj: RANK.moderator,
  djDisabled: RANK.moderator,
  chatDisabled: RANK.moderator,
  banned: RANK.moderator,
  kicked: RANK.moderator,
  moderator: RANK.coOwner,
  coOwner: RANK.coOwner,
  owner: null,
};

export type TargetedAction = keyof typeof ACTION_MIN_RANK;
/** A row of the table: a plain action, or a role change. */
export type Act =
  { action: TargetedAction } | { action: "role"; role: RoomRoleName; removing?: boolean };

/** Why an action is refused; each side words it in its own catalogue. */
export type Refusal = "notAllowed" | "roleLimit" | "target" | "owner" | "self";

/** The rank of the room roles someone holds (the owner holds "owner"). */
export function roomRank(held: ReadonlySet<RoomRoleName>): Rank {
  if (held.has("owner")) return RANK.owner;
  if (held.has("coOwner")) return RANK.coOwner;
  if (held.has("moderator")) return RANK.moderator;
  return RANK.none;
}

export const isPlatformStaff = (roles: Roles) =>
  roles.some((r) => !!r && (PLATFORM_STAFF as readonly string[]).includes(r));

/** An actor's rank: the higher of their room rank and their platform rank. */
export function actorRank(held: ReadonlySet<RoomRoleName>, platformRoles: Roles): Rank {
  return isPlatformStaff(platformRoles) ? RANK.staff : roomRank(held);
}

/**
 * Why the actor may not do `act` to the target (null: they may). `target` is null for an
 * action on the room itself (clearChat) or on no one (a room line's deletion).
 */
export function refusal(
  actor: { uuid: string; held: ReadonlySet<RoomRoleName>; platformRoles: Roles },
  act: Act,
  target: { uuid: string; held: ReadonlySet<RoomRoleName> } | null,
): Refusal | null {
  const rank = actorRank(actor.held, actor.platformRoles);
  if (rank < RANK.moderator) return "notAllowed";
  const kickOrBan =
    act.action === "kickUser" ||
    (act.action === "role" && !act.removing && (act.role === "kicked" || act.role === "banned"));
  // The owner cannot be locked out of their own room, by anyone (lifting a lock is fine).
  if (kickOrBan && target?.held.has("owner")) return "owner";
  if (act.action === "kickUser" && target?.uuid === actor.uuid) return "self";
  const min = act.action === "role" ? ROLE_MIN_RANK[act.role] : ACTION_MIN_RANK[act.action];
  if (min === null || rank < min) return act.action === "role" ? "roleLimit" : "notAllowed";
  if (target && roomRank(target.held) >= rank) return "target";
  return null;
}
