import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { db } from "../../db/client";
import {
  avatarAssignments,
  avatars,
  seasons,
  userEmails,
  users,
  type AvatarAssignmentRow,
  type AvatarRow,
  type UserRow,
} from "../../db/schema";
import type { Env } from "../../env";
import { ApiError, notFound } from "../../lib/errors";
import { levelNow, liveLevelSql } from "../../payment-service/level-rule";
import { tellUserRooms } from "../../room-service/user-rooms";
import { MSG } from "../messages";

/**
 * Who may use (and so wear) which avatar. One set of rules, used by every list, by the
 * profile update that sets `avatarId`, and (as SQL) by the writes that take an avatar away:
 *
 * - an assignment (MANUAL, SEASON_AWARD, PURCHASED) unlocks its avatar whatever its status;
 * - otherwise PUBLIC is for everyone, SUBSCRIBER_ONLY for accounts a subscription grants a
 *   level now (payment-service/level-rule.ts, read from the subscriptions, so one past its
 *   endDate no longer counts), and PRIVATE and SEASON_AWARD only through an
 *   assignment (a season's avatars are handed out by the points backfill);
 * - `discordOnly` also asks for a Discord link: a VERIFIED user e-mail of type `discord`
 *   (the only provider link the user-service stores). An assignment skips that too.
 */

/** How a locked avatar is unlocked; the web app words it, `howToUnlock` is the English text. */
export type Unlock =
  | {
      kind: "SEASON_POINTS";
      points: number | null;
      seasonId: number | null;
      seasonName: string | null;
    }
  | { kind: "SUBSCRIBE" }
  | { kind: "DISCORD" }
  | { kind: "ASSIGNED" }
  | { kind: "SIGN_IN" };

/** What the rules need to know about one caller; `null` for a caller without an account. */
export interface Holder {
  user: UserRow;
  assigned: Map<string, AvatarAssignmentRow>;
  discord: boolean;
}

export const isSubscriber = (user: Pick<UserRow, "subscriptionLevel">) =>
  !!user.subscriptionLevel?.trim();

/** Loads one account's assignments, Discord link and level now (three small indexed reads). */
export async function loadHolder(env: Pick<Env, "DB">, user: UserRow): Promise<Holder> {
  const d = db(env);
  const [rows, discord, level] = await Promise.all([
    d.select().from(avatarAssignments).where(eq(avatarAssignments.userUuid, user.uuid)).all(),
    d
      .select({ id: userEmails.id })
      .from(userEmails)
      .where(
        and(
          eq(userEmails.userId, user.id),
          eq(userEmails.type, "discord"),
          eq(userEmails.status, "VERIFIED"),
        ),
      )
      .get(),
    levelNow(env, user.uuid),
  ]);
  return {
    user: { ...user, subscriptionLevel: level },
    assigned: new Map(rows.map((r) => [r.avatarSlug, r])),
    discord: !!discord,
  };
}

/** Whether `holder` may use `avatar`, and if not, what would unlock it. */
export function accessOf(
  avatar: AvatarRow,
  holder: Holder | null,
  seasonName: string | null = null,
): { canUse: boolean; unlock: Unlock | null } {
  if (holder?.assigned.has(avatar.slug)) return { canUse: true, unlock: null };
  const byStatus: Unlock | null =
    avatar.status === "PUBLIC"
      ? null
      : avatar.status === "SUBSCRIBER_ONLY"
        ? holder && isSubscriber(holder.user)
          ? null
          : { kind: "SUBSCRIBE" }
        : avatar.status === "SEASON_AWARD"
          ? {
              kind: "SEASON_POINTS",
              points: avatar.pointsThreshold,
              seasonId: avatar.seasonId,
              seasonName,
            }
          : { kind: "ASSIGNED" };
  if (byStatus) return { canUse: false, unlock: byStatus };
  if (!holder)
    return avatar.discordOnly
      ? { canUse: false, unlock: { kind: "SIGN_IN" } }
      : { canUse: true, unlock: null };
  if (avatar.discordOnly && !holder.discord) return { canUse: false, unlock: { kind: "DISCORD" } };
  return { canUse: true, unlock: null };
}

/** The English sentence for an unlock rule (API clients; the web app has its own words). */
export function howToUnlock(u: Unlock | null): string | null {
  if (!u) return null;
  switch (u.kind) {
    case "SEASON_POINTS":
      return `Reach ${u.points ?? "enough"} points in ${u.seasonName ?? (u.seasonId ? `season ${u.seasonId}` : "the season")}.`;
    case "SUBSCRIBE":
      return "Subscribers only.";
    case "DISCORD":
      return "Link your Discord account.";
    case "ASSIGNED":
      return "Given by the team.";
    case "SIGN_IN":
      return "Sign in to use it.";
  }
}

/** Season names by id, for the unlock texts of SEASON_AWARD avatars. */
export async function seasonNames(
  env: Pick<Env, "DB">,
  rows: AvatarRow[],
): Promise<Map<number, string>> {
  const ids = [
    ...new Set(rows.map((r) => r.seasonId).filter((id): id is number => id !== null)),
  ].slice(0, 90);
  if (ids.length === 0) return new Map();
  const found = await db(env)
    .select({ id: seasons.id, name: seasons.name })
    .from(seasons)
    .where(inArray(seasons.id, ids))
    .all();
  return new Map(found.map((s) => [s.id, s.name]));
}

/**
 * The profile update's check (POST /users/profile `avatarId`): 404 for an avatar that does
 * not exist, 403 with the reason for one the user may not use. Clearing is not checked here.
 */
export async function assertMayWear(
  env: Pick<Env, "DB">,
  user: UserRow,
  slug: string,
): Promise<void> {
  const avatar = await db(env).select().from(avatars).where(eq(avatars.slug, slug)).get();
  if (!avatar) throw notFound(MSG.avatarNotFound);
  const names = await seasonNames(env, [avatar]);
  const { canUse, unlock } = accessOf(
    avatar,
    await loadHolder(env, user),
    avatar.seasonId ? (names.get(avatar.seasonId) ?? null) : null,
  );
  if (!canUse) throw new ApiError(403, MSG.avatarLocked(avatar.slug, howToUnlock(unlock)));
}

/**
 * The same rule as `accessOf`, as SQL over `users`: true where the user may use `avatar`
 * (`null`: the avatar is gone, nobody may).
 */
function mayUseSql(avatar: AvatarRow | null): SQL {
  if (!avatar) return sql`0`;
  const assigned = sql`exists (select 1 from ${avatarAssignments} where ${avatarAssignments.avatarSlug} = ${avatar.slug} and ${avatarAssignments.userUuid} = ${users.uuid})`;
  const byStatus =
    avatar.status === "PUBLIC"
      ? sql`1`
      : avatar.status === "SUBSCRIBER_ONLY"
        ? sql`(trim(coalesce(${liveLevelSql(users.uuid)}, '')) <> '')`
        : sql`0`;
  const discord = avatar.discordOnly
    ? sql`exists (select 1 from ${userEmails} where ${userEmails.userId} = ${users.id} and ${userEmails.type} = 'discord' and ${userEmails.status} = 'VERIFIED')`
    : sql`1`;
  return sql`(${assigned} or (${byStatus} and ${discord}))`;
}

/**
 * The statement that takes `slug` off everyone who wears it but may no longer use it (after
 * an assignment is removed, the avatar's rules change, or it is deleted). Run it in the same
 * D1 batch as the change, after it, so nobody is left wearing what they lost.
 * `avatar` is the row as it is after the change (`null` when deleted); `userUuid` narrows it.
 */
export function clearLostWearers(
  env: Pick<Env, "DB">,
  slug: string,
  avatar: AvatarRow | null,
  userUuid?: string,
) {
  return db(env)
    .update(users)
    .set({ avatarId: null, updatedAt: Date.now() })
    .where(
      and(
        eq(users.avatarId, slug),
        userUuid ? eq(users.uuid, userUuid) : undefined,
        sql`not ${mayUseSql(avatar)}`,
      ),
    );
}

/**
 * The statement that takes a Discord-only avatar off account `userId` once its Discord link is
 * gone: run it in the same D1 batch as the removal of the `discord` e-mail, after it. Without
 * that e-mail, a `discordOnly` avatar is usable only through an assignment (`mayUseSql`), so
 * the wearer falls back to no avatar (the default, drawn from their name) unless assigned it.
 */
export function clearDiscordOnlyWorn(env: Pick<Env, "DB">, userId: number) {
  return db(env)
    .update(users)
    .set({ avatarId: null, updatedAt: Date.now() })
    .where(
      and(
        eq(users.id, userId),
        sql`${users.avatarId} in (select ${avatars.slug} from ${avatars} where ${avatars.discordOnly} = 1 and not exists (select 1 from ${avatarAssignments} where ${avatarAssignments.avatarSlug} = ${avatars.slug} and ${avatarAssignments.userUuid} = ${users.uuid}))`,
      ),
    );
}

/**
 * Takes off the avatar `userUuid` wears if they may no longer use it. For writes elsewhere
 * that change what unlocks an avatar (a subscription ending sets `subscriptionLevel` to
 * null; a Discord e-mail removed): call it after the change. The user's rooms are told when
 * it does take one off.
 */
export async function dropLostAvatar(env: Env, userUuid: string): Promise<void> {
  const d = db(env);
  const row = await d
    .select({ avatarId: users.avatarId })
    .from(users)
    .where(eq(users.uuid, userUuid))
    .get();
  if (!row?.avatarId) return;
  const avatar =
    (await d.select().from(avatars).where(eq(avatars.slug, row.avatarId)).get()) ?? null;
  const cleared = await clearLostWearers(env, row.avatarId, avatar, userUuid).run();
  // The rooms they are in draw their default avatar now (issue 15).
  if (cleared.meta.changes) await tellUserRooms(env, userUuid);
}
