import { asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { db } from "../db/client";
import { crates, type CrateRow } from "../db/schema";
import type { Env } from "../env";
import type { Caller } from "../lib/auth";
import { forbidden, notFound } from "../lib/errors";
import { toCrateDto } from "../songs/dto";
import { SONG_MSG } from "../songs/messages";
import {
  findCrate,
  reloadCrate,
  runBatch,
  withCount,
  type CountedCrate,
} from "../crates/crate-repo";
import { MSG } from "./messages";

/**
 * The playlist-service's crate rules: who may read or change a crate, new crates and
 * copies, and lists with their song counts. Loading a crate, the special crates and song
 * positions are the crates domain's (workers/crates/crate-repo.ts), which the Room object
 * uses too. Routes call these and stay thin.
 */

/** The default name of an unnamed crate is this plus the lowest free number (seed 001). */
export const DEFAULT_NAME_PREFIX = "New Playlist #";

export const crateDto = (c: CountedCrate) => toCrateDto(c, c.songCount);

/** A fresh v4 uuid made by SQLite, for rows copied with INSERT ... SELECT (one per row). */
export const SQL_UUID = sql.raw(
  `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || ` +
    `substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`,
);

/**
 * A crate the caller may read: a public one, or their own. A private crate is 404 to
 * everyone else, so its existence is not revealed.
 */
export async function readableCrate(
  env: Env,
  crateUuid: string,
  who?: Caller,
): Promise<CountedCrate> {
  const row = await findCrate(env, crateUuid);
  if (!row || (!row.isPublic && row.userUuid !== who?.uuid)) throw notFound(SONG_MSG.crateNotFound);
  return row;
}

/** A crate the caller may change (seed 001: only owners edit, reorder, shuffle, copy or delete). */
export async function ownedCrate(env: Env, crateUuid: string, who: Caller): Promise<CountedCrate> {
  const row = await readableCrate(env, crateUuid, who);
  if (row.userUuid !== who.uuid) throw forbidden(SONG_MSG.crateForbidden);
  return row;
}

export const isSpecial = (c: CrateRow) => c.crateType !== null;

/**
 * The lowest N >= 1 such that the user has no crate named "New Playlist #N": the smallest
 * of 1 and every used N + 1 that is not itself used. Names like "#007" or "#1x" are not ours.
 */
function lowestFreeNumber(userUuid: string): SQL {
  const start = DEFAULT_NAME_PREFIX.length + 1;
  return sql`(with used(n) as (
      select cast(substr(crate_name, ${sql.raw(String(start))}) as integer) from crates
      where user_uuid = ${userUuid} and crate_name glob ${`${DEFAULT_NAME_PREFIX}[1-9]*`}
        and substr(crate_name, ${sql.raw(String(start))}) not glob '*[^0-9]*' and length(crate_name) <= ${DEFAULT_NAME_PREFIX.length + 9})
    select min(c) from (select 1 as c union all select n + 1 from used) where c not in (select n from used))`;
}

export interface CrateFields {
  crateName?: string;
  description?: string | null;
  isPublic?: boolean;
}

/**
 * A new ordinary crate. Without a name it is "New Playlist #N": the number is chosen and
 * the row written by one INSERT ... SELECT, a single statement (D1 runs statements one at a
 * time), so two creates at once can never both take the same N.
 */
export async function createCrate(
  env: Env,
  userUuid: string,
  f: CrateFields,
): Promise<CountedCrate> {
  const crateUuid = crypto.randomUUID();
  const name = f.crateName
    ? sql`${f.crateName}`
    : sql`${DEFAULT_NAME_PREFIX} || ${lowestFreeNumber(userUuid)}`;
  await db(env)
    .run(sql`insert into crates (crate_uuid, user_uuid, crate_name, description, is_public)
    select ${crateUuid}, ${userUuid}, ${name}, ${f.description ?? null}, ${f.isPublic === false ? 0 : 1}`);
  return (await findCrate(env, crateUuid))!;
}

/** Name, description and visibility. The special crates keep their names. */
export async function updateCrate(
  env: Env,
  crate: CountedCrate,
  f: CrateFields,
): Promise<CountedCrate> {
  if (f.crateName !== undefined && isSpecial(crate)) throw forbidden(MSG.specialLocked);
  const set = { ...f, updatedAt: Date.now() };
  await db(env).update(crates).set(set).where(eq(crates.id, crate.id));
  return reloadCrate(env, crate.id);
}

/** Deletes an ordinary crate and its songs in one batch. */
export async function deleteCrate(env: Env, crate: CrateRow): Promise<void> {
  if (isSpecial(crate)) throw forbidden(MSG.specialLocked);
  // The foreign key cascades too; deleting the songs explicitly does not depend on it.
  await runBatch(env, [
    sql`delete from crate_songs where crate_id = ${crate.id}`,
    db(env).delete(crates).where(eq(crates.id, crate.id)),
  ]);
}

/**
 * Copies a crate for `userUuid` as `crateName`: a new ordinary crate with the songs in the same order,
 * written in one batch (the songs are read and written by one INSERT ... SELECT, so the
 * copy is a snapshot even while the source is being edited).
 */
export async function copyCrate(
  env: Env,
  src: CrateRow,
  userUuid: string,
  crateName: string,
): Promise<CountedCrate> {
  const crateUuid = crypto.randomUUID();
  const newId = sql`(select id from crates where crate_uuid = ${crateUuid})`;
  await runBatch(env, [
    db(env).insert(crates).values({
      crateUuid,
      userUuid,
      crateName,
      description: src.description,
      isPublic: src.isPublic,
      thumbnails: src.thumbnails,
    }),
    sql`insert into crate_songs (crate_song_uuid, crate_id, song_id, position)
      select ${SQL_UUID}, ${newId}, song_id, position from crate_songs where crate_id = ${src.id} order by position, id`,
  ]);
  return (await findCrate(env, crateUuid))!;
}

/** A page of crates with their counts, and the total: `{ data, total }`. Special crates first, then newest. */
export async function listCrates(env: Env, where: SQL | undefined, limit: number, offset: number) {
  const d = db(env);
  const [rows, total] = await d.batch([
    d
      .select(withCount)
      .from(crates)
      .where(where)
      .orderBy(sql`${crates.crateType} is null`, desc(crates.createdAt), desc(crates.id))
      .limit(limit)
      .offset(offset),
    d.select({ n: count() }).from(crates).where(where),
  ]);
  return { data: rows.map(crateDto), total: total[0]?.n ?? 0 };
}

/** Every crate, oldest first, for other services (`take/skip`). */
export async function listAllCrates(env: Env, take: number, skip: number) {
  const d = db(env);
  const [rows, total] = await d.batch([
    d.select(withCount).from(crates).orderBy(asc(crates.id)).limit(take).offset(skip),
    d.select({ n: count() }).from(crates),
  ]);
  return { data: rows.map(crateDto), total: total[0]?.n ?? 0 };
}
