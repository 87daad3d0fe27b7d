import { desc, eq, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { db } from "../db/client";
import { blockedUsers } from "../db/schema";
import type { Env } from "../env";

/**
 * Blocks, as other code asks about them (the room's chat filter, searches of people, the
 * graph's own rules). A block is one row `blocker -> blocked`; "either way" is both rows.
 *
 * For the room integration: the room gateway reads the caller's list (`blockListQuery`, at
 * most MAX_BLOCKS) in its connect batch, and tellUserRooms, which the block and unblock
 * routes call after their write, pushes the new list to the rooms the user is in; the room
 * keeps it per user (durable/room/blocks.ts) and hides those users' chat and animations.
 */

/** The most users one account may block: the whole list travels to every room they join. */
export const MAX_BLOCKS = 1000;

/** Whether `a` blocked `b` or `b` blocked `a`. */
export async function blockedEitherWay(env: Env, a: string, b: string): Promise<boolean> {
  const row = await db(env).get<{ one: number } | undefined>(
    sql`select 1 as one from blocked_users
        where (blocker_uuid = ${a} and blocked_uuid = ${b}) or (blocker_uuid = ${b} and blocked_uuid = ${a})
        limit 1`,
  );
  return !!row;
}

/** The query of `blocksOf`, for a caller's own D1 batch (`d` is that batch's db). */
export const blockListQuery = (d: ReturnType<typeof db>, uuid: string) =>
  d
    .select({ uuid: blockedUsers.blockedUuid })
    .from(blockedUsers)
    .where(eq(blockedUsers.blockerUuid, uuid))
    .orderBy(desc(blockedUsers.createdAt))
    .limit(MAX_BLOCKS);

/** The uuids `uuid` has blocked (at most MAX_BLOCKS), newest first. */
export async function blocksOf(env: Env, uuid: string): Promise<string[]> {
  const rows = await db(env)
    .select({ uuid: blockedUsers.blockedUuid })
    .from(blockedUsers)
    .where(eq(blockedUsers.blockerUuid, uuid))
    .orderBy(sql`${blockedUsers.createdAt} desc`)
    .limit(MAX_BLOCKS)
    .all();
  return rows.map((r) => r.uuid);
}

/**
 * A SQL condition: no block either way between `viewer` and the uuid in `person` (a column
 * or expression). Two primary-key probes per row; for filtering lists and searches of people.
 *
 * @example d.select().from(users).where(and(like(users.nickname, q), notBlockedWith(me, users.uuid)))
 */
export const notBlockedWith = (viewer: string, person: SQLiteColumn | SQL): SQL =>
  sql`not exists (select 1 from blocked_users b where (b.blocker_uuid = ${viewer} and b.blocked_uuid = ${person}) or (b.blocker_uuid = ${person} and b.blocked_uuid = ${viewer}))`;
