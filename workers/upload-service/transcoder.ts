import { and, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { songFiles, songs } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { SIGNATURE_HEADER, verifyTranscoderBody } from "../adapters/transcoder";
import { ApiError } from "../lib/errors";
import { parseOr400 } from "../lib/validate";
import { recordFacetsQuietly } from "../songs/facets";
import { indexMp3Stream } from "../songs/mp3";
import {
  findUploadOr404,
  mergeTags,
  songPrefix,
  verdict,
  type Upload,
  type Verdict,
} from "./common";
import { MSG } from "./messages";

/**
 * POST /upload/transcoder_sns: the outside transcoder reports on a song that was
 * VERIFICATION_POSTPONED (WAV, FLAC, Ogg, M4A). COMPLETE names the MP3 rendition it wrote
 * to R2 under the song's prefix; we index that MP3 exactly as an uploaded one and the song
 * settles (table in uploads.ts). ERROR settles it as VERIFICATION_ERROR.
 *
 * Signed (`X-Transcoder-Signature`, adapters/transcoder.ts): a body whose signature does not
 * hold, or was made over 5 minutes ago, is 401 before anything is read. With no
 * TRANSCODER_SECRET set, every report is 401.
 *
 * Idempotent: only a POSTPONED song changes, with the condition in SQL, so a retried or
 * duplicated notification (SNS delivers at least once) changes nothing and answers the
 * current status; the first report wins.
 */
export const transcoderRoutes = new Hono<AppEnv>();

const report = z
  .strictObject({
    songId: z.uuid({ error: "songId must be a UUID" }),
    status: z.enum(["COMPLETE", "ERROR"], { error: "status must be COMPLETE or ERROR" }),
    mp3Key: z
      .string({ error: "mp3Key must be a string" })
      .min(1, "mp3Key must not be empty")
      .max(1024, "mp3Key must be at most 1024 characters")
      .optional(),
    detail: z
      .string({ error: "detail must be a string" })
      .max(1000, "detail must be at most 1000 characters")
      .optional(),
  })
  .superRefine((r, ctx) => {
    if (r.status !== "COMPLETE") return;
    if (!r.mp3Key)
      ctx.addIssue({
        code: "custom",
        path: ["mp3Key"],
        message: "mp3Key is required when status is COMPLETE",
      });
    // Renditions live beside the original, so deleting the song removes them too.
    else if (!r.mp3Key.startsWith(songPrefix(r.songId)) || r.mp3Key.includes(".."))
      ctx.addIssue({
        code: "custom",
        path: ["mp3Key"],
        message: `mp3Key must be under ${songPrefix(r.songId)}`,
      });
  });

transcoderRoutes.post("/upload/transcoder_sns", async (c) => {
  // The gateway caps the body (1 MiB); the signature covers its exact bytes.
  const raw = await c.req.text();
  if (!(await verifyTranscoderBody(c.env.TRANSCODER_SECRET, c.req.header(SIGNATURE_HEADER), raw)))
    throw new ApiError(401, MSG.badTranscoderSignature);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ApiError(400, MSG.reportNotJson);
  }
  const body = parseOr400(report, json);
  const up = await findUploadOr404(c.env, body.songId);
  if (up.song.status !== "VERIFICATION_POSTPONED")
    return c.json({ songId: body.songId, status: up.song.status });
  const status =
    body.status === "COMPLETE"
      ? await complete(c.env, up, body.mp3Key!)
      : await settlePostponed(c.env, up, failed(body.detail?.trim() || MSG.transcoderFailed));
  return c.json({ songId: body.songId, status });
});

/** The verdict for a transcode that failed: no audio to play. */
export const failed = (detail: string): Verdict => ({
  status: "VERIFICATION_ERROR",
  detail,
  segments: null,
  duration: 0,
});

/** Indexes the rendition as it streams out of R2 (never whole in memory) and settles the song. */
async function complete(env: Env, up: Upload, mp3Key: string) {
  const object = await env.UPLOADS.get(mp3Key);
  // Nothing changes, so a corrected retry still can.
  if (!object) throw new ApiError(400, MSG.mp3KeyMissing);
  const ix = await indexMp3Stream(object.body);
  // Names the owner already gave win; the rendition's ID3 tag fills the gaps.
  const s = up.song;
  const names = mergeTags(
    {
      trackName: s.trackName || undefined,
      artistName: s.artistName || undefined,
      albumName: s.albumName ?? undefined,
      genre: s.genre ?? undefined,
    },
    ix.tags,
  );
  return settlePostponed(
    env,
    up,
    verdict(ix, names),
    { ...names, releaseYear: s.releaseYear ?? names.releaseYear },
    { r2Key: mp3Key, contentType: "audio/mpeg", size: object.size },
  );
}

/**
 * One batch, both rows conditional on the song still being POSTPONED: the file row first
 * (its condition reads the song's status before the second statement changes it).
 */
export async function settlePostponed(
  env: Env,
  up: Upload,
  v: Verdict,
  names: Partial<typeof songs.$inferInsert> = {},
  file: Partial<typeof songFiles.$inferInsert> = {},
) {
  const d = db(env);
  const id = up.song.id;
  const now = Date.now();
  const postponed = sql`exists (select 1 from songs s where s.id = ${id} and s.status = 'VERIFICATION_POSTPONED')`;
  await d.batch([
    d
      .update(songFiles)
      .set({ ...file, segments: v.segments, detail: v.detail, updatedAt: now })
      .where(and(eq(songFiles.songId, id), postponed)),
    d
      .update(songs)
      .set({ ...names, status: v.status, duration: v.duration, updatedAt: now })
      .where(and(eq(songs.id, id), eq(songs.status, "VERIFICATION_POSTPONED"))),
  ]);
  // A racing duplicate may have settled it first: answer what is stored.
  const stored = (await findUploadOr404(env, up.song.songId)).song;
  await recordFacetsQuietly(env, stored);
  return stored.status;
}
