import { Hono } from "hono";
import { z } from "zod";
import { verifyTranscoderUrl, type TranscoderUrlPurpose } from "../adapters/transcoder";
import type { AppEnv, Env } from "../env";
import { ApiError } from "../lib/errors";
import { R2StreamWriter } from "../lib/r2-stream";
import { MB } from "../lib/uploads";
import { valid } from "../lib/validate";
import { findUploadOr404, songIdParam, songPrefix } from "./common";
import { MSG } from "./messages";

/**
 * The transcoder's side of a job (adapters/transcoder.ts): it reads the original here and
 * writes the MP3 rendition here, through URLs the queue consumer signed (purpose, song,
 * expiry). Only a song still VERIFICATION_POSTPONED is served or written, so a finished or
 * deleted song's URLs are dead even before they expire.
 */
export const transcoderFileRoutes = new Hono<AppEnv>();

/**
 * The largest rendition taken: a 50 MB upload at a low bitrate can be hours of audio, and
 * its 192 kbps MP3 bigger than the original; the segment bound (5,000 segments of 6 s, about
 * 8 hours) is reached first at 192 kbps only beyond this size.
 */
export const MAX_RENDITION_BYTES = 160 * MB;
/** Where a rendition is stored: beside the original, so deleting the song removes it too. */
export const renditionKey = (songId: string) => `${songPrefix(songId)}rendition.mp3`;

const signedQuery = z.object({
  songId: songIdParam.shape.songId,
  exp: z.coerce.number({ error: "exp must be a number" }).int().positive(),
  sig: z.string().regex(/^[0-9a-f]{64}$/, "sig must be 64 hex digits"),
});

/** The song behind a valid signed URL, still waiting for its transcode; else 403, 404 or 409. */
async function postponedSong(
  env: Env,
  purpose: TranscoderUrlPurpose,
  q: z.infer<typeof signedQuery>,
) {
  // The signature first: a forged request costs no D1 read.
  if (!(await verifyTranscoderUrl(env, purpose, q.songId, q.exp, q.sig)))
    throw new ApiError(403, MSG.badSignature);
  const up = await findUploadOr404(env, q.songId);
  if (up.song.status !== "VERIFICATION_POSTPONED" || !up.file)
    throw new ApiError(409, MSG.notPostponed);
  return up;
}

/** GET: the original upload's bytes, streamed from R2. */
transcoderFileRoutes.get("/upload/transcoder/source", valid("query", signedQuery), async (c) => {
  const up = await postponedSong(c.env, "source", c.req.valid("query"));
  const object = await c.env.UPLOADS.get(up.file!.r2Key);
  if (!object) throw new ApiError(404, MSG.audioMissing);
  return new Response(object.body, {
    headers: {
      "Content-Type": up.file!.contentType,
      "Content-Length": String(object.size),
      "Cache-Control": "private, no-store",
    },
  });
});

/** PUT: the MP3 rendition, streamed into R2 with bounded memory; answers its key for the report. */
transcoderFileRoutes.put("/upload/transcoder/rendition", valid("query", signedQuery), async (c) => {
  const { songId } = c.req.valid("query");
  await postponedSong(c.env, "rendition", c.req.valid("query"));
  const body = c.req.raw.body;
  if (!body) throw new ApiError(400, MSG.renditionEmpty);
  if (Number(c.req.header("Content-Length")) > MAX_RENDITION_BYTES)
    throw new ApiError(413, MSG.renditionTooLarge(MAX_RENDITION_BYTES / MB));
  const key = renditionKey(songId);
  const writer = new R2StreamWriter(c.env.UPLOADS, key, {
    httpMetadata: { contentType: "audio/mpeg" },
    customMetadata: { songId },
  });
  try {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (writer.size + value.length > MAX_RENDITION_BYTES)
        throw new ApiError(413, MSG.renditionTooLarge(MAX_RENDITION_BYTES / MB));
      await writer.write(value);
    }
    if (writer.size === 0) throw new ApiError(400, MSG.renditionEmpty);
    await writer.close();
  } catch (err) {
    await writer.discard().catch(() => undefined);
    throw err;
  }
  return c.json({ mp3Key: key, size: writer.size }, 201);
});
