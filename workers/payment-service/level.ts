import { eq, getTableColumns } from "drizzle-orm";
import { db } from "../db/client";
import { users, type UserRow } from "../db/schema";
import type { Env } from "../env";
import { dropLostAvatar } from "../merch-service/avatars/avatar-rules";
import { levelNow, liveLevelSql } from "./level-rule";

/**
 * `users.subscriptionLevel` is a cache of level-rule.ts, never set by hand. It is rewritten
 * after every subscription change, and again whenever a read finds it behind the rule (an
 * endDate passed with no event): the caller's own account on every authenticated request
 * (`accountNow`, used by lib/auth.ts) and the subscription routes. A subscriber-only avatar
 * the user can no longer use comes off with it (avatar-rules.ts).
 */
export async function refreshLevel(
  env: Env,
  userUuid: string,
  now = Date.now(),
): Promise<string | null> {
  const level = await levelNow(env, userUuid, now);
  await db(env)
    .update(users)
    .set({ subscriptionLevel: level })
    .where(eq(users.uuid, userUuid))
    .run();
  if (!level) await dropLostAvatar(env, userUuid);
  return level;
}

/**
 * The account row with `subscriptionLevel` as the rule has it now: one read (the level is a
 * subquery beside the row); only when the cache was behind, the cache is rewritten and the
 * row read again (the avatar may have come off).
 */
export async function accountNow(
  env: Env,
  uuid: string,
  now = Date.now(),
): Promise<UserRow | undefined> {
  const row = await db(env)
    .select({ ...getTableColumns(users), liveLevel: liveLevelSql(users.uuid, now) })
    .from(users)
    .where(eq(users.uuid, uuid))
    .get();
  if (!row) return undefined;
  const { liveLevel, ...user } = row;
  if ((user.subscriptionLevel ?? null) === (liveLevel ?? null)) return user;
  await refreshLevel(env, uuid, now);
  return db(env).select().from(users).where(eq(users.uuid, uuid)).get();
}
