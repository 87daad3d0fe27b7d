import { and, asc, count, desc, or, sql, type SQL } from "drizzle-orm";
import { db } from "../db/client";
import { songs } from "../db/schema";
import type { Env } from "../env";
import { toSongDto } from "./dto";

/**
 * Turns what a person types into an FTS5 query: each word becomes a quoted prefix term
 * ("blue" "mon"*), so punctuation and FTS operators in the input cannot break the query
 * or change its meaning. Null when there is nothing to search for.
 */
export function ftsQuery(input: string): string | null {
  const words = input
    .normalize("NFKC")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 12);
  if (!words.length) return null;
  return words.map((w) => `"${w}"*`).join(" ");
}

/** `songs.id IN (matches of the FTS query)`: the catalogue search condition, indexed. */
export function matchesSearch(input: string): SQL | null {
  const q = ftsQuery(input);
  return q ? sql`songs.id in (select rowid from songs_fts where songs_fts match ${q})` : null;
}

/**
 * Who may find a song in a search, written so SQLite cannot use a songs index for it (the
 * unary +): songs_status_public_idx covers nearly the whole catalogue and songs_owner_idx
 * would feed a MULTI-INDEX OR over it, both scans. A search must be driven by the FTS
 * matches, each looked up by rowid, so its cost follows the matches, not the catalogue.
 */
const verified = sql`+${songs.status} = 'VERIFIED'`;
const listed = sql`(${verified} and +${songs.isPublic} = 1)`;
const own = (userUuid: string) => sql`+${songs.ownerUuid} = ${userUuid}`;

/** The upload-service's search: uploads (catalogue songs have no owner), the caller's own in any state, others' once listed. */
export const uploadSearchWhere = (match: SQL, userUuid: string) =>
  and(match, sql`+${songs.ownerUuid} is not null`, or(own(userUuid), listed));

/** The playlist-service's local search: VERIFIED songs, public or the caller's own; `explicit` false leaves explicit ones out. */
export const catalogueSearchWhere = (match: SQL, userUuid: string, explicit: boolean) =>
  and(
    match,
    verified,
    or(sql`+${songs.isPublic} = 1`, own(userUuid)),
    explicit ? undefined : sql`+${songs.explicit} = 0`,
  );

/**
 * Newest first for a search: by id, the same order as created_at (SQLite sets it on
 * insert, so it rises with the id), but one SQLite walks the matched rowids in, stopping
 * at the page instead of sorting every match.
 */
export const NEWEST_MATCHES = [desc(songs.id)];
/** The playlist-service's order: by track name. */
export const BY_TRACK_NAME = [asc(songs.trackName), asc(songs.id)];

/** One page of songs and how many there are in all, `{ data: SongDto[], total }`, in one D1 batch. */
export async function songPage(
  env: Env,
  where: SQL | undefined,
  order: SQL[],
  limit: number,
  offset: number,
) {
  const d = db(env);
  const [rows, [{ total }]] = await d.batch([
    d
      .select()
      .from(songs)
      .where(where)
      .orderBy(...order)
      .limit(limit)
      .offset(offset),
    d.select({ total: count() }).from(songs).where(where),
  ]);
  return { data: rows.map(toSongDto), total };
}
