import { sql } from "drizzle-orm";
import type { SongRow } from "../db/schema";
import type { Env } from "../env";
import { runBatch } from "../crates/crate-repo";

/**
 * Genres, artists and albums (GET /api/v1/genres, /artists, /albums; the upload page's genre
 * suggestions) are filled from the songs that reach the listed catalogue: uploads once
 * VERIFIED and public (their form fields or ID3 tags), and verified track imports (what the
 * provider says). A private upload or an unverified import names nothing: its tags are the
 * owner's business, not the public lists'.
 *
 * One row per name ignoring case (the first spelling wins), written with `insert ... where
 * not exists` so two songs settling at once never make two rows (the unique name index
 * backs it up: `or ignore`). The song then points at its artist and album rows.
 */
export async function recordFacets(env: Env, song: SongRow): Promise<void> {
  if (song.status !== "VERIFIED" || !song.isPublic) return;
  const genre = song.genre?.trim();
  const artist = song.artistName.trim();
  const album = song.albumName?.trim();
  const stmts = [];
  if (genre)
    stmts.push(sql`insert or ignore into genres (name) select ${genre}
      where not exists (select 1 from genres where lower(name) = lower(${genre}))`);
  if (artist) {
    stmts.push(sql`insert or ignore into artists (name) select ${artist}
      where not exists (select 1 from artists where lower(name) = lower(${artist}))`);
    if (album)
      stmts.push(sql`insert or ignore into albums (name, artist_name, release_year) select ${album}, ${artist}, ${song.releaseYear}
        where not exists (select 1 from albums where lower(name) = lower(${album}) and lower(artist_name) = lower(${artist}))`);
    stmts.push(sql`update songs set
        artist_id = (select id from artists where lower(name) = lower(${artist}) order by id limit 1),
        album_id = ${album ? sql`(select id from albums where lower(name) = lower(${album}) and lower(artist_name) = lower(${artist}) order by id limit 1)` : null}
      where id = ${song.id}`);
  }
  if (stmts.length) await runBatch(env, stmts);
}

/** For callers that must not fail over the lists: a failure is logged, never thrown. */
export async function recordFacetsQuietly(env: Env, song: SongRow): Promise<void> {
  try {
    await recordFacets(env, song);
  } catch (err) {
    console.error("recording genre, artist and album failed", err);
  }
}
