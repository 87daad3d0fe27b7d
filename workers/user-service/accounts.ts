import { and, eq, sql } from "drizzle-orm";
import type {
  EmailStatus,
  EmailType,
  TokenType,
  UserCapability,
  UserRole,
} from "../../shared/roles";
import { db } from "../db/client";
import { userEmails, users, type UserRow } from "../db/schema";
import type { Env } from "../env";
import { emailContactHashOrNull } from "../lib/contact-hash";
import { activeBan, banMessage } from "../lib/bans";
import { ApiError, forbidden, isUniqueViolation } from "../lib/errors";
import { signToken, TOKEN_TTL_SECONDS } from "../lib/jwt";
import { hashPassword } from "../lib/password";
import { MSG } from "./messages";
import { sendVerificationCode } from "./verification";
import { defaultAvatarFor } from "../merch-service/avatars/default-avatar";

/**
 * Account building blocks every user-service route shares: the two profile shapes, making
 * an account, and issuing a session. Routes stay thin; the rules live here once.
 */

/** Another user's profile (REFERENCE.md, OtherUserProfileResDto). Never an e-mail or a role. */
export function toOtherProfile(u: UserRow) {
  return {
    id: u.id,
    uuid: u.uuid,
    nickname: u.nickname,
    firstName: u.firstName,
    lastName: u.lastName,
    color: u.color,
    avatarId: u.avatarId,
    pronoun: u.pronoun,
    displayPronouns: u.displayPronouns,
    songOfTheWeek: u.songOfTheWeek,
    zodiac: u.zodiac,
    bio: u.bio,
    profilePicture: u.profilePicture,
    coverPicture: u.coverPicture,
    facebook: u.facebook,
    instagram: u.instagram,
    twitter: u.twitter,
    snapchat: u.snapchat,
    tiktok: u.tiktok,
    badges: u.badges,
    priceForGig: u.priceForGig,
    isBot: u.roles.includes("bot"),
    createdAt: new Date(u.createdAt).toISOString(),
  };
}

/** The signed-in user's own profile: the public one plus what only they (and admins) see. */
export function toOwnProfile(u: UserRow) {
  return {
    ...toOtherProfile(u),
    email: u.email,
    emailVerified: u.emailVerified,
    hasPassword: u.passwordHash !== null,
    roles: u.roles,
    capabilities: u.capabilities,
    subscriptionLevel: u.subscriptionLevel,
    ownerUuid: u.ownerUuid,
    deactivated: u.deactivated,
    deactivationRequestedAt: u.deactivationRequestedAt
      ? new Date(u.deactivationRequestedAt).toISOString()
      : null,
    /** The ban in force now (null: none); a temporary ban past its end is none. */
    ban: banView(u),
    updatedAt: new Date(u.updatedAt).toISOString(),
  };
}
/** The ban in force on `u` as the API shows it: `{ until (ISO or null: permanent), reason }`. */
export function banView(u: UserRow) {
  const ban = activeBan(u);
  return ban
    ? { until: ban.until === null ? null : new Date(ban.until).toISOString(), reason: ban.reason }
    : null;
}
/**
 * An account as a moderator sees it (the answers of the moderation calls): the public profile
 * with roles, capabilities, the ban and deactivation state, but no e-mail: only admins read
 * e-mails (GET /admin/users/{id}).
 */
export function toModeratedProfile(u: UserRow) {
  const own = toOwnProfile(u);
  return {
    ...toOtherProfile(u),
    roles: own.roles,
    capabilities: own.capabilities,
    deactivated: own.deactivated,
    deactivationRequestedAt: own.deactivationRequestedAt,
    ban: own.ban,
  };
}
export type OwnProfile = ReturnType<typeof toOwnProfile>;
export type OtherProfile = ReturnType<typeof toOtherProfile>;

/** A nickname from the e-mail's local part when none is given: "dj.sam+x@..." → "dj.sam". */
export function defaultNickname(email: string | null | undefined) {
  const local = (email ?? "")
    .split("@")[0]
    .split("+")[0]
    .replace(/[^\p{L}\p{N}._-]/gu, "");
  return (local || `user${Math.floor(Math.random() * 1e6)}`).slice(0, 30);
}

export interface NewAccount {
  email: string;
  password?: string;
  nickname?: string;
  roles?: UserRole[];
  /** CREATED_BY_ADMIN accounts skip verification; the rest start PENDING_VERIFICATION. */
  emailStatus?: Extract<EmailStatus, "PENDING_VERIFICATION" | "CREATED_BY_ADMIN" | "VERIFIED">;
  emailType?: EmailType;
  ownerUuid?: string;
  /** Where the verification mail's link points (publicOrigin of the request). */
  origin?: string;
}

/**
 * Makes an account with its login e-mail row. A taken e-mail is 403 with the catalogue's
 * message; the unique index settles a race between two sign-ups for the same address.
 * New personal accounts get a verification code by e-mail (through the queue).
 */
export async function createUser(env: Env, a: NewAccount): Promise<UserRow> {
  const d = db(env);
  const existing = await d
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, a.email))
    .get();
  if (existing) throw new ApiError(403, MSG.emailTaken);
  const status = a.emailStatus ?? "PENDING_VERIFICATION";
  const uuid = crypto.randomUUID();
  const avatarId = await defaultAvatarFor(env, uuid);
  let user: UserRow;
  try {
    user = await d
      .insert(users)
      .values({
        uuid,
        avatarId,
        email: a.email,
        passwordHash: a.password ? await hashPassword(a.password) : null,
        nickname: a.nickname?.trim() || defaultNickname(a.email),
        roles: a.roles ?? ["user"],
        emailVerified: status !== "PENDING_VERIFICATION",
        ownerUuid: a.ownerUuid ?? null,
      })
      .returning()
      .get();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(403, MSG.emailTaken);
    throw err;
  }
  const emailRow = await d
    .insert(userEmails)
    .values({
      userId: user.id,
      email: a.email,
      type: a.emailType ?? "personal",
      status,
      verifiedAt: status === "PENDING_VERIFICATION" ? null : Date.now(),
      contactHash: await emailContactHashOrNull(env, a.email),
    })
    .returning()
    .get();
  if (status === "PENDING_VERIFICATION")
    await sendVerificationCode(env, user, emailRow, a.origin ?? env.PUBLIC_HOST ?? "");
  return user;
}

/**
 * A signed session for an account: `{ token, user, expiresAt }`. Every sign-in (login, magic
 * link, voucher, bot token, password change) ends here, so a banned account (lib/bans.ts) is
 * refused here once: 403 naming the ban. Callers check the password first, so the answer
 * tells a ban only to someone who proved they own the account.
 */
export async function issueSession(
  env: Env,
  user: UserRow,
  type: Extract<TokenType, "user" | "bot"> = "user",
) {
  const ban = activeBan(user);
  if (ban) throw forbidden(banMessage(ban));
  const token = await signToken(env, {
    sub: user.uuid,
    type,
    roles: user.roles,
    sv: user.sessionVersion,
  });
  return {
    token,
    tokenType: type,
    expiresAt: new Date(Date.now() + TOKEN_TTL_SECONDS[type] * 1000).toISOString(),
    user: toOwnProfile(user),
  };
}

/**
 * The account by uuid or numeric id, deactivated ones included: admins and other services
 * must see them (with `deactivated: true`) to reactivate them or to drop them from their
 * own copies. Else 404 "User profile not found.".
 */
export async function findAnyUserOr404(env: Env, idOrUuid: string): Promise<UserRow> {
  const user = await db(env)
    .select()
    .from(users)
    .where(/^\d+$/.test(idOrUuid) ? eq(users.id, Number(idOrUuid)) : eq(users.uuid, idOrUuid))
    .get();
  if (!user) throw new ApiError(404, MSG.profileNotFound);
  return user;
}

/** As findAnyUserOr404, for public lookups: a deactivated account is "not found" too. */
export async function findUserOr404(env: Env, idOrUuid: string): Promise<UserRow> {
  const user = await findAnyUserOr404(env, idOrUuid);
  if (user.deactivated) throw new ApiError(404, MSG.profileNotFound);
  return user;
}

/** The login e-mail row of a user (the one matching users.email). */
export async function loginEmailRow(env: Env, user: UserRow) {
  if (!user.email) return undefined;
  return db(env)
    .select()
    .from(userEmails)
    .where(and(eq(userEmails.userId, user.id), eq(userEmails.email, user.email)))
    .get();
}

// Capabilities live in a JSON column. Each change is one UPDATE that computes the new list
// from the stored one, so two moderators (or a moderator and a voucher) changing one account
// at once both land; a read-then-write lost one of them.
export const hasCapability = (capability: UserCapability) =>
  sql`exists (select 1 from json_each(${users.capabilities}) where value = ${capability})`;

/** Adds `capability` unless the account has it; answers the changed row, or undefined. */
export function addCapability(
  env: Env,
  userId: number,
  capability: UserCapability,
): Promise<UserRow | undefined> {
  return db(env)
    .update(users)
    .set({
      capabilities: sql`json_insert(${users.capabilities}, '$[#]', ${capability})`,
      updatedAt: Date.now(),
    })
    .where(and(eq(users.id, userId), sql`not ${hasCapability(capability)}`))
    .returning()
    .get();
}
