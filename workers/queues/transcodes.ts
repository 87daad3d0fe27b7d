import { z } from "zod";
import { signedTranscoderUrl, submitTranscode } from "../adapters/transcoder";
import type { Env } from "../env";
import { findUpload } from "../upload-service/common";
import { MSG } from "../upload-service/messages";
import { failed, settlePostponed } from "../upload-service/transcoder";

/**
 * Transcode jobs (issue 18): an upload that needs an MP3 rendition (WAV, FLAC, Ogg, M4A) is
 * VERIFICATION_POSTPONED and sends its song id here; this consumer hands the job to the
 * transcoder adapter (adapters/transcoder.ts) with freshly signed URLs. The transcoder's
 * callback settles the song.
 *
 * Idempotent by song id: a message for a song that is no longer POSTPONED (settled,
 * deleted) is dropped, and a job the transcoder receives twice settles the song once (the
 * callback only changes a POSTPONED song). A transcoder that cannot be reached is retried
 * with a growing delay; after MAX_ATTEMPTS the song fails with a message saying so, rather
 * than waiting for the stale sweeper.
 */
export const transcodeMessage = z.object({
  songId: z.uuid(),
  /** The Worker's own origin, for the signed URLs and the callback (PUBLIC_HOST, else the upload's). */
  origin: z.url(),
});
export type TranscodeMessage = z.infer<typeof transcodeMessage>;

/** Deliveries before the song is failed (wrangler.toml max_retries is one more, a backstop). */
export const MAX_ATTEMPTS = 5;
/** Seconds before retry n: 30, 60, 120, 240. */
const retryDelay = (attempts: number) => 30 * 2 ** (attempts - 1);

export async function consumeTranscodes(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const msg of batch.messages) {
    const parsed = transcodeMessage.safeParse(msg.body);
    if (!parsed.success) {
      console.error("dropping a malformed transcode message", parsed.error.message);
      msg.ack();
      continue;
    }
    try {
      await startTranscode(env, parsed.data);
      msg.ack();
    } catch (err) {
      console.error(`transcode job for ${parsed.data.songId} failed (try ${msg.attempts})`, err);
      if (msg.attempts < MAX_ATTEMPTS) {
        msg.retry({ delaySeconds: retryDelay(msg.attempts) });
        continue;
      }
      const up = await findUpload(env, parsed.data.songId);
      if (up?.song.status === "VERIFICATION_POSTPONED")
        await settlePostponed(env, up, failed(MSG.transcoderUnreachable));
      msg.ack();
    }
  }
}

/** Sends the job, unless the song no longer waits for one. */
async function startTranscode(env: Env, { songId, origin }: TranscodeMessage) {
  const up = await findUpload(env, songId);
  if (!up?.file || up.song.status !== "VERIFICATION_POSTPONED") return;
  await submitTranscode(env, {
    songId,
    contentType: up.file.contentType,
    sourceUrl: await signedTranscoderUrl(env, origin, "source", songId),
    renditionUrl: await signedTranscoderUrl(env, origin, "rendition", songId),
    callbackUrl: `${origin}/api/upload-service/upload/transcoder_sns`,
  });
}
