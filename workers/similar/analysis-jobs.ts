import { eq, sql } from "drizzle-orm";
import { analysisAdapter } from "../adapters/analysis";
import { db } from "../db/client";
import { songAnalysis, type SongAnalysisRow, type SongRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../lib/errors";
import { takeAttempt } from "../lib/rate-limit";
import type { AnalysisState } from "../../shared/similar";
import { MSG } from "../playlist-service/messages";

/**
 * Asking for a song's music analysis (the enqueue mutation, and what a similar-tracks query
 * whose seed is not analysed triggers). Exactly one caller per song sends the queue message:
 * the one whose INSERT made the row, or whose conditional UPDATE re-claimed a stale one. A
 * flood of requests for one song costs one message and one provider job; everyone else reads
 * the row. Only a claim that may create a job spends the caller's enqueue budget.
 */

/** A QUEUED row untouched this long lost its message (the consumer touches it every step). */
export const STALE_QUEUED_MS = 30 * 60_000;
/** A FAILED analysis may be asked for again after this long. */
export const RETRY_FAILED_MS = 24 * 60 * 60_000;

/** The id the provider analyses: the song's Spotify id (null when it has none). */
export const analysableId = (song: SongRow) => song.musicProviders.spotify ?? null;

const reclaimable = (row: SongAnalysisRow, now: number) =>
  (row.status === "QUEUED" && row.updatedAt < now - STALE_QUEUED_MS) ||
  (row.status === "FAILED" && row.updatedAt < now - RETRY_FAILED_MS);

/** The row for one song, or null. */
export const analysisRow = (env: Env, songRowId: number) =>
  db(env).select().from(songAnalysis).where(eq(songAnalysis.songId, songRowId)).get();

/** True for the one caller that now owns sending this song's job. */
async function claim(env: Env, songRowId: number, providerId: string, now: number) {
  const d = db(env);
  const made = await d
    .insert(songAnalysis)
    .values({ songId: songRowId, providerTrackId: providerId, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning({ id: songAnalysis.songId })
    .get();
  if (made) return true;
  const again = await d
    .update(songAnalysis)
    .set({
      status: "QUEUED",
      providerTrackId: providerId,
      attempts: 0,
      providerEnqueuedAt: null,
      detail: null,
      updatedAt: now,
    })
    .where(
      sql`${songAnalysis.songId} = ${songRowId} and (
        (${songAnalysis.status} = 'QUEUED' and ${songAnalysis.updatedAt} < ${now - STALE_QUEUED_MS}) or
        (${songAnalysis.status} = 'FAILED' and ${songAnalysis.updatedAt} < ${now - RETRY_FAILED_MS}))`,
    )
    .returning({ id: songAnalysis.songId })
    .get();
  return !!again;
}

/**
 * Queues `song`'s analysis unless it is queued, done or failed recently. `overBudget`:
 * "throw" answers 429 (the enqueue mutation); "skip" answers NOT_ANALYZED (a query that
 * merely triggers it must still answer).
 */
export async function requestAnalysis(
  env: Env,
  callerUuid: string,
  song: SongRow,
  overBudget: "throw" | "skip",
): Promise<{ status: AnalysisState; enqueued: boolean }> {
  if (!analysisAdapter(env)) return { status: "OFF", enqueued: false };
  const providerId = analysableId(song);
  if (!providerId) return { status: "UNSUPPORTED", enqueued: false };
  const now = Date.now();
  const row = await analysisRow(env, song.id);
  if (row && !reclaimable(row, now)) return { status: row.status, enqueued: false };

  const take = { rule: "analysisEnqueuePerAccount" as const, key: callerUuid };
  let taken;
  try {
    taken = await takeAttempt(env, [take], (wait) => MSG.analysisBudget(wait));
  } catch (err) {
    if (overBudget === "skip" && err instanceof ApiError && err.status === 429)
      return { status: "NOT_ANALYZED", enqueued: false };
    throw err;
  }
  if (!(await claim(env, song.id, providerId, now))) {
    // Someone else won the race: this caller created nothing, so it spent nothing.
    await taken.release();
    return { status: (await analysisRow(env, song.id))?.status ?? "QUEUED", enqueued: false };
  }
  try {
    await env.ANALYSIS.send({ songRowId: song.id });
  } catch (err) {
    // No message went out: make the row stale at once so the next request re-claims it.
    await db(env)
      .update(songAnalysis)
      .set({ updatedAt: 0 })
      .where(eq(songAnalysis.songId, song.id));
    console.error("analysis queue send failed", err);
    throw new ApiError(503, MSG.analysisQueueDown);
  }
  return { status: "QUEUED", enqueued: true };
}
