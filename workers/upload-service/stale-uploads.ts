import { and, eq, inArray, isNotNull, isNull, lt, sql } from "drizzle-orm";
import { STALE_UPLOAD_MS, type SongStatus } from "../../shared/songs";
import { db } from "../db/client";
import { songs, songUploads } from "../db/schema";
import type { Env } from "../env";
import { runBatch } from "../crates/crate-repo";
import { MSG } from "./messages";

/**
 * The stale-upload sweeper (issue 18), run by the cron every minute (workers/app.ts
 * `scheduled`). A song still PENDING_UPLOAD or VALID_FILE_TYPE (its Worker died mid-upload,
 * or between storing and indexing) or VERIFICATION_POSTPONED (the transcoder never
 * answered) an hour after its last change becomes VERIFICATION_ERROR with a detail saying
 * why, so the upload page stops waiting and offers to delete it. An R2 multipart upload left
 * open by such a song, or by a song deleted meanwhile, is aborted (song_uploads remembers
 * its id; the binding cannot list them).
 *
 * Each change is conditional on the status read, so a song that settles while the sweep
 * runs keeps its verdict, and two overlapping sweeps fail a song once. A bounded batch a run.
 */

/** How long an upload or a transcode may take before it counts as dead (docs/DECISIONS.md). */
export { STALE_UPLOAD_MS };
/** Songs (and orphaned multipart uploads) handled per run: the cron comes back in a minute. */
export const SWEEP_BATCH = 50;

const UNFINISHED: SongStatus[] = ["PENDING_UPLOAD", "VALID_FILE_TYPE", "VERIFICATION_POSTPONED"];

export interface SweepResult {
  failed: number;
  aborted: number;
}

export async function sweepStaleUploads(env: Env, now = Date.now()): Promise<SweepResult> {
  const d = db(env);
  const cutoff = now - STALE_UPLOAD_MS;
  const result: SweepResult = { failed: 0, aborted: 0 };

  const stale = await d
    .select({ song: songs, upload: songUploads })
    .from(songs)
    .leftJoin(songUploads, eq(songUploads.songId, songs.id))
    .where(
      and(
        inArray(songs.status, UNFINISHED),
        lt(songs.updatedAt, cutoff),
        isNotNull(songs.ownerUuid),
      ),
    )
    .limit(SWEEP_BATCH)
    .all();
  for (const { song, upload } of stale) {
    if (upload?.uploadId && (await abort(env, upload.r2Key, upload.uploadId))) result.aborted++;
    const detail =
      song.status === "VERIFICATION_POSTPONED" ? MSG.transcoderTimedOut : MSG.uploadUnfinished;
    const stillSo = sql`exists (select 1 from songs where id = ${song.id} and status = ${song.status})`;
    const [, , changed] = await runBatch(env, [
      // A song that died before its bytes were stored has no file row yet: one carries the detail.
      sql`insert into song_files (song_id, r2_key, content_type, size, detail, updated_at)
        select ${song.id}, ${upload?.r2Key ?? ""}, 'application/octet-stream', 0, ${detail}, ${now}
        where ${stillSo}
        on conflict (song_id) do update set detail = excluded.detail, segments = null,
          updated_at = excluded.updated_at`,
      d.delete(songUploads).where(eq(songUploads.songId, song.id)),
      d
        .update(songs)
        .set({ status: "VERIFICATION_ERROR", duration: 0, updatedAt: now })
        .where(and(eq(songs.id, song.id), eq(songs.status, song.status))),
    ]);
    if (changed.meta.changes) result.failed++;
  }

  // Multipart uploads of songs deleted while uploading: nothing else will ever abort them.
  const orphans = await d
    .select({ upload: songUploads })
    .from(songUploads)
    .leftJoin(songs, eq(songs.id, songUploads.songId))
    .where(and(isNull(songs.id), lt(songUploads.createdAt, cutoff)))
    .limit(SWEEP_BATCH)
    .all();
  for (const { upload } of orphans) {
    if (upload.uploadId && (await abort(env, upload.r2Key, upload.uploadId))) result.aborted++;
    await d.delete(songUploads).where(eq(songUploads.songId, upload.songId));
  }
  if (result.failed || result.aborted)
    console.log(`stale uploads: ${result.failed} failed, ${result.aborted} multipart aborted`);
  return result;
}

/** Aborts an open multipart upload; one already completed or aborted is not an error. */
async function abort(env: Env, key: string, uploadId: string): Promise<boolean> {
  try {
    await env.UPLOADS.resumeMultipartUpload(key, uploadId).abort();
    return true;
  } catch (err) {
    console.warn(`aborting multipart upload ${uploadId} of ${key} failed`, err);
    return false;
  }
}
