import { inArray, sql, type SQL } from "drizzle-orm";
import { runBatch } from "../crates/crate-repo";
import { db } from "../db/client";
import { songs, type SongRow } from "../db/schema";
import type { Env } from "../env";
import { SIMILAR_REASONS, type SimilarReason } from "../../shared/similar";

/**
 * Similar tracks from our own data (issue 18): works offline, with no provider at all.
 * For each seed song, candidates come from five bounded index walks, each worth a weight:
 *
 * | signal  | where from                                             | weight          |
 * |---------|--------------------------------------------------------|-----------------|
 * | liked   | songs near the seed in someone's likes crate           | 3 per crate     |
 * | crated  | near it in a crate (2) or a DJ queue (1)               | 1-2 per crate   |
 * | played  | played in the same room within 20 minutes of it        | 1-2 (closer: 2) |
 * | artist  | the same artist                                        | 4               |
 * | genre   | the same genre                                         | 0.5             |
 * | recent  | played lately anywhere, or newly listed (a filler)     | 0.1-0.2         |
 *
 * "Near" is within NEIGHBOURS positions: a crate may hold thousands of songs, and songs a
 * person put side by side say more than the two ends of a long list. Every walk has a
 * LIMIT on an index (the seed's newest crate entries, its newest plays, ...), so a request
 * reads at most a few thousand index rows whatever the catalogue's size. Scores add up per
 * song; the answer keeps only songs the viewer may see (VERIFIED, and public or their own),
 * never a seed, never two songs with the same artist and track (seed 001).
 *
 * Crates count whoever owns them, private ones too: only the aggregate shows (a song, never
 * whose crate put it there), and the suggested songs themselves are filtered for the viewer.
 */
export const CRATES_PER_SEED = 40;
export const NEIGHBOURS = 10;
export const PLAYS_PER_SEED = 12;
export const PLAY_WINDOW_MS = 20 * 60_000;
const ARTIST_PER_SEED = 50;
const GENRE_PER_SEED = 60;
const RECENT = 40;

const n = (x: number) => sql.raw(String(Math.trunc(x)));

function seedParts(seed: SongRow): SQL[] {
  const parts: SQL[] = [
    // Crated and liked together: the seed's newest crate entries, then their neighbours.
    sql`select cs2.song_id as id,
        case c.crate_type when 'tt-stars' then 3.0 when 'default' then 1.0 else 2.0 end as w,
        case c.crate_type when 'tt-stars' then 'liked' else 'crated' end as why
      from (select crate_id, position from crate_songs where song_id = ${seed.id}
            order by id desc limit ${n(CRATES_PER_SEED)}) h
      join crates c on c.id = h.crate_id
      join crate_songs cs2 on cs2.crate_id = h.crate_id
        and cs2.position between h.position - ${n(NEIGHBOURS)} and h.position + ${n(NEIGHBOURS)}`,
    // Played in the same room close in time: the seed's newest plays, then the room's plays
    // around each (the closer, the more it counts).
    sql`select s2.id as id,
        2.0 - abs(q.played_at - h.played_at) * 1.0 / ${n(PLAY_WINDOW_MS)} as w, 'played' as why
      from (select room_slug, played_at from recent_song_plays
            where json_extract(song, '$.songId') = ${seed.songId}
            order by played_at desc limit ${n(PLAYS_PER_SEED)}) h
      join recent_song_plays q on q.room_slug = h.room_slug
        and q.played_at between h.played_at - ${n(PLAY_WINDOW_MS)} and h.played_at + ${n(PLAY_WINDOW_MS)}
      join songs s2 on s2.song_id = json_extract(q.song, '$.songId')`,
  ];
  if (seed.artistName.trim())
    parts.push(sql`select id, 4.0 as w, 'artist' as why from songs
      where lower(trim(artist_name)) = lower(trim(${seed.artistName})) limit ${n(ARTIST_PER_SEED)}`);
  if (seed.genre?.trim())
    parts.push(sql`select id, 0.5 as w, 'genre' as why from songs
      where lower(genre) = lower(${seed.genre}) order by id desc limit ${n(GENRE_PER_SEED)}`);
  return parts;
}

/** Fillers, so a catalogue with little history still answers (the demo's first minutes). */
const fillers = (): SQL[] => [
  sql`select s2.id as id, 0.2 as w, 'recent' as why
    from (select song from recent_song_plays order by id desc limit ${n(RECENT)}) q
    join songs s2 on s2.song_id = json_extract(q.song, '$.songId')`,
  sql`select id, 0.1 as w, 'recent' as why from songs
    where status = 'VERIFIED' and is_public = 1 order by id desc limit ${n(RECENT)}`,
];

/** Every walk for these seeds, each yielding `(id, w, why)` rows (exported for the plan test). */
export const walks = (seeds: SongRow[]): SQL[] => [...seeds.flatMap(seedParts), ...fillers()];

export interface Scored {
  row: SongRow;
  score: number;
  reasons: SimilarReason[];
}

/**
 * Up to `want` candidates, best first, before the caller dedupes by name (it fetches more
 * than it shows). `queueCrateId`: leave out songs already in that crate.
 *
 * D1 refuses a compound SELECT of more than a few terms, so each walk is its own statement,
 * grouped by song in SQL, and all of them go in one batch (one round trip); the scores are
 * added here. The visibility filter then takes the candidate ids as one JSON parameter.
 */
export async function localCandidates(
  env: Env,
  seeds: SongRow[],
  viewerUuid: string,
  want: number,
  queueCrateId: number | null,
): Promise<Scored[]> {
  const d = db(env);
  const parts = walks(seeds);
  const results = await runBatch(
    env,
    parts.map((p) => sql`select id, sum(w) as w, why from (${p}) group by id, why`),
  );
  const seedIds = new Set(seeds.map((s) => s.id));
  const scores = new Map<number, { score: number; whys: Set<string> }>();
  for (const r of results.flatMap((x) => x.results as { id: number; w: number; why: string }[])) {
    if (seedIds.has(r.id)) continue;
    const e = scores.get(r.id) ?? { score: 0, whys: new Set<string>() };
    e.score += r.w;
    e.whys.add(r.why);
    scores.set(r.id, e);
  }
  if (!scores.size) return [];

  const notQueued =
    queueCrateId === null
      ? sql``
      : sql`and not exists (select 1 from crate_songs q where q.crate_id = ${queueCrateId} and q.song_id = s.id)`;
  const visible = await d.all<{ id: number }>(sql`
    select s.id as id from songs s
    where s.id in (select value from json_each(${JSON.stringify([...scores.keys()])}))
      and s.status = 'VERIFIED' and (s.is_public = 1 or s.owner_uuid = ${viewerUuid})
      and s.duration > 0 ${notQueued}`);
  const top = visible
    .map((v) => ({ id: v.id, ...scores.get(v.id)! }))
    .sort((a, b) => b.score - a.score || b.id - a.id)
    .slice(0, want);
  if (!top.length) return [];
  const rows = await d
    .select()
    .from(songs)
    .where(
      inArray(
        songs.id,
        top.map((r) => r.id),
      ),
    )
    .all();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return top.flatMap((r) => {
    const row = byId.get(r.id);
    if (!row) return [];
    return [
      {
        row,
        score: Math.round(r.score * 100) / 100,
        reasons: SIMILAR_REASONS.filter((x) => r.whys.has(x)),
      },
    ];
  });
}
