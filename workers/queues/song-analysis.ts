import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { analysisAdapter, type AnalysisAdapter } from "../adapters/analysis";
import { db } from "../db/client";
import { songAnalysis } from "../db/schema";
import type { Env } from "../env";
import { TRACK_NOT_ANALYZED } from "../../shared/similar";

/**
 * The music-analysis job (queue `hangout-analysis`; workers/similar/analysis-jobs.ts sends
 * one message per song). Each run asks the provider for the song's similar tracks:
 * - an answer: the row becomes ANALYZED with the provider's ids (a redelivery finds it so
 *   and does nothing);
 * - `trackNotAnalyzed` (seed 001: that code triggers an analysis enqueue): the enqueue
 *   mutation is sent, once per job, and the message comes back later to ask again;
 * - a provider failure: retried with backoff.
 * After MAX_ATTEMPTS runs the job is FAILED (asked for again after a day). Every run touches
 * the row, so a QUEUED row nobody touches for half an hour has lost its message and the next
 * request re-claims it.
 */
export const songAnalysisMessage = z.object({ songRowId: z.number().int().positive() });
export type SongAnalysisMessage = z.infer<typeof songAnalysisMessage>;

/** Runs per job; below the queue's max_retries so this code, not the queue, ends a job. */
export const MAX_ATTEMPTS = 8;
/** How many similar ids to keep from the provider (the answer shows 8 after filtering). */
export const SIMILAR_KEEP = 16;
/** 30 s, 60 s, ... at most 10 minutes between runs (an analysis takes minutes). */
export const backoffSeconds = (attempt: number) =>
  Math.min(600, 30 * 2 ** Math.max(0, attempt - 1));

type Step = { retryIn: number | null };

const fail = (env: Env, songRowId: number, detail: string) =>
  db(env)
    .update(songAnalysis)
    .set({ status: "FAILED", detail: detail.slice(0, 500), updatedAt: Date.now() })
    .where(and(eq(songAnalysis.songId, songRowId), eq(songAnalysis.status, "QUEUED")));

/** One run of one job; `attempt` is the message's delivery count (1 first). */
export async function analyseSong(
  env: Env,
  adapter: AnalysisAdapter | null,
  songRowId: number,
  attempt: number,
): Promise<Step> {
  const d = db(env);
  const row = await d.select().from(songAnalysis).where(eq(songAnalysis.songId, songRowId)).get();
  // Gone (the song was deleted), done, or failed: nothing to do.
  if (!row || row.status !== "QUEUED") return { retryIn: null };
  if (!adapter) {
    await fail(env, songRowId, "no analysis provider is configured");
    return { retryIn: null };
  }
  await d
    .update(songAnalysis)
    .set({ attempts: row.attempts + 1, updatedAt: Date.now() })
    .where(eq(songAnalysis.songId, songRowId));

  const res = await adapter.similar(row.providerTrackId, SIMILAR_KEEP);
  if (res.code === null) {
    await d
      .update(songAnalysis)
      .set({ status: "ANALYZED", similar: res.ids, detail: null, updatedAt: Date.now() })
      .where(and(eq(songAnalysis.songId, songRowId), eq(songAnalysis.status, "QUEUED")));
    return { retryIn: null };
  }
  if (res.code !== TRACK_NOT_ANALYZED) {
    await fail(env, songRowId, `provider answered ${res.code}`);
    return { retryIn: null };
  }
  if (row.providerEnqueuedAt === null) {
    const e = await adapter.enqueue(row.providerTrackId);
    if (e.code) {
      await fail(env, songRowId, `provider refused to analyse it: ${e.code}`);
      return { retryIn: null };
    }
    await d
      .update(songAnalysis)
      .set({ providerEnqueuedAt: Date.now() })
      .where(and(eq(songAnalysis.songId, songRowId), isNull(songAnalysis.providerEnqueuedAt)));
  }
  if (attempt >= MAX_ATTEMPTS) {
    await fail(env, songRowId, "the provider did not analyse it in time");
    return { retryIn: null };
  }
  return { retryIn: backoffSeconds(attempt) };
}

export async function consumeSongAnalysis(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const adapter = analysisAdapter(env);
  for (const m of batch.messages) {
    const parsed = songAnalysisMessage.safeParse(m.body);
    if (!parsed.success) {
      console.error("song analysis: malformed message dropped", m.id);
      m.ack();
      continue;
    }
    const id = parsed.data.songRowId;
    try {
      const { retryIn } = await analyseSong(env, adapter, id, m.attempts);
      if (retryIn === null) m.ack();
      else m.retry({ delaySeconds: retryIn });
    } catch (err) {
      // The provider (or D1) failed: try again later, and give up after MAX_ATTEMPTS.
      console.error("song analysis failed", id, err);
      if (m.attempts >= MAX_ATTEMPTS) {
        await fail(env, id, `provider failed: ${(err as Error)?.message ?? err}`).catch(() => {});
        m.ack();
      } else m.retry({ delaySeconds: backoffSeconds(m.attempts) });
    }
  }
}
