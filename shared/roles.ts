/**
 * Enumerations the seeds name, shared by the Worker, the durable objects and the browser.
 * Types derive from these lists; nothing restates them.
 */
export const USER_ROLES = [
  "globalModerator",
  "admin",
  "moderator",
  "staff",
  "promoter",
  "user",
  "superUser",
  "bot",
] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** The kinds of JWT the user-service signs. */
export const TOKEN_TYPES = ["user", "guest", "bot", "ghost"] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

export const USER_CAPABILITIES = ["uploadMusic", "promoteRoom"] as const;
export type UserCapability = (typeof USER_CAPABILITIES)[number];

export const BADGES = ["VERIFIED", "PLATINUM", "DOUBLE_PLATINUM", "JQBX", "STAFF"] as const;
export type Badge = (typeof BADGES)[number];

export const EMAIL_TYPES = ["personal", "work", "payment", "spotify", "discord"] as const;
export type EmailType = (typeof EMAIL_TYPES)[number];
/**
 * The types a person may give an address they add. `spotify` and `discord` mean "this is the
 * address of a linked provider account" (a verified `discord` address unlocks Discord-only
 * avatars), so only linking that provider writes them, never the client (issue 13).
 */
export const CLIENT_EMAIL_TYPES = ["personal", "work", "payment"] as const satisfies EmailType[];

export const EMAIL_STATUSES = [
  "PENDING_VERIFICATION",
  "VERIFIED",
  "DELETED",
  "CREATED_BY_ADMIN",
] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

export const VOUCHER_STATUSES = ["PENDING", "REDEEMED", "REVOKED"] as const;
export type VoucherStatus = (typeof VOUCHER_STATUSES)[number];

export const IMAGE_KINDS = ["profilePicture", "coverPicture"] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];

/** Roles that may run the admin panel. */
export const ADMIN_ROLES: readonly UserRole[] = ["admin", "superUser"];
/**
 * The hierarchy's top (issue 13): only a superUser makes an account holding one of these roles
 * or resets the password of one, so an admin cannot mint a superUser or take over another
 * admin's account.
 */
export const SUPER_ROLES: readonly UserRole[] = ["admin", "superUser"];
export const isSuperUser = (roles: readonly UserRole[]) => roles.includes("superUser");
export const holdsSuperRole = (roles: readonly UserRole[]) =>
  roles.some((r) => SUPER_ROLES.includes(r));
/**
 * Roles that moderate accounts (the user-service: capabilities, profiles). Power inside a
 * room is shared/permissions.ts alone (PLATFORM_STAFF), which leaves out `moderator`.
 */
export const MODERATOR_ROLES: readonly UserRole[] = [
  "admin",
  "superUser",
  "globalModerator",
  "moderator",
];

/** The default chat colour (seed 000, section 9). */
export const DEFAULT_COLOR = "562DF9";

/** A guest's display name, from their guest token's uuid (the user-service, the room and the page agree). */
export const guestName = (uuid: string) => `Guest ${uuid.slice(0, 4).toUpperCase()}`;
