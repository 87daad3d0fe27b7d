import { and, asc, count, eq, lt, sql, type SQL } from "drizzle-orm";
import { db } from "../db/client";
import { crateSongs, crates, songs, type CrateRow, type SongRow } from "../db/schema";
import type { Env } from "../env";
import { notFound } from "../lib/errors";
import { toCrateSongDto } from "../songs/dto";
import { SONG_MSG } from "../songs/messages";
import { positionRangeError, runBatch, songVisibleTo, type Statement } from "./crate-repo";

/**
 * Song positions in a crate are dense, 0..n-1. D1 has no interactive transactions, so a
 * change never writes numbers computed from an earlier read: every statement computes its
 * positions from the rows as they are when it runs, all statements of one change go in one
 * `db.batch` (a transaction), and each multi-row change ends with `renumber`, which
 * rewrites positions as 0..n-1 in their current order. However changes interleave, a crate
 * can never hold a duplicate or missing position, and no song is lost.
 *
 * The crate's currentPosition follows its song: whatever moves, the same song stays
 * current (when the current song itself is removed, the next one takes its place).
 */

/** Rewrites the crate's positions as 0..n-1 in (position, id) order; rows already right are not touched. */
const renumber = (crateId: number | SQL) =>
  sql`update crate_songs set position = r.rn
    from (select id, row_number() over (order by position, id) - 1 as rn from crate_songs where crate_id = ${crateId}) as r
    where crate_songs.id = r.id and crate_songs.position is not r.rn`;

const songsIn = (crateId: number) =>
  sql`(select count(*) from crate_songs where crate_id = ${crateId})`;
const touch = (env: Env, crateId: number) =>
  db(env).update(crates).set({ updatedAt: Date.now() }).where(eq(crates.id, crateId));

/** One crate song with its song, as the API shows it. */
async function crateSongDto(env: Env, crateId: number, crateSongUuid: string) {
  const row = await db(env)
    .select({ song: songs, cs: crateSongs })
    .from(crateSongs)
    .innerJoin(songs, eq(songs.id, crateSongs.songId))
    .where(and(eq(crateSongs.crateId, crateId), eq(crateSongs.crateSongUuid, crateSongUuid)))
    .get();
  return row && toCrateSongDto(row.song, row.cs);
}

/**
 * A page of the crate's songs in order, and how many it holds, as `viewer` may see them: a
 * song its uploader has since made private, taken down or not yet verified is left out
 * (it stays in the crate, so it comes back if it is listed again). Positions are the
 * crate's own, so they may skip the hidden ones.
 */
export async function listCrateSongs(
  env: Env,
  crateId: number,
  viewer: string | undefined,
  limit: number,
  offset: number,
) {
  const d = db(env);
  const where = and(eq(crateSongs.crateId, crateId), songVisibleTo(viewer));
  // Not d.batch: D1 answers a batch with objects keyed by column name, which loses the
  // join's repeated names (id, created_at).
  const [rows, total] = await Promise.all([
    d
      .select({ song: songs, cs: crateSongs })
      .from(crateSongs)
      .innerJoin(songs, eq(songs.id, crateSongs.songId))
      .where(where)
      .orderBy(asc(crateSongs.position))
      .limit(limit)
      .offset(offset)
      .all(),
    d
      .select({ n: count() })
      .from(crateSongs)
      .innerJoin(songs, eq(songs.id, crateSongs.songId))
      .where(where)
      .get(),
  ]);
  return { data: rows.map((r) => toCrateSongDto(r.song, r.cs)), total: total?.n ?? 0 };
}

/** How many of the crate's songs `viewer` sees before `position`: where that position falls in their pages. */
export async function visibleBefore(
  env: Env,
  crateId: number,
  viewer: string | undefined,
  position: number,
): Promise<number> {
  const row = await db(env)
    .select({ n: count() })
    .from(crateSongs)
    .innerJoin(songs, eq(songs.id, crateSongs.songId))
    .where(
      and(
        eq(crateSongs.crateId, crateId),
        lt(crateSongs.position, position),
        songVisibleTo(viewer),
      ),
    )
    .get();
  return row?.n ?? 0;
}

/**
 * Adds a song at the end (`append`) or at the top, shifting the others down one (and the
 * current position with them). With `once` (the likes crate) a song already there is not
 * added again: the existing entry is answered with `added: false`.
 */
export async function addSong(
  env: Env,
  crate: CrateRow,
  song: SongRow,
  append: boolean,
  once = false,
) {
  const d = db(env);
  const uuid = crypto.randomUUID();
  const absent = once
    ? sql`not exists (select 1 from crate_songs where crate_id = ${crate.id} and song_id = ${song.id})`
    : sql`1`;
  const insert = (position: SQL) =>
    sql`insert into crate_songs (crate_song_uuid, crate_id, song_id, position) select ${uuid}, ${crate.id}, ${song.id}, ${position} where ${absent}`;
  if (append) {
    // The count is read by the insert itself: it is the next free position.
    await runBatch(env, [insert(songsIn(crate.id)), touch(env, crate.id)]);
  } else {
    await runBatch(env, [
      sql`update crates set current_position = current_position + 1 where id = ${crate.id} and ${absent}
        and exists (select 1 from crate_songs where crate_id = ${crate.id})`,
      sql`update crate_songs set position = position + 1 where crate_id = ${crate.id} and ${absent}`,
      insert(sql`0`),
      renumber(crate.id),
      touch(env, crate.id),
    ]);
  }
  const added = await crateSongDto(env, crate.id, uuid);
  if (added) return { song: added, added: true };
  const existing = await d
    .select({ u: crateSongs.crateSongUuid })
    .from(crateSongs)
    .where(and(eq(crateSongs.crateId, crate.id), eq(crateSongs.songId, song.id)))
    .get();
  const dto = existing && (await crateSongDto(env, crate.id, existing.u));
  if (!dto) throw notFound(SONG_MSG.crateNotFound); // the crate was deleted meanwhile
  return { song: dto, added: false };
}

/**
 * Appends songs (ids of `songs` rows) in the given order, in one batch, with a uuid each;
 * `extra` statements (an import status) commit with them.
 */
export async function appendSongs(
  env: Env,
  crateId: number,
  items: { crateSongUuid: string; songId: number }[],
  extra: Statement[] = [],
) {
  const list = JSON.stringify(items.map((i) => ({ u: i.crateSongUuid, s: i.songId })));
  await runBatch(env, [
    sql`insert into crate_songs (crate_song_uuid, crate_id, song_id, position)
      select json_extract(j.value, '$.u'), ${crateId}, json_extract(j.value, '$.s'), ${songsIn(crateId)} + j.key from json_each(${list}) as j
      where exists (select 1 from crates where id = ${crateId}) order by j.key`, // a crate deleted meanwhile gets nothing (no FK failure)
    renumber(crateId),
    touch(env, crateId),
    ...extra,
  ]);
}

/**
 * Removes the listed crate songs (unknown uuids are ignored) and closes the gaps. The
 * current position drops by the number of removed songs before it, so the same song stays
 * current; if that song went, the next one (or the last) becomes current.
 */
export async function removeSongs(
  env: Env,
  crateId: number,
  crateSongUuids: string[],
): Promise<number> {
  const list = JSON.stringify(crateSongUuids);
  const kept = sql`crate_id = ${crateId} and crate_song_uuid not in (select value from json_each(${list}))`;
  const [, removed] = await runBatch(env, [
    sql`update crates set updated_at = ${Date.now()}, current_position = max(0, min(
        (select count(*) from crate_songs where ${kept} and position < crates.current_position),
        (select count(*) from crate_songs where ${kept}) - 1))
      where id = ${crateId}`,
    sql`delete from crate_songs where crate_id = ${crateId} and crate_song_uuid in (select value from json_each(${list}))`,
    renumber(crateId),
  ]);
  return removed.meta.changes ?? 0;
}

/** Empties the crate (the queue's and likes' clear). */
export async function clearSongs(env: Env, crateId: number): Promise<number> {
  const d = db(env);
  const [removed] = await runBatch(env, [
    sql`delete from crate_songs where crate_id = ${crateId}`,
    d
      .update(crates)
      .set({ currentPosition: 0, updatedAt: Date.now() })
      .where(eq(crates.id, crateId)),
  ]);
  return removed.meta.changes ?? 0;
}

/**
 * Moves one song to `newPosition`, clamped to 0..n-1; the songs between shift by one. The
 * target is computed inside each statement from the crate as it is then. The moved song is
 * given a position half a step past its neighbour and `renumber` turns that into integers,
 * so one statement moves it whatever the others are doing. Answers its new position.
 */
export async function moveSong(
  env: Env,
  crateId: number,
  crateSongUuid: string,
  newPosition: number,
): Promise<number> {
  const d = db(env);
  const target = sql`max(0, min(${newPosition}, ${songsIn(crateId)} - 1))`;
  const from = sql`(select position from crate_songs where crate_id = ${crateId} and crate_song_uuid = ${crateSongUuid})`;
  await runBatch(env, [
    sql`with m(f, t) as (select ${from}, ${target})
      update crates set updated_at = ${Date.now()}, current_position = (select case
          when current_position = f then t
          when f < current_position and current_position <= t then current_position - 1
          when t <= current_position and current_position < f then current_position + 1
          else current_position end from m)
      where id = ${crateId} and ${from} is not null`,
    sql`with m(t) as (select ${target})
      update crate_songs set position = (select case when t < position then t - 0.5 when t > position then t + 0.5 else position end from m)
      where crate_id = ${crateId} and crate_song_uuid = ${crateSongUuid}`,
    renumber(crateId),
  ]);
  const row = await d
    .select({ p: crateSongs.position })
    .from(crateSongs)
    .where(and(eq(crateSongs.crateId, crateId), eq(crateSongs.crateSongUuid, crateSongUuid)))
    .get();
  if (!row) throw notFound(SONG_MSG.crateSongNotFound);
  return row.p;
}

/** A uniformly random permutation of 0..n-1 (Fisher–Yates with unbiased random integers). */
export function randomPermutation(n: number): number[] {
  const p = Array.from({ length: n }, (_, i) => i);
  const buf = new Uint32Array(1);
  for (let i = n - 1; i > 0; i--) {
    // Rejection sampling: drop the top values that would make `% (i + 1)` favour small numbers.
    const limit = 2 ** 32 - (2 ** 32 % (i + 1));
    let r: number;
    do r = crypto.getRandomValues(buf)[0];
    while (r >= limit);
    const j = r % (i + 1);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

/**
 * Shuffles the crate: a uniform permutation, written as one UPDATE from a uuid → position
 * map. A song added meanwhile keeps its place relative to the shuffled ones (renumber).
 */
export async function shuffleSongs(env: Env, crateId: number): Promise<void> {
  const d = db(env);
  const rows = await d
    .select({ u: crateSongs.crateSongUuid })
    .from(crateSongs)
    .where(eq(crateSongs.crateId, crateId))
    .orderBy(asc(crateSongs.position))
    .all();
  const perm = randomPermutation(rows.length);
  const map = JSON.stringify(Object.fromEntries(rows.map((r, i) => [r.u, perm[i]])));
  await runBatch(env, [
    sql`update crates set updated_at = ${Date.now()}, current_position = coalesce((select j.value from crate_songs cs join json_each(${map}) as j on j.key = cs.crate_song_uuid
        where cs.crate_id = crates.id and cs.position = crates.current_position), current_position)
      where id = ${crateId}`,
    sql`update crate_songs set position = (select j.value from json_each(${map}) as j where j.key = crate_songs.crate_song_uuid)
      where crate_id = ${crateId} and crate_song_uuid in (select j.key from json_each(${map}) as j)`,
    renumber(crateId),
  ]);
}

/** Sets the current position: 0..n-1, or 0 for an empty crate; checked by the UPDATE itself. */
export async function setCurrentPosition(
  env: Env,
  crateId: number,
  position: number,
): Promise<void> {
  const d = db(env);
  const done = await d
    .update(crates)
    .set({ currentPosition: position, updatedAt: Date.now() })
    .where(and(eq(crates.id, crateId), sql`(${position} < ${songsIn(crateId)} or ${position} = 0)`))
    .returning({ id: crates.id })
    .get();
  if (!done)
    throw positionRangeError(
      (await d.select({ n: count() }).from(crateSongs).where(eq(crateSongs.crateId, crateId)).get())
        ?.n ?? 0,
    );
}
