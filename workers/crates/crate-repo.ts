/**
 * Crates in D1 as every caller needs them: the playlist-service's routes and the Room object
 * (durable/room/library.ts: the queue, its rotation, the likes crate) import these, and
 * nobody restates them. Loading a crate with its song count, the special crates, batches,
 * which songs a user may see, and song positions inside a crate. Who may read or change a
 * crate, and crate lists, are the playlist-service's (playlist-service/crate-repo.ts).
 *
 * Invariants:
 * - The queue and the likes crate exist at most once per user (unique index
 *   crates_user_special); `specialCrate` makes them on first use, race-free.
 * - Song positions in a crate are dense, 0..n-1. D1 has no interactive transactions, so a
 *   change never writes numbers computed from an earlier read: every statement computes its
 *   positions from the rows as they are when it runs, all statements of one change go in one
 *   `db.batch` (a transaction), and each multi-row change ends with `renumber`, which
 *   rewrites positions as 0..n-1 in their current order. However changes interleave, a crate
 *   can never hold a duplicate or missing position, and no song is lost.
 * - The crate's currentPosition follows its song: whatever moves, the same song stays
 *   current (when the current song itself is removed, the next one takes its place).
 */
import { and, asc, count, eq, getTableColumns, is, isNull, lt, or, sql, SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { SPECIAL_CRATES, type SpecialCrate } from "../../shared/songs";
import { db } from "../db/client";
import { crateSongs, crates, songs, type CrateRow, type SongRow } from "../db/schema";
import type { Env } from "../env";
import { CRATE_MSG } from "./messages";
import { ApiError, notFound } from "../lib/errors";
import { toCrateSongDto } from "../songs/dto";
import { SONG_MSG } from "../songs/messages";

/** Messages of ours that SONG_MSG does not have. */
/** Songs in the crate, as a correlated subquery: a list of crates is counted in one query, not one per crate. */
// Spelled out: drizzle writes a column of the one table selected from without its table
// name, and a bare "id" here would be crate_songs.id.
const songCount =
  sql<number>`(select count(*) from crate_songs where crate_songs.crate_id = crates.id)`.mapWith(
    Number,
  );
export const withCount = { ...getTableColumns(crates), songCount };
export type CountedCrate = CrateRow & { songCount: number };

const dialect = new SQLiteAsyncDialect();
/** Raw SQL, or a drizzle query builder (anything with toSQL). */
export type Statement = SQL | { toSQL(): { sql: string; params: unknown[] } };

/**
 * Runs statements as one D1 batch: one transaction, all or nothing, and no other write in
 * between. (drizzle's own batch cannot carry raw SQL with parameters, so this binds them.)
 */
export function runBatch(env: Env, items: Statement[]): Promise<D1Result[]> {
  return env.DB.batch(
    items.map((q) => {
      const built = is(q, SQL) ? dialect.sqlToQuery(q) : (q as Exclude<Statement, SQL>).toSQL();
      return env.DB.prepare(built.sql).bind(...built.params);
    }),
  );
}

async function findOne(env: Env, where: SQL | undefined): Promise<CountedCrate | undefined> {
  return db(env).select(withCount).from(crates).where(where).get();
}

export const findCrate = (env: Env, crateUuid: string) =>
  findOne(env, eq(crates.crateUuid, crateUuid));

/** Reloads a crate (with its count) after a change. */
export async function reloadCrate(env: Env, id: number): Promise<CountedCrate> {
  const row = await findOne(env, eq(crates.id, id));
  if (!row) throw notFound(SONG_MSG.crateNotFound); // deleted meanwhile by its owner
  return row;
}

/**
 * The user's queue or likes crate, made on first use. Many first uses can race: the
 * unique index crates_user_special (user_uuid, crate_type) lets one insert win and the
 * others do nothing, and every caller then reads the one row. Special crates are private:
 * the queue and the likes are the owner's own.
 */
export async function specialCrate(
  env: Env,
  userUuid: string,
  kind: SpecialCrate,
): Promise<CountedCrate> {
  const { crateType, crateName } = SPECIAL_CRATES[kind];
  const where = and(eq(crates.userUuid, userUuid), eq(crates.crateType, crateType));
  const found = await findOne(env, where);
  if (found) return found;
  await db(env)
    .insert(crates)
    .values({ crateUuid: crypto.randomUUID(), userUuid, crateName, crateType, isPublic: false })
    .onConflictDoNothing();
  return (await findOne(env, where))!;
}

/** Songs a user may put in a crate or open: public verified ones, the catalogue, and their own uploads. */
export const songVisibleTo = (userUuid: string | undefined) =>
  or(
    and(eq(songs.status, "VERIFIED"), eq(songs.isPublic, true)),
    isNull(songs.ownerUuid),
    userUuid ? eq(songs.ownerUuid, userUuid) : undefined,
  );

/** 400 for a current position outside 0..n-1 (0 when empty). */
export function positionRangeError(n: number) {
  return new ApiError(400, CRATE_MSG.positionRange(n));
}

// ---- song positions ----------------------------------------------------------------------

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
  /** Skip items whose crate song uuid exists (a background import's redelivery): no duplicates. */
  o: { idempotent?: boolean } = {},
) {
  const list = JSON.stringify(items.map((i) => ({ u: i.crateSongUuid, s: i.songId })));
  await runBatch(env, [
    sql`insert ${o.idempotent ? sql`or ignore ` : sql``}into crate_songs (crate_song_uuid, crate_id, song_id, position)
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
