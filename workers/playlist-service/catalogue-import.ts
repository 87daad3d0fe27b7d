import { and, asc, eq, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import {
  IMPORTABLE_PROVIDERS,
  MUSIC_PROVIDERS,
  songsMatch,
  type MusicProvider,
  type ProviderIds,
} from "../../shared/songs";
import { db } from "../db/client";
import { songs, type SongRow } from "../db/schema";
import type { Env } from "../env";
import type { Caller } from "../lib/auth";
import { badRequest, isUniqueViolation, notFound } from "../lib/errors";
import { newShortId } from "../songs/dto";
import { SONG_MSG } from "../songs/messages";
import { songVisibleTo } from "../crates/crate-repo";

/**
 * Track import (seed 001, "Import needs a song with at least one id from seven-digital,
 * soundCloudPublic, spotify, apple or uploadService"): a song from a provider becomes a
 * catalogue song (owner null, VERIFIED, public), or is found among the ones we have by the
 * matching rule, so importing the same song twice, even at once, makes one row.
 */

const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .max(max, `${name} must be at most ${max} characters`);
const known = new Set<string>(MUSIC_PROVIDERS);

/** A provider → string map; unknown providers and empty values are dropped, not refused. */
const providerMap = (name: string, value: z.ZodType<string>) =>
  z
    .record(z.string(), value.nullable().optional(), { error: `${name} must be an object` })
    .optional()
    .transform(
      (m) =>
        Object.fromEntries(
          Object.entries(m ?? {}).filter(([k, v]) => known.has(k) && v),
        ) as Partial<Record<MusicProvider, string>>,
    );

const providerId = z
  .union([z.string(), z.number()], { error: "provider ids must be strings" })
  .transform((v) => String(v).trim())
  .pipe(z.string().max(200, "provider ids must be at most 200 characters"));
const url = z
  .string({ error: "urls must be strings" })
  .trim()
  .max(2048, "urls must be at most 2048 characters");

export const importSongSchema = z.object({
  trackName: text("trackName", 300).min(1, "trackName should not be empty"),
  artistName: text("artistName", 300).min(1, "artistName should not be empty"),
  duration: z
    .number({ error: "duration must be a number of seconds" })
    .min(0, "duration must not be negative")
    .max(86_400, "duration must be at most 86400 seconds")
    .transform(Math.round),
  // ISRCs are kept as 12 upper-case characters without dashes.
  isrc: text("isrc", 20)
    .regex(/^[A-Za-z0-9-]*$/, "isrc must hold letters, digits and dashes only")
    .transform((s) => s.replace(/-/g, "").toUpperCase() || null)
    .nullable()
    .optional()
    .transform((s) => s ?? null),
  musicProviders: providerMap("musicProviders", providerId),
  thumbnails: providerMap("thumbnails", url),
  links: providerMap("links", url),
  previews: z
    .array(url, { error: "previews must be a list of urls" })
    .max(10, "previews must have at most 10 items")
    .optional(),
  genre: text("genre", 100).nullable().optional(),
  albumName: text("albumName", 300).nullable().optional(),
  releaseYear: z
    .number({ error: "releaseYear must be a number" })
    .int("releaseYear must be an integer")
    .min(1000)
    .max(2100)
    .nullable()
    .optional(),
  explicit: z.boolean({ error: "explicit must be a boolean" }).optional(),
});
export type ImportSong = z.output<typeof importSongSchema>;

/**
 * SQL lookups, each served by an index (migration 0003): the same ISRC, the same id at an
 * importable provider. The expressions must stay exactly as in the indexes.
 */
function idTerms(s: ImportSong): SQL[] {
  const terms: SQL[] = [];
  if (s.isrc) terms.push(sql`${songs.isrc} = ${s.isrc}`);
  for (const p of IMPORTABLE_PROVIDERS) {
    const id = s.musicProviders[p];
    if (id) terms.push(sql`json_extract(music_providers, ${sql.raw(`'$.${p}'`)}) = ${id}`);
  }
  return terms;
}

/** The rule's last clause in SQL: same artist and track ignoring case, durations within 5 s. */
const nameTerm = (s: ImportSong) =>
  sql`(lower(trim(artist_name)) = lower(trim(${s.artistName})) and lower(trim(track_name)) = lower(trim(${s.trackName})) and abs(duration - ${s.duration}) <= 5)`;

const anyOf = (terms: SQL[]) => sql`(${sql.join(terms, sql` or `)})`;

/**
 * Catalogue songs (no owner). The unary + keeps SQLite from choosing songs_owner_idx for
 * it: the whole catalogue has a null owner, so that index would mean a scan, where the
 * lookup indexes find a handful of rows.
 */
const catalogueSong = sql`+owner_uuid is null`;

/** Catalogue songs that match `s` by id or by name (the insert guard; tests check its plan). */
export const matchWhere = (s: ImportSong) =>
  and(catalogueSong, anyOf([...idTerms(s), nameTerm(s)]))!;

/** The first catalogue song the SQL lookups find that `songsMatch` confirms: ids first, then names. */
async function findMatch(env: Env, s: ImportSong): Promise<SongRow | undefined> {
  const d = db(env);
  const probe = {
    isrc: s.isrc,
    musicProviders: s.musicProviders as ProviderIds,
    trackName: s.trackName,
    artistName: s.artistName,
    duration: s.duration,
  };
  for (const terms of [idTerms(s), [nameTerm(s)]]) {
    if (!terms.length) continue;
    const rows = await d
      .select()
      .from(songs)
      .where(and(catalogueSong, anyOf(terms)))
      .orderBy(asc(songs.id))
      .limit(20)
      .all();
    const hit = rows.find((r) => songsMatch(r, probe));
    if (hit) return hit;
  }
  return undefined;
}

/**
 * Imports one song: 400 without an importable provider id, 404 for an uploadService id we
 * do not have (or the caller may not see), else the matching catalogue song or a new one.
 */
export async function importTrack(
  env: Env,
  s: ImportSong,
  who: Caller,
): Promise<{ song: SongRow; created: boolean }> {
  if (!IMPORTABLE_PROVIDERS.some((p) => s.musicProviders[p]))
    throw badRequest(SONG_MSG.importNoProviders);
  const d = db(env);
  const uploadId = s.musicProviders.uploadService;
  if (uploadId) {
    const upload = await d
      .select()
      .from(songs)
      .where(
        and(
          or(
            eq(songs.songId, uploadId),
            sql`json_extract(music_providers, '$.uploadService') = ${uploadId}`,
          ),
          songVisibleTo(who.uuid),
        ),
      )
      .get();
    if (!upload) throw notFound(SONG_MSG.importNotInCatalog);
    return { song: upload, created: false };
  }
  const found = await findMatch(env, s);
  if (found) return { song: found, created: false };
  // Insert only if no catalogue song matches, checked by the INSERT itself (one statement,
  // so of two imports racing exactly one writes). A short-id clash is retried.
  const guard = matchWhere(s);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const songId = crypto.randomUUID();
    try {
      const res =
        await d.run(sql`insert into songs (song_id, song_short_id, isrc, track_name, artist_name, genre, duration, explicit, release_year,
          album_name, status, music_providers, thumbnails, links, previews, owner_uuid, is_public)
        select ${songId}, ${newShortId()}, ${s.isrc}, ${s.trackName}, ${s.artistName}, ${s.genre || null}, ${s.duration}, ${s.explicit ? 1 : 0},
          ${s.releaseYear ?? null}, ${s.albumName || null}, 'VERIFIED', ${JSON.stringify(s.musicProviders)}, ${JSON.stringify(s.thumbnails)},
          ${JSON.stringify(s.links)}, ${JSON.stringify(s.previews ?? [])}, null, 1
        where not exists (select 1 from songs where ${guard})`);
      if (res.meta.changes)
        return {
          song: (await d.select().from(songs).where(eq(songs.songId, songId)).get())!,
          created: true,
        };
      // Another import won the race: answer its row.
      const winner =
        (await findMatch(env, s)) ??
        (await d.select().from(songs).where(guard).orderBy(asc(songs.id)).get());
      if (winner) return { song: winner, created: false };
    } catch (err) {
      if (attempt >= 3 || !isUniqueViolation(err)) throw err;
    }
  }
  // Only if the matching row vanished between the insert and the read, three times over.
  throw new Error("track import did not settle");
}
