import { and, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { db } from "../db/client";
import { songFiles, songs } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { secretsEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { valid } from "../lib/validate";
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
 * Idempotent: only a POSTPONED song changes, with the condition in SQL, so a retried or
 * duplicated notification (SNS delivers at least once) changes nothing and answers the
 * current status; the first report wins.
 */
export const transcoderRoutes = new Hono<AppEnv>();

/** 401 unless `X-Transcoder-Secret` equals TRANSCODER_SECRET; with no secret set, always 401. */
const requireTranscoder = createMiddleware<AppEnv>(async (c, next) => {
  const given = c.req.header("X-Transcoder-Secret");
  const secret = c.env.TRANSCODER_SECRET;
  if (!secret || given === undefined || !(await secretsEqual(given, secret)))
    throw new ApiError(401, MSG.badTranscoderSecret);
  await next();
});

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

transcoderRoutes.post(
  "/upload/transcoder_sns",
  requireTranscoder,
  valid("json", report),
  async (c) => {
    const body = c.req.valid("json");
    const up = await findUploadOr404(c.env, body.songId);
    if (up.song.status !== "VERIFICATION_POSTPONED")
      return c.json({ songId: body.songId, status: up.song.status });
    const status =
      body.status === "COMPLETE"
        ? await complete(c.env, up, body.mp3Key!)
        : await settle(c.env, up, {
            status: "VERIFICATION_ERROR",
            detail: body.detail?.trim() || MSG.transcoderFailed,
            segments: null,
            duration: 0,
          });
    return c.json({ songId: body.songId, status });
  },
);

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
  return settle(
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
async function settle(
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
