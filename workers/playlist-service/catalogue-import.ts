import { and, asc, eq, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import {
  IMPORTABLE_PROVIDERS,
  MUSIC_PROVIDERS,
  nameKey,
  songsMatch,
  type MusicProvider,
  type ProviderIds,
} from "../../shared/songs";
import { adapterFor, outside, providerForHost, type ProviderSong } from "../adapters/music";
import { db } from "../db/client";
import { songs, type SongRow } from "../db/schema";
import type { Env } from "../env";
import type { Caller } from "../lib/auth";
import { badRequest, isUniqueViolation, notFound } from "../lib/errors";
import { takeAttempt } from "../lib/rate-limit";
import { newShortId } from "../songs/dto";
import { recordFacetsQuietly } from "../songs/facets";
import { SONG_MSG } from "../songs/messages";
import { songVisibleTo } from "../crates/crate-repo";
import { adoptUnverified, mergeInto } from "./catalogue-merge";
import { MSG } from "./messages";

/**
 * Track import (seed 001, "Import needs a song with at least one id from seven-digital,
 * soundCloudPublic, spotify, apple or uploadService"; issue 18, "Imports are verified").
 *
 * The client names a provider id (or a shared link); everything else it sends is a hint.
 * - The provider is configured: the server asks it and stores what it says. The song is
 *   the matching catalogue song (owner null, VERIFIED, public), enriched with any new
 *   provider id and empty field, or a new one; importing the same song twice, even at
 *   once, makes one row. The importer's own unverified copy, if any, gives way to it.
 * - It is not: the song is kept as the importer's own UNVERIFIED row (visible to them,
 *   not to search or other people) from their hints, until an import can verify it.
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
  // Hints: used only when the provider cannot be asked (the unverified song's names).
  trackName: text("trackName", 300).min(1, "trackName should not be empty").optional(),
  artistName: text("artistName", 300).min(1, "artistName should not be empty").optional(),
  duration: z
    .number({ error: "duration must be a number of seconds" })
    .min(0, "duration must not be negative")
    .max(86_400, "duration must be at most 86400 seconds")
    .transform(Math.round)
    .default(0),
  // ISRCs are kept as 12 upper-case characters without dashes.
  isrc: text("isrc", 20)
    .regex(/^[A-Za-z0-9-]*$/, "isrc must hold letters, digits and dashes only")
    .transform((s) => s.replace(/-/g, "").toUpperCase() || null)
    .nullable()
    .optional()
    .transform((s) => s ?? null),
  musicProviders: providerMap("musicProviders", providerId),
  /** A shared track link (open.spotify.com/track/..., music.apple.com/...): names the provider and id. */
  link: url.min(1, "link should not be empty").optional(),
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

/** What the lookups read: a provider's answer, or (unverified) the client's hints. */
export interface Probe {
  isrc: string | null;
  musicProviders: ProviderIds;
  trackName: string;
  artistName: string;
  duration: number;
}

/**
 * SQL lookups, each served by an index (migration 0003): the same ISRC, the same id at an
 * importable provider. The expressions must stay exactly as in the indexes.
 */
function idTerms(s: Probe): SQL[] {
  const terms: SQL[] = [];
  if (s.isrc) terms.push(sql`${songs.isrc} = ${s.isrc}`);
  for (const p of IMPORTABLE_PROVIDERS) {
    const id = s.musicProviders[p];
    if (id) terms.push(sql`json_extract(music_providers, ${sql.raw(`'$.${p}'`)}) = ${id}`);
  }
  return terms;
}

/**
 * The rule's last clause in SQL: same artist and track ignoring case (Unicode-aware, by the
 * name key of migration 0023), durations within 5 s. Rows from before the key whose names
 * are not plain ASCII have none: for them the old lower() term (ASCII folding) still runs.
 * Two OR terms, each with an indexed conjunct, so SQLite answers both from indexes.
 */
const nameTerms = (s: Probe): SQL[] => {
  const near = sql`abs(duration - ${s.duration}) <= 5`;
  return [
    sql`(${songs.nameKey} = ${nameKey(s.artistName, s.trackName)} and ${near})`,
    sql`(${songs.nameKey} is null and lower(trim(artist_name)) = lower(trim(${s.artistName})) and lower(trim(track_name)) = lower(trim(${s.trackName})) and ${near})`,
  ];
};

const anyOf = (terms: SQL[]) => sql`(${sql.join(terms, sql` or `)})`;

/**
 * Catalogue songs (no owner). The unary + keeps SQLite from choosing songs_owner_idx for
 * it: the whole catalogue has a null owner, so that index would mean a scan, where the
 * lookup indexes find a handful of rows.
 */
const catalogueSong = sql`+owner_uuid is null`;
/** The caller's own unverified imports (uploads carry an uploadService id; imports never). */
const ownUnverified = (uuid: string) =>
  sql`owner_uuid = ${uuid} and status = 'UNVERIFIED' and json_extract(music_providers, '$.uploadService') is null`;

/** Catalogue songs that match `s` by id or by name (the insert guard; tests check its plan). */
export const matchWhere = (s: Probe, scope: SQL = catalogueSong) =>
  and(scope, anyOf([...idTerms(s), ...nameTerms(s)]))!;

/** The first song in `scope` the SQL lookups find that `songsMatch` confirms: ids first, then names. */
async function findMatch(
  env: Env,
  s: Probe,
  scope: SQL = catalogueSong,
): Promise<SongRow | undefined> {
  for (const terms of [idTerms(s), nameTerms(s)]) {
    if (!terms.length) continue;
    const rows = await db(env)
      .select()
      .from(songs)
      .where(and(scope, anyOf(terms)))
      .orderBy(asc(songs.id))
      .limit(20)
      .all();
    const hit = rows.find((r) => songsMatch(r, s));
    if (hit) return hit;
  }
  return undefined;
}

export interface ImportResult {
  song: SongRow;
  created: boolean;
  /** false: kept as the importer's own unverified song (the provider could not be asked). */
  verified: boolean;
}

/**
 * The provider's own description of the song: by the link, else by the first named id
 * whose adapter is configured. undefined: no named provider can be asked here.
 * A provider that has no such track is the catalogue's 404; one that fails is a 502.
 */
async function askProvider(env: Env, s: ImportSong): Promise<ProviderSong | undefined> {
  if (s.link) {
    let link: URL | null = null;
    try {
      link = new URL(/^[a-z][a-z0-9+.-]*:/i.test(s.link) ? s.link : `https://${s.link}`);
    } catch {
      throw badRequest(MSG.badLink);
    }
    if (link.protocol !== "https:" && link.protocol !== "http:") throw badRequest(MSG.badLink);
    const found = providerForHost(link.hostname);
    if (!found) throw badRequest(SONG_MSG.unsupportedLink);
    const adapter = found.adapter;
    if (adapter && adapter.enabled(env) && IMPORTABLE_PROVIDERS.includes(adapter.key)) {
      const song = await outside(adapter.name, () => adapter.fromLink(env, link));
      if (!song) throw notFound(SONG_MSG.importNotInCatalog);
      return song;
    }
  }
  for (const key of IMPORTABLE_PROVIDERS) {
    const id = s.musicProviders[key];
    const adapter = adapterFor(key);
    if (!id || !adapter?.enabled(env)) continue;
    const song = await outside(adapter.name, () => adapter.track(env, id));
    if (!song) throw notFound(SONG_MSG.importNotInCatalog);
    return song;
  }
  return undefined;
}

/**
 * Imports one song: 400 without an importable provider id (or link), 404 for an id the
 * provider does not know or an uploadService id we do not have (or the caller may not
 * see), else the matching catalogue song or a new one; without the provider configured,
 * the caller's own unverified song.
 */
export async function importTrack(env: Env, s: ImportSong, who: Caller): Promise<ImportResult> {
  if (!s.link && !IMPORTABLE_PROVIDERS.some((p) => s.musicProviders[p]))
    throw badRequest(SONG_MSG.importNoProviders);
  const uploadId = s.musicProviders.uploadService;
  if (uploadId) {
    const upload = await db(env)
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
    return { song: upload, created: false, verified: upload.status === "VERIFIED" };
  }
  const said = await askProvider(env, s);
  if (!said) {
    // A link no configured adapter could read names no provider id of its own.
    if (!IMPORTABLE_PROVIDERS.some((p) => s.musicProviders[p]))
      throw badRequest(SONG_MSG.importNoProviders);
    return keepUnverified(env, s, who);
  }
  const result = await importVerified(env, said);
  await adoptUnverified(env, who.uuid, result.song, idTerms(said));
  await recordFacetsQuietly(env, result.song);
  return result;
}

/** The provider's song into the catalogue: merged into its match, or inserted once. */
async function importVerified(env: Env, said: ProviderSong): Promise<ImportResult> {
  const found = await findMatch(env, said);
  if (found) return { song: await mergeInto(env, found, said), created: false, verified: true };
  // Insert only if no catalogue song matches, checked by the INSERT itself (one statement,
  // so of two imports racing exactly one writes). A short-id clash is retried.
  const guard = matchWhere(said);
  const d = db(env);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const songId = crypto.randomUUID();
    try {
      const res =
        await d.run(sql`insert into songs (song_id, song_short_id, isrc, track_name, artist_name, name_key, genre, duration, explicit,
          release_year, album_name, status, music_providers, thumbnails, links, previews, owner_uuid, is_public)
        select ${songId}, ${newShortId()}, ${said.isrc}, ${said.trackName}, ${said.artistName}, ${nameKey(said.artistName, said.trackName)},
          ${said.genre || null}, ${said.duration}, ${said.explicit ? 1 : 0}, ${said.releaseYear ?? null}, ${said.albumName || null},
          'VERIFIED', ${JSON.stringify(said.musicProviders)}, ${JSON.stringify(said.thumbnails)}, ${JSON.stringify(said.links)},
          ${JSON.stringify(said.previews)}, null, 1
        where not exists (select 1 from songs where ${guard})`);
      if (res.meta.changes) {
        const song = (await d.select().from(songs).where(eq(songs.songId, songId)).get())!;
        return { song, created: true, verified: true };
      }
      // Another import won the race: answer its row, with what this one knows merged in.
      const winner =
        (await findMatch(env, said)) ??
        (await d.select().from(songs).where(guard).orderBy(asc(songs.id)).get());
      if (winner)
        return { song: await mergeInto(env, winner, said), created: false, verified: true };
    } catch (err) {
      if (attempt >= 3 || !isUniqueViolation(err)) throw err;
    }
  }
  // Only if the matching row vanished between the insert and the read, three times over.
  throw new Error("track import did not settle");
}

/**
 * No named provider can be asked: a catalogue song matching the hints is answered as is
 * (it is public already; the hints change nothing in it), else the caller's own matching
 * unverified song, else a new one from the hints, owned by the caller and not listed.
 */
async function keepUnverified(env: Env, s: ImportSong, who: Caller): Promise<ImportResult> {
  if (!s.trackName || !s.artistName) throw badRequest(SONG_MSG.importNeedsNames);
  const probe: Probe = {
    isrc: s.isrc,
    musicProviders: s.musicProviders,
    trackName: s.trackName,
    artistName: s.artistName,
    duration: s.duration,
  };
  const listed = await findMatch(env, probe);
  if (listed) return { song: listed, created: false, verified: true };
  const scope = ownUnverified(who.uuid);
  const mine = await findMatch(env, probe, scope);
  if (mine) return { song: mine, created: false, verified: false };
  await takeAttempt(env, [{ rule: "unverifiedImportPerAccount", key: who.uuid }], (wait) =>
    SONG_MSG.tooManyUnverified(wait),
  );
  const songId = crypto.randomUUID();
  const d = db(env);
  const res =
    await d.run(sql`insert into songs (song_id, song_short_id, isrc, track_name, artist_name, name_key, genre, duration, explicit,
      release_year, album_name, status, music_providers, thumbnails, links, previews, owner_uuid, is_public)
    select ${songId}, ${newShortId()}, ${s.isrc}, ${s.trackName}, ${s.artistName}, ${nameKey(s.artistName, s.trackName)},
      ${s.genre || null}, ${s.duration}, ${s.explicit ? 1 : 0}, ${s.releaseYear ?? null}, ${s.albumName || null}, 'UNVERIFIED',
      ${JSON.stringify(s.musicProviders)}, ${JSON.stringify(s.thumbnails)}, ${JSON.stringify(s.links)},
      ${JSON.stringify(s.previews ?? [])}, ${who.uuid}, 0
    where not exists (select 1 from songs where ${matchWhere(probe, scope)})`);
  const song = res.meta.changes
    ? await d.select().from(songs).where(eq(songs.songId, songId)).get()
    : await findMatch(env, probe, scope);
  if (!song) throw new Error("unverified import did not settle");
  return { song, created: !!res.meta.changes, verified: false };
}
