import {
  isSuperUser,
  MODERATOR_ROLES,
  SUPER_ROLES,
  USER_ROLES,
  type UserRole,
} from "../../shared/roles";

/**
 * Who may do what to whom on the platform (issue 15): the one table every moderator-type
 * route asks. Pure, so test/moderation-rules.test.ts checks it cell by cell.
 *
 * - Each platform role has a rank; an account's rank is its highest role's.
 * - Acting on an account (kick, ban, unban, capabilities, badges, profile edits, cancelling
 *   a deactivation request) needs a moderator-type role and a rank strictly above the
 *   target's: a moderator cannot ban another moderator, a globalModerator, an admin or a
 *   superUser; an admin cannot ban another admin. Two superUsers cannot act on each other
 *   either (the top is settled outside the product).
 * - Nobody acts on themselves (a moderator cannot unban, re-role or re-badge their own account).
 * - Granting or removing a role needs a rank strictly above that role, and the admin and
 *   superUser roles only a superUser grants or removes (SUPER_ROLES, the sign-up rule).
 *   `user` and `bot` are what an account is, not grants: they are never added or removed here.
 */
export const ROLE_RANK: Record<UserRole, number> = {
  superUser: 5,
  admin: 4,
  globalModerator: 3,
  moderator: 2,
  staff: 1,
  promoter: 1,
  user: 0,
  bot: 0,
};

/** Roles a moderator-type call may grant or remove. */
export const GRANTABLE_ROLES = USER_ROLES.filter((r) => r !== "user" && r !== "bot");
export type GrantableRole = (typeof GRANTABLE_ROLES)[number];

/** The moderation action types (seed 001), plus the ones our other calls record. */
export const MODERATION_ACTION_TYPES = [
  "banUser",
  "kickUser",
  "grantRole",
  "removeRole",
  "globalKick",
  "globalBan",
  "globalUnBan",
  "temporaryBan",
  "addCapability",
  "removeCapability",
  "changeBadges",
  "editProfile",
  "requestDeactivation",
  "cancelDeactivationRequest",
  "deactivate",
  "reactivate",
] as const;
export type ModerationActionType = (typeof MODERATION_ACTION_TYPES)[number];

export const rankOf = (roles: readonly UserRole[]) =>
  Math.max(0, ...roles.map((r) => ROLE_RANK[r] ?? 0));

export const isModerator = (roles: readonly UserRole[]) =>
  roles.some((r) => MODERATOR_ROLES.includes(r));

/** Why a refusal happened; the routes turn each into its message (messages.ts). */
export type Refusal = "notModerator" | "self" | "outranked" | "roleTooHigh" | "superOnly";

interface Account {
  uuid: string;
  roles: readonly UserRole[];
}

/** Why `actor` may not act on `target` (kick, ban, unban, capabilities, ...), or null. */
export function refusalToAct(actor: Account, target: Account): Refusal | null {
  if (!isModerator(actor.roles)) return "notModerator";
  if (actor.uuid === target.uuid) return "self";
  if (rankOf(actor.roles) <= rankOf(target.roles)) return "outranked";
  return null;
}

/** Why `actor` may not grant or remove `role` on `target`, or null. */
export function refusalToChangeRole(
  actor: Account,
  target: Account,
  role: GrantableRole,
): Refusal | null {
  const acting = refusalToAct(actor, target);
  if (acting) return acting;
  if (SUPER_ROLES.includes(role)) return isSuperUser(actor.roles) ? null : "superOnly";
  if (rankOf(actor.roles) <= ROLE_RANK[role]) return "roleTooHigh";
  return null;
}
