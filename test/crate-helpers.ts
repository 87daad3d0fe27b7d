import { env } from "cloudflare:test";
import { asc, eq } from "drizzle-orm";
import { expect } from "vitest";
import { db } from "../workers/db/client";
import { crates, crateSongs, songs, type SongRow } from "../workers/db/schema";
import { newShortId } from "../workers/songs/dto";
import { call, type CallInit } from "./helpers";

/** Factories and checks for the crate and catalogue tests (playlist-service). */

/** Calls `/api/playlist-service<path>`. */
export const pl = (path: string, init?: CallInit) => call("playlist-service", path, init);

let n = 0;
/** A song written straight to D1: a listed catalogue song unless `over` says otherwise. */
export async function seedSong(over: Partial<typeof songs.$inferInsert> = {}): Promise<SongRow> {
  const tag = `${Date.now().toString(36)}${(n++).toString(36)}`;
  return db(env)
    .insert(songs)
    .values({
      songId: crypto.randomUUID(),
      songShortId: newShortId(),
      trackName: `Track ${tag}`,
      artistName: `Artist ${tag}`,
      duration: 200,
      status: "VERIFIED",
      isPublic: true,
      ...over,
    })
    .returning()
    .get();
}

export const seedSongs = (count: number, over: Partial<typeof songs.$inferInsert> = {}) =>
  Promise.all(Array.from({ length: count }, () => seedSong(over)));

/** Creates a crate through the route and answers its CrateDto. */
export async function newCrate(token: string, body: Record<string, unknown> = {}) {
  const res = await pl("/crate", { body, token });
  if (res.status !== 201)
    throw new Error(`crate create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Adds songs through the route (appending, in order); answers the CrateSongDtos. */
export async function addSongs(token: string, base: string, list: SongRow[]) {
  const out = [];
  for (const s of list) {
    const res = await pl(`${base}/songs`, { body: { songId: s.songId }, token });
    if (res.status !== 201)
      throw new Error(`add failed: ${res.status} ${JSON.stringify(res.body)}`);
    out.push(res.body);
  }
  return out;
}

/** The crate's rows straight from D1, in position order. */
export async function crateRows(crateUuid: string) {
  const crate = await db(env).select().from(crates).where(eq(crates.crateUuid, crateUuid)).get();
  if (!crate) return { crate, rows: [] };
  const rows = await db(env)
    .select({
      crateSongUuid: crateSongs.crateSongUuid,
      songId: crateSongs.songId,
      position: crateSongs.position,
    })
    .from(crateSongs)
    .where(eq(crateSongs.crateId, crate.id))
    .orderBy(asc(crateSongs.position), asc(crateSongs.id))
    .all();
  return { crate, rows };
}

/** Asserts the crate's positions are exactly 0..n-1 (integers, no gaps, no repeats). */
export async function expectDense(crateUuid: string) {
  const { rows } = await crateRows(crateUuid);
  expect(rows.map((r) => r.position)).toEqual(rows.map((_, i) => i));
  return rows;
}

/** The song uuids of a crate in order, through the API. */
export async function songOrder(token: string, base: string) {
  const res = await pl(`${base}/songs?limit=100`, { token });
  expect(res.status).toBe(200);
  return (res.body.data as { songId: string }[]).map((s) => s.songId);
}
