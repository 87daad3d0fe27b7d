import { and, asc, eq, sql } from "drizzle-orm";
import { db } from "../../db/client";
import { avatars } from "../../db/schema";
import type { Env } from "../../env";

/**
 * The avatar a new account wears from its first minute (issue 20: no blank faces on the
 * floor or the stage). Only avatars everyone may use (avatar-rules.ts): PUBLIC and not
 * Discord-only, those with art first; which one is read from the account's uuid, so a floor
 * of newcomers is not one face repeated. Null when there is none (the room then draws the
 * slug pattern). Accounts made before this got theirs from migration 0028.
 *
 * @example
 *   const avatarId = await defaultAvatarFor(env, uuid); // "night-cans"
 */
export async function defaultAvatarFor(env: Pick<Env, "DB">, uuid: string): Promise<string | null> {
  const free = await db(env)
    .select({ slug: avatars.slug })
    .from(avatars)
    .where(and(eq(avatars.status, "PUBLIC"), eq(avatars.discordOnly, false)))
    .orderBy(sql`${avatars.imageKey} IS NULL`, asc(avatars.slug))
    .limit(MAX_CHOICES)
    .all();
  if (!free.length) return null;
  return free[spread(uuid) % free.length].slug;
}

/** Enough variety; the list is read on every sign-up, so it stays short. */
const MAX_CHOICES = 24;

/** A small stable number from a uuid (FNV-1a over its characters). */
function spread(uuid: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < uuid.length; i++) h = Math.imul(h ^ uuid.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
