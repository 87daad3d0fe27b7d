import { z } from "zod";
import type { SongDto } from "./songs";

/**
 * Similar tracks (seed 001: "a similar-tracks graph query and an enqueue mutation for
 * analysis"; "Similar tracks max: 8 songs"; "code trackNotAnalyzed triggers an analysis
 * enqueue"). The request and answer shapes, shared by the playlist-service routes
 * (workers/playlist-service/similar-tracks.ts) and the room's suggestions panel.
 */

/** The spec's cap: at most 8 songs come back, and at most 8 seed songs are used. */
export const SIMILAR_MAX = 8;

const songIdList = z
  .string({ error: "songIds is required" })
  .max(8 * 40, "songIds is too long")
  .transform((s) =>
    s
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(z.uuid({ error: "songIds must be song UUIDs" }))
      .min(1, "songIds should not be empty")
      .max(SIMILAR_MAX, `songIds takes at most ${SIMILAR_MAX} songs`),
  )
  // The same seed twice is one seed (and one cache entry).
  .transform((ids) => [...new Set(ids.map((x) => x.toLowerCase()))].sort());

/** GET /similar-tracks?songIds=a,b&limit=8&excludeQueue=true */
export const similarQuery = z.object({
  songIds: songIdList,
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be an integer")
    .min(1, "limit must be at least 1")
    .max(SIMILAR_MAX, `limit must be at most ${SIMILAR_MAX}`)
    .default(SIMILAR_MAX),
  // Leave out what the caller already has in their queue (the DJ's suggestions).
  excludeQueue: z
    .enum(["true", "false"], { error: "excludeQueue must be true or false" })
    .default("false")
    .transform((v) => v === "true"),
});
export type SimilarQuery = z.output<typeof similarQuery>;

/** POST /similar-tracks/enqueue `{ songId }`: the analysis enqueue mutation. */
export const enqueueBody = z.object({ songId: z.uuid({ error: "songId must be a song UUID" }) });

/** Why a song was suggested; the panel shows the strongest. */
export const SIMILAR_REASONS = [
  "analysis",
  "liked",
  "crated",
  "played",
  "artist",
  "genre",
  "recent",
] as const;
export type SimilarReason = (typeof SIMILAR_REASONS)[number];

/**
 * Where the music-analysis answer stands for the seeds: OFF (no provider configured),
 * UNSUPPORTED (no seed has a Spotify id), NOT_ANALYZED (not queued: the caller's enqueue
 * budget is spent), QUEUED, ANALYZED (at least one seed), FAILED.
 */
export const ANALYSIS_STATES = [
  "OFF",
  "UNSUPPORTED",
  "NOT_ANALYZED",
  "QUEUED",
  "ANALYZED",
  "FAILED",
] as const;
export type AnalysisState = (typeof ANALYSIS_STATES)[number];

/** The provider's error code for a track it has not analysed yet (seed 001). */
export const TRACK_NOT_ANALYZED = "trackNotAnalyzed";

export type SimilarSong = SongDto & { score: number; reasons: SimilarReason[] };

export interface SimilarAnswer {
  songs: SimilarSong[];
  analysis: { status: AnalysisState; code: typeof TRACK_NOT_ANALYZED | null };
}

export interface EnqueueAnswer {
  songId: string;
  status: AnalysisState;
  /** True only for the one request that queued the job. */
  enqueued: boolean;
}
