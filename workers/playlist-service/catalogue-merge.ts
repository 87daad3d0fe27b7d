import { eq, sql, type SQL } from "drizzle-orm";
import { nameKey } from "../../shared/songs";
import type { ProviderSong } from "../adapters/music";
import { db } from "../db/client";
import { songs, type SongRow } from "../db/schema";
import type { Env } from "../env";
import { runBatch } from "../crates/crate-repo";

/**
 * A second verified import of a catalogue song enriches it (issue 18): provider ids,
 * thumbnails and links it lacks are added (the ones it has stay: the first verified answer
 * is not overwritten by a later one), and empty fields are filled. One UPDATE with
 * json_patch and coalesce, so two imports merging at once both land (no read-modify-write).
 * Only a provider's answer is merged, never a client's hints.
 */
export async function mergeInto(env: Env, row: SongRow, said: ProviderSong): Promise<SongRow> {
  const d = db(env);
  const merged = await d
    .update(songs)
    .set({
      musicProviders: sql`json_patch(${JSON.stringify(said.musicProviders)}, music_providers)`,
      thumbnails: sql`json_patch(${JSON.stringify(said.thumbnails)}, thumbnails)`,
      links: sql`json_patch(${JSON.stringify(said.links)}, links)`,
      previews: sql`case when json_array_length(previews) = 0 then ${JSON.stringify(said.previews)} else previews end`,
      isrc: sql`coalesce(nullif(isrc, ''), ${said.isrc})`,
      albumName: sql`coalesce(nullif(album_name, ''), ${said.albumName || null})`,
      genre: sql`coalesce(nullif(genre, ''), ${said.genre || null})`,
      releaseYear: sql`coalesce(release_year, ${said.releaseYear ?? null})`,
      duration: sql`case when duration = 0 then ${said.duration} else duration end`,
      nameKey: sql`coalesce(name_key, ${nameKey(row.artistName, row.trackName)})`,
      updatedAt: Date.now(),
    })
    .where(eq(songs.id, row.id))
    .returning()
    .get();
  return merged ?? row;
}

/**
 * Once a song is verified, the importer's own unverified copy of it (kept when the provider
 * could not be asked) gives way: their crates now hold the catalogue song, and the copy is
 * deleted. Found by the provider ids the provider confirmed, never by names alone.
 */
export async function adoptUnverified(
  env: Env,
  ownerUuid: string,
  song: SongRow,
  idTerms: SQL[],
): Promise<void> {
  if (!idTerms.length) return;
  const copies = await db(env)
    .select({ id: songs.id })
    .from(songs)
    .where(
      sql`owner_uuid = ${ownerUuid} and status = 'UNVERIFIED' and json_extract(music_providers, '$.uploadService') is null and (${sql.join(idTerms, sql` or `)})`,
    )
    .limit(20)
    .all();
  const ids = JSON.stringify(copies.map((c) => c.id).filter((id) => id !== song.id));
  if (ids === "[]") return;
  await runBatch(env, [
    sql`update crate_songs set song_id = ${song.id} where song_id in (select value from json_each(${ids}))`,
    sql`delete from songs where id in (select value from json_each(${ids})) and status = 'UNVERIFIED'`,
  ]);
}
