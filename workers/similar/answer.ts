import { and, eq, inArray, sql } from "drizzle-orm";
import { db } from "../db/client";
import { songAnalysis, songs, type SongRow } from "../db/schema";
import type { Env } from "../env";
import { toSongDto } from "../songs/dto";
import {
  TRACK_NOT_ANALYZED,
  type AnalysisState,
  type SimilarAnswer,
  type SimilarSong,
} from "../../shared/similar";
import { nameKey } from "../../shared/songs";
import { analysisAdapter } from "../adapters/analysis";
import { analysableId, requestAnalysis } from "./analysis-jobs";
import { localCandidates, type Scored } from "./local";

/**
 * The similar-tracks answer: the music-analysis provider's similar tracks that we hold (when
 * it has analysed a seed), then our own local answer, deduplicated and cut to `limit`.
 * A seed the provider has not analysed triggers its analysis (seed 001: trackNotAnalyzed
 * triggers an enqueue) and the answer says so with that code.
 */

/** Analysis songs rank above any local score. */
const ANALYSIS_BASE = 1000;

/** The best state across the seeds, for the answer's `analysis.status`. */
const ORDER: AnalysisState[] = [
  "ANALYZED",
  "QUEUED",
  "NOT_ANALYZED",
  "FAILED",
  "UNSUPPORTED",
  "OFF",
];
const best = (states: AnalysisState[]) =>
  ORDER.find((s) => states.includes(s)) ?? ("UNSUPPORTED" as const);

/** The provider's similar ids for the analysed seeds, mapped to songs the viewer may see. */
async function analysisCandidates(
  env: Env,
  ids: string[],
  viewerUuid: string,
  queueCrateId: number | null,
): Promise<Scored[]> {
  if (!ids.length) return [];
  const rows = await db(env)
    .select()
    .from(songs)
    .where(
      and(
        // The expression songs_spotify_idx is built on, so each id is one index lookup.
        inArray(sql`json_extract(music_providers, '$.spotify')`, ids),
        eq(songs.status, "VERIFIED"),
        sql`(${songs.isPublic} = 1 or ${songs.ownerUuid} = ${viewerUuid})`,
        queueCrateId === null
          ? undefined
          : sql`not exists (select 1 from crate_songs q where q.crate_id = ${queueCrateId} and q.song_id = ${songs.id})`,
      ),
    )
    .all();
  const rank = new Map(ids.map((id, i) => [id, i]));
  return (
    rows
      // Seed 001: similar tracks without artwork or a duration are dropped.
      .filter((r) => r.duration > 0 && Object.values(r.thumbnails).some(Boolean))
      .map((row) => ({
        row,
        score: ANALYSIS_BASE - (rank.get(row.musicProviders.spotify!) ?? ids.length),
        reasons: ["analysis" as const],
      }))
      .sort((a, b) => b.score - a.score)
  );
}

export async function similarAnswer(
  env: Env,
  seeds: SongRow[],
  viewerUuid: string,
  limit: number,
  queueCrateId: number | null,
): Promise<SimilarAnswer> {
  // Analysis: read what the provider answered for the seeds; ask for the ones it has not.
  const states: AnalysisState[] = [];
  const rows = await db(env)
    .select()
    .from(songAnalysis)
    .where(
      inArray(
        songAnalysis.songId,
        seeds.map((s) => s.id),
      ),
    )
    .all();
  const bySeed = new Map(rows.map((r) => [r.songId, r]));
  const similarIds: string[] = [];
  for (const seed of seeds) {
    const row = bySeed.get(seed.id);
    if (!analysisAdapter(env)) states.push("OFF");
    else if (row?.status === "ANALYZED") {
      states.push("ANALYZED");
      similarIds.push(...row.similar);
    } else states.push((await requestAnalysis(env, viewerUuid, seed, "skip")).status);
  }
  const pending = seeds.some(
    (s, i) => analysableId(s) && ["QUEUED", "NOT_ANALYZED"].includes(states[i]),
  );

  const seedKeys = new Set(seeds.map((s) => nameKeyOf(s)));
  const seedIds = new Set(seeds.map((s) => s.id));
  const fromAnalysis = (
    await analysisCandidates(env, [...new Set(similarIds)].slice(0, 64), viewerUuid, queueCrateId)
  ).filter((c) => !seedIds.has(c.row.id));
  const local = await localCandidates(env, seeds, viewerUuid, limit * 4, queueCrateId);

  const seen = new Set(seedKeys);
  const picked: SimilarSong[] = [];
  for (const c of [...fromAnalysis, ...local]) {
    const key = nameKeyOf(c.row);
    if (seen.has(key)) continue;
    seen.add(key);
    picked.push({ ...toSongDto(c.row), score: c.score, reasons: c.reasons });
    if (picked.length === limit) break;
  }
  return {
    songs: picked,
    analysis: { status: best(states), code: pending ? TRACK_NOT_ANALYZED : null },
  };
}

const nameKeyOf = (s: SongRow) => nameKey(s.artistName, s.trackName);
