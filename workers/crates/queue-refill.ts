/**
 * "Refill my queue from crate X" (issue 20), the D1 side: the choice (queue_refills) and
 * the refill itself. The room calls `refillQueue` when a DJ's queue has nothing left to
 * play; the playlist-service's /crate/queue/refill routes read and set the choice.
 *
 * Invariants:
 * - Only the owner's own ordinary crate can be chosen (not the queue or likes, not someone
 *   else's), and deleting it deletes the choice (foreign key, on delete cascade).
 * - A refill appends at most REFILL_SONGS songs, only songs the DJ may still see
 *   (songVisibleTo), in the crate's order, and never a song the queue already holds: a
 *   refill run twice for the same empty turn adds nothing the second time.
 */
import { and, asc, eq, isNull, notInArray } from "drizzle-orm";
import { db } from "../db/client";
import { crates, crateSongs, queueRefills, songs } from "../db/schema";
import type { Env } from "../env";
import { appendSongs, songVisibleTo, specialCrate } from "./crate-repo";

/** Songs one refill adds at most (an hour of music, more or less). */
export const REFILL_SONGS = 15;

/** The crate a user refills their queue from: `{ crateUuid, crateName }`, or null. */
export async function refillChoice(
  env: Env,
  userUuid: string,
): Promise<{ crateUuid: string; crateName: string; crateId: number } | null> {
  const row = await db(env)
    .select({ crateUuid: crates.crateUuid, crateName: crates.crateName, crateId: crates.id })
    .from(queueRefills)
    .innerJoin(crates, eq(crates.id, queueRefills.crateId))
    .where(and(eq(queueRefills.userUuid, userUuid), eq(crates.userUuid, userUuid)))
    .get();
  return row ?? null;
}

/** Sets the choice to the caller's own ordinary crate; answers false when it is not theirs. */
export async function setRefillChoice(
  env: Env,
  userUuid: string,
  crateUuid: string,
): Promise<boolean> {
  const crate = await db(env)
    .select({ id: crates.id })
    .from(crates)
    .where(
      and(eq(crates.crateUuid, crateUuid), eq(crates.userUuid, userUuid), isNull(crates.crateType)),
    )
    .get();
  if (!crate) return false;
  const now = Date.now();
  await db(env)
    .insert(queueRefills)
    .values({ userUuid, crateId: crate.id, updatedAt: now })
    .onConflictDoUpdate({
      target: queueRefills.userUuid,
      set: { crateId: crate.id, updatedAt: now },
    });
  return true;
}

export async function clearRefillChoice(env: Env, userUuid: string): Promise<void> {
  await db(env).delete(queueRefills).where(eq(queueRefills.userUuid, userUuid));
}

/**
 * Copies songs from the user's chosen crate to the end of their queue, skipping songs the
 * queue holds and those in `skip` (played here too recently to play now). Answers how many
 * were added (0: no choice, or nothing new to add).
 */
export async function refillQueue(env: Env, userUuid: string, skip: Set<string>): Promise<number> {
  const choice = await refillChoice(env, userUuid);
  if (!choice) return 0;
  const queue = await specialCrate(env, userUuid, "queue");
  const held = db(env)
    .select({ id: crateSongs.songId })
    .from(crateSongs)
    .where(eq(crateSongs.crateId, queue.id));
  const rows = await db(env)
    .select({ id: songs.id, songId: songs.songId })
    .from(crateSongs)
    .innerJoin(songs, eq(songs.id, crateSongs.songId))
    .where(
      and(
        eq(crateSongs.crateId, choice.crateId),
        songVisibleTo(userUuid),
        notInArray(crateSongs.songId, held),
      ),
    )
    .orderBy(asc(crateSongs.position), asc(crateSongs.id))
    .limit(REFILL_SONGS + skip.size)
    .all();
  const seen = new Set<number>();
  const items = rows
    .filter((r) => !skip.has(r.songId) && !seen.has(r.id) && seen.add(r.id))
    .slice(0, REFILL_SONGS)
    .map((r) => ({ crateSongUuid: crypto.randomUUID(), songId: r.id }));
  if (items.length) await appendSongs(env, queue.id, items);
  return items.length;
}
