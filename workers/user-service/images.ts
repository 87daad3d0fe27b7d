import { and, eq, ne } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { ADMIN_ROLES, IMAGE_KINDS } from "../../shared/roles";
import { db } from "../db/client";
import { userImages, users } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { reencodeImage, type RasterType, type ReencodeRules } from "../lib/images";
import { RULES } from "../lib/abuse-limits";
import { takeAttempt } from "../lib/rate-limit";
import {
  checkUpload,
  IMAGE_TYPES,
  MB,
  serveUpload,
  uploadBodyLimit,
  type UploadRules,
  IMMUTABLE_CACHE,
} from "../lib/uploads";
import { valid } from "../lib/validate";
import { MSG } from "./messages";

/**
 * Profile and cover pictures: upload, serve, delete. Bytes live in R2, the record in D1.
 * What is stored is never the file as sent: it is decoded and encoded again (lib/images.ts),
 * so EXIF (GPS position, camera, time) and every other kind of metadata are gone, and a
 * JPEG's orientation is applied first. Each account holds one picture per kind: uploading
 * another deletes the one it replaces, so a replaced picture stops being served at once.
 */
export const imageRoutes = new Hono<AppEnv>();

export const IMAGE_RULES: UploadRules = { allow: IMAGE_TYPES, maxBytes: 5 * MB, field: "file" };

/**
 * Decoding costs 4 bytes a pixel of the isolate's 128 MB, so a picture may have at most
 * 12.6 megapixels (a 4032 x 3024 phone photo fits) and 4096 pixels a side; it is stored
 * at most 2048 pixels a side, more than any place shows it.
 */
export const PICTURE_RULES: ReencodeRules = {
  maxSide: 4096,
  maxPixels: 4096 * 3072,
  storeSide: 2048,
  maxBytes: IMAGE_RULES.maxBytes,
};

/** Uploads per account per hour: a decode costs real CPU, and nobody changes pictures faster. */
export const PICTURE_UPLOADS_PER_HOUR = RULES.pictureUpload.limit;

export const imageUrl = (id: string) => `/api/user-service/users/images/${id}`;

const uploadForm = z.object({
  file: z.instanceof(File, { error: "file is required: send the image as a multipart file field" }),
  kind: z.enum(IMAGE_KINDS, { error: `kind must be one of ${IMAGE_KINDS.join(", ")}` }),
});
const imageId = z.object({ id: z.uuid({ error: "id must be a UUID" }) });

/**
 * POST /users/images (multipart `file`, `kind`): stores the picture, clean, and makes it the
 * user's current one. Checks first (400 empty, 413 over 5 MB, 415 not an image by its
 * bytes), then a slot of the hourly quota (429), then the decode (400 unreadable or too
 * many pixels). R2 first, then one D1 batch (new row, profile field, and the rows of the
 * pictures of this kind it replaces); if D1 fails the new object is removed again, so no
 * record ever points at missing bytes. The replaced objects are deleted last: a failure
 * there leaves bytes nobody links to and the GET route no longer serves (it reads D1).
 */
imageRoutes.post(
  "/users/images",
  requireUser,
  uploadBodyLimit(IMAGE_RULES),
  valid("form", uploadForm),
  async (c) => {
    const who = caller(c);
    const { file, kind } = c.req.valid("form");
    const type = (await checkUpload(file, IMAGE_RULES)) as RasterType;
    await takeAttempt(c.env, [{ rule: "pictureUpload", key: who.uuid }], MSG.tooManyPictureUploads);
    const clean = await reencodeImage(
      new Uint8Array(await file.arrayBuffer()),
      type,
      PICTURE_RULES,
    );
    const id = crypto.randomUUID();
    const key = `users/${who.uuid}/${kind}/${id}`;
    await c.env.UPLOADS.put(key, clean.bytes, {
      httpMetadata: { contentType: clean.contentType, cacheControl: IMMUTABLE_CACHE },
    });
    const url = imageUrl(id);
    const d = db(c.env);
    let replaced: { r2Key: string }[];
    try {
      [, , replaced] = await d.batch([
        d.insert(userImages).values({
          id,
          userUuid: who.uuid,
          kind,
          r2Key: key,
          contentType: clean.contentType,
          size: clean.bytes.length,
        }),
        d
          .update(users)
          .set({ [kind]: url, updatedAt: Date.now() })
          .where(eq(users.id, who.user.id)),
        // Every other picture of this kind: batches run one at a time, so whichever of two
        // racing uploads commits last keeps its picture and the field that names it.
        d
          .delete(userImages)
          .where(
            and(
              eq(userImages.userUuid, who.uuid),
              eq(userImages.kind, kind),
              ne(userImages.id, id),
            ),
          )
          .returning({ r2Key: userImages.r2Key }),
      ]);
    } catch (err) {
      await c.env.UPLOADS.delete(key);
      throw err;
    }
    if (replaced.length)
      await c.env.UPLOADS.delete(replaced.map((r) => r.r2Key)).catch((err) =>
        console.error("replaced picture cleanup failed", err),
      );
    return c.json({ id, kind, url, contentType: clean.contentType, size: clean.bytes.length }, 201);
  },
);

/** GET /users/images/{id}: public, cacheable for a year, with Range and If-None-Match. */
imageRoutes.get("/users/images/:id", valid("param", imageId), async (c) => {
  const { id } = c.req.valid("param");
  const row = await db(c.env).select().from(userImages).where(eq(userImages.id, id)).get();
  if (!row) throw new ApiError(404, MSG.imageNotFound);
  // The id names one immutable image, so it is a strong validator on its own.
  return serveUpload(
    c.req.raw,
    c.env.UPLOADS,
    {
      key: row.r2Key,
      size: row.size,
      contentType: row.contentType,
      etag: `"${row.id}"`,
      cacheControl: IMMUTABLE_CACHE,
    },
    MSG.imageNotFound,
  );
});

/**
 * DELETE /users/images/{id}: the owner or an admin. D1 first (record gone and, if it was
 * the current picture or cover, that field cleared, in one batch), then the R2 object:
 * a failure in between leaves unreferenced bytes, never a link to nothing.
 */
imageRoutes.delete("/users/images/:id", requireUser, valid("param", imageId), async (c) => {
  const who = caller(c);
  const { id } = c.req.valid("param");
  const d = db(c.env);
  const row = await d.select().from(userImages).where(eq(userImages.id, id)).get();
  if (!row) throw new ApiError(404, MSG.imageNotFound);
  if (row.userUuid !== who.uuid && !who.roles.some((r) => ADMIN_ROLES.includes(r)))
    throw new ApiError(403, MSG.imageDeleteRefused);
  const url = imageUrl(id);
  const now = Date.now();
  await d.batch([
    d.delete(userImages).where(eq(userImages.id, id)),
    d
      .update(users)
      .set({ profilePicture: null, updatedAt: now })
      .where(and(eq(users.uuid, row.userUuid), eq(users.profilePicture, url))),
    d
      .update(users)
      .set({ coverPicture: null, updatedAt: now })
      .where(and(eq(users.uuid, row.userUuid), eq(users.coverPicture, url))),
  ]);
  await c.env.UPLOADS.delete(row.r2Key);
  return c.json({ id, deleted: true });
});
