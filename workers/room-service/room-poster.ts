import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import {
  IMAGE_TYPES,
  MB,
  serveUpload,
  storeUpload,
  uploadBodyLimit,
  type UploadRules,
  IMMUTABLE_CACHE,
} from "../lib/uploads";
import { fields, valid } from "../lib/validate";
import { toRoomDto } from "./room-dto";
import { requireRoomAccess, roomIdParam, roomOr404, updateRoom } from "./room-repo";
import { MSG } from "./messages";

/**
 * A room's poster: one image in R2 under `rooms/<roomUuid>/poster/<posterId>`. Every upload
 * gets a new id, so a poster URL names immutable bytes and caches may keep it for a year;
 * the previous poster's bytes are removed once the row points at the new one.
 */
export const roomPosterRoutes = new Hono<AppEnv>();

export const POSTER_RULES: UploadRules = { allow: IMAGE_TYPES, maxBytes: 5 * MB, field: "file" };
const posterKey = (roomUuid: string, posterId: string) => `rooms/${roomUuid}/poster/${posterId}`;
export const posterUrl = (roomUuid: string, posterId: string) =>
  `/api/room-service/rooms/poster/${roomUuid}/${posterId}`;
/** The R2 key a stored posterUrl points at (only our own URLs are ever stored). */
const keyOfUrl = (url: string | null) => {
  const m = url?.match(/\/rooms\/poster\/([0-9a-f-]{36})\/([0-9a-f-]{36})$/);
  return m ? posterKey(m[1], m[2]) : undefined;
};

const posterForm = z.object({
  file: z.instanceof(File, { error: "file is required: send the image as a multipart file field" }),
});

/** POST /rooms/{id}/poster (multipart `file`: JPEG, PNG, WebP or GIF, at most 5 MB): owner, co-owner or admin → RoomDto. */
roomPosterRoutes.post(
  "/rooms/:id/poster",
  requireUser,
  valid("param", roomIdParam),
  uploadBodyLimit(POSTER_RULES),
  valid("form", posterForm),
  async (c) => {
    const room = await roomOr404(c.env, c.req.valid("param").id);
    await requireRoomAccess(c.env, room, caller(c), ["coOwner"], MSG.editRefused);
    const posterId = crypto.randomUUID();
    const stored = await storeUpload(
      c.env.UPLOADS,
      posterKey(room.uuid, posterId),
      c.req.valid("form").file,
      POSTER_RULES,
      { cacheControl: IMMUTABLE_CACHE },
    );
    let row;
    try {
      row = await updateRoom(c.env, room, { posterUrl: posterUrl(room.uuid, posterId) });
    } catch (err) {
      // No record may point at missing bytes, and no bytes should outlive a failed record.
      await c.env.UPLOADS.delete(stored.key);
      throw err;
    }
    const old = keyOfUrl(room.posterUrl);
    if (old) await c.env.UPLOADS.delete(old);
    return c.json(toRoomDto(row), 201);
  },
);

/** DELETE /rooms/{id}/poster: clears the poster; the row first, then the bytes. */
roomPosterRoutes.delete(
  "/rooms/:id/poster",
  requireUser,
  valid("param", roomIdParam),
  async (c) => {
    const room = await roomOr404(c.env, c.req.valid("param").id);
    await requireRoomAccess(c.env, room, caller(c), ["coOwner"], MSG.editRefused);
    if (!room.posterUrl) throw new ApiError(404, MSG.posterNotFound);
    const row = await updateRoom(c.env, room, { posterUrl: null });
    const old = keyOfUrl(room.posterUrl);
    if (old) await c.env.UPLOADS.delete(old);
    return c.json(toRoomDto(row));
  },
);

/** GET /rooms/poster/{roomUuid}/{posterId}: public, immutable, with Range and If-None-Match. */
roomPosterRoutes.get(
  "/rooms/poster/:roomUuid/:posterId",
  valid("param", z.object({ roomUuid: fields.uuid, posterId: fields.uuid })),
  async (c) => {
    const { roomUuid, posterId } = c.req.valid("param");
    const key = posterKey(roomUuid.toLowerCase(), posterId.toLowerCase());
    // The id names one immutable image, so it is a strong validator on its own; the head
    // (metadata only) gives the size and type serveUpload needs.
    const etag = `"${posterId.toLowerCase()}"`;
    const head = await c.env.UPLOADS.head(key);
    if (!head) throw new ApiError(404, MSG.posterNotFound);
    return serveUpload(
      c.req.raw,
      c.env.UPLOADS,
      {
        key,
        size: head.size,
        contentType: head.httpMetadata?.contentType ?? "application/octet-stream",
        etag,
        cacheControl: IMMUTABLE_CACHE,
      },
      MSG.posterNotFound,
    );
  },
);
