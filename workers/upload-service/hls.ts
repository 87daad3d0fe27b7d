import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv, Env } from "../env";
import { requireAnyToken } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { hasRootSecret, purposeKey } from "../lib/purpose-keys";
import { valid } from "../lib/validate";
import {
  buildPlaylist,
  encryptSegment,
  SEGMENT_CONTAINERS,
  type SegmentContainer,
  songKey,
  verifyKeySig,
  verifyPlayGrant,
  verifySegmentSig,
} from "../songs/hls";
import { segmentStart, withTimestamp } from "../songs/hls-timestamp";
import { mp3ToTs } from "../songs/mpeg-ts";
import { SONG_MSG } from "../songs/messages";
import type { HlsSegment } from "../songs/mp3";
import { guestOverFreePlays } from "../room-service/guest-plays-repo";
import { fileEpoch, findUploadOr404, isAdmin, isOwner, songIdParam, type Upload } from "./common";
import { MSG } from "./messages";
import {
  CACHE_HEADER,
  cachedSegment,
  segmentCacheKey,
  segmentCacheOn,
  storeSegment,
} from "./segment-cache";

/**
 * HLS for uploaded songs (docs/DECISIONS.md, "Uploaded songs"): a playlist for any token
 * holder, then segments and the key behind signed, expiring URLs, because an <audio>
 * element or hls.js fetches those without our Authorization header. A segment is a byte
 * range of the stored MP3, read from R2 with a range request and encrypted as it goes out.
 * Every call re-checks VERIFIED, so an admin's takedown stops playback at once, even for
 * URLs already handed out.
 */
export const hlsRoutes = new Hono<AppEnv>();

/** The HLS purpose key (lib/purpose-keys.ts); 503 when ROOT_SECRET is not set. */
export function signingKey(env: Env): Promise<CryptoKey> {
  if (!hasRootSecret(env)) throw new ApiError(503, MSG.streamingNotConfigured);
  return purposeKey(env, "hls");
}

/** The song if it may play now: 404 unknown, 403 (the catalogue's text) unless VERIFIED with segments. */
async function playable(
  env: Env,
  songId: string,
): Promise<Upload & { segments: NonNullable<NonNullable<Upload["file"]>["segments"]> }> {
  const up = await findUploadOr404(env, songId);
  const segments = up.file?.segments;
  if (up.song.status !== "VERIFIED" || !segments?.length)
    throw new ApiError(403, SONG_MSG.notVerified);
  return { ...up, segments };
}

const signed = {
  exp: z.coerce
    .number({ error: "exp must be a number" })
    .int("exp must be a whole number")
    .min(0, "exp must not be negative"),
  sig: z.string({ error: "sig is required" }).min(1, "sig is required").max(100, "sig is too long"),
};
const badSig = () => new ApiError(403, MSG.badSignature);

/**
 * GET /songs/{songId}/hls-playlist: any valid token for a public upload (rooms play a DJ's
 * upload to everyone in them), only the owner and admins for a private one, but not a guest past the free-play limit (spec 001: "Guests beyond a free-play
 * limit cannot play"): 403 with the sign-up hint. The segments and key behind the signed
 * URLs are not asked again, so a playlist handed out before the limit plays to its end.
 */
/** A room's play grant for a private upload (workers/songs/hls.ts `playGrantQuery`). */
const grantQuery = z.object({
  container: z
    .enum(SEGMENT_CONTAINERS, {
      error: `container must be one of: ${SEGMENT_CONTAINERS.join(", ")}`,
    })
    .optional(),
  scope: z.string().max(100, "scope is too long").optional(),
  exp: z.coerce.number().int().min(0).optional(),
  sig: z.string().max(100, "sig is too long").optional(),
});

hlsRoutes.get(
  "/songs/:songId/hls-playlist",
  requireAnyToken,
  valid("param", songIdParam),
  valid("query", grantQuery),
  async (c) => {
    const { songId } = c.req.valid("param");
    const grant = c.req.valid("query");
    const who = c.get("caller");
    if (who?.type === "guest" && (await guestOverFreePlays(c.env, who.uuid)))
      throw new ApiError(403, MSG.guestOverFreePlays);
    const secret = await signingKey(c.env);
    const { song, file, segments } = await playable(c.env, songId);
    // Private means private (issue 18): only its owner, admins and the listeners of a room
    // playing it (a play grant) get a playlist, and so signed segment and key URLs. Anyone
    // else is told it does not exist, as GET /songs/{id} does.
    const granted =
      grant.scope !== undefined &&
      grant.exp !== undefined &&
      grant.sig !== undefined &&
      (await verifyPlayGrant(secret, songId, grant.scope, grant.exp, grant.sig));
    if (!song.isPublic && !isOwner(who, song) && !isAdmin(who) && !granted)
      throw new ApiError(404, SONG_MSG.songNotFound);
    const epoch = fileEpoch(file!);
    return c.body(await buildPlaylist(secret, songId, segments, epoch, grant.container), 200, {
      "Content-Type": "application/vnd.apple.mpegurl",
      // It carries URLs that expire: never served from a cache.
      "Cache-Control": "private, no-store",
    });
  },
);

/** GET /songs/hls/key?songId&exp&sig: the song's 16-byte AES key, for a signed URL from the playlist. */
hlsRoutes.get(
  "/songs/hls/key",
  valid("query", z.object({ songId: songIdParam.shape.songId, ...signed })),
  async (c) => {
    const { songId, exp, sig } = c.req.valid("query");
    const secret = await signingKey(c.env);
    if (!(await verifyKeySig(secret, songId, exp, sig))) throw badSig();
    await playable(c.env, songId);
    return c.body(await songKey(secret, songId), 200, {
      "Content-Type": "application/octet-stream",
      "Cache-Control": "private, no-store",
    });
  },
);

/**
 * GET /songs/{songId}/segments/{n}?v&exp&sig: one segment, AES-128-CBC encrypted with IV = n.
 * Clear, it is the RFC 8216 timestamp tag (songs/hls-timestamp.ts) then the segment's MPEG
 * audio frames. Once the signature checks out, the ciphertext comes from the segment cache
 * (segment-cache.ts) when this data center has it: no D1, R2 or AES for that listener.
 */
hlsRoutes.get(
  "/songs/:songId/segments/:n",
  valid(
    "param",
    songIdParam.extend({
      n: z.coerce
        .number({ error: "n must be a number" })
        .int("n must be a whole number")
        .min(0, "n must not be negative"),
    }),
  ),
  valid(
    "query",
    z.object({
      ...signed,
      v: z.coerce
        .number({ error: "v must be a number" })
        .int("v must be a whole number")
        .min(0, "v must not be negative")
        .optional(),
      c: z.enum(["ts"], { error: "c must be ts" }).optional(),
    }),
  ),
  async (c) => {
    const { songId, n } = c.req.valid("param");
    const { exp, sig, v, c: ts } = c.req.valid("query");
    const container: SegmentContainer = ts ?? "mp3";
    const secret = await signingKey(c.env);
    // The signature first: an unsigned request costs no cache, D1 or R2 read.
    if (!(await verifySegmentSig(secret, songId, n, exp, sig, v))) throw badSig();
    const cacheKey =
      v !== undefined && segmentCacheOn(c.env)
        ? await segmentCacheKey(c.env, c.req.url, secret, songId, n, v, container)
        : undefined;
    let body = cacheKey ? await cachedSegment(cacheKey) : undefined;
    const hit = body !== undefined;
    if (!body) {
      const { file, segments } = await playable(c.env, songId);
      body = await encryptedSegment(c.env, secret, songId, file!.r2Key, segments, n, container);
      // Stored only under the epoch it was made from: a URL from an older playlist gets
      // today's bytes, but never files them under the old version.
      if (cacheKey && v === fileEpoch(file!))
        await storeSegment(cacheKey, songId, body, CONTENT_TYPES[container]);
    }
    return c.body(body, 200, {
      "Content-Type": CONTENT_TYPES[container],
      "Cache-Control": "private",
      "Content-Length": String(body.byteLength),
      [CACHE_HEADER]: hit ? "hit" : "miss",
    });
  },
);

const CONTENT_TYPES: Record<SegmentContainer, string> = { mp3: "audio/mpeg", ts: "video/mp2t" };

/** Segment `n` as it goes out: R2 range read, packaged (timestamp tag or MPEG-TS), AES-128. */
async function encryptedSegment(
  env: Env,
  secret: CryptoKey,
  songId: string,
  r2Key: string,
  segments: HlsSegment[],
  n: number,
  container: SegmentContainer,
): Promise<ArrayBuffer> {
  const seg = segments[n];
  if (!seg) throw new ApiError(404, MSG.segmentNotFound);
  const object = await env.UPLOADS.get(r2Key, {
    range: { offset: seg.offset, length: seg.length },
  });
  if (!object) throw new ApiError(404, MSG.audioMissing);
  const frames = new Uint8Array(await object.arrayBuffer());
  const clear =
    container === "ts"
      ? mp3ToTs(frames, segmentStart(segments, n))
      : withTimestamp(segments, n, frames);
  return encryptSegment(await songKey(secret, songId), n, clear);
}
