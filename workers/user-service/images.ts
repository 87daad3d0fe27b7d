import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { ADMIN_ROLES, IMAGE_KINDS } from "../../shared/roles";
import { db } from "../db/client";
import { userImages, users } from "../db/schema";
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
import { valid } from "../lib/validate";
import { MSG } from "./messages";

/** Profile and cover pictures: upload, serve, delete. Bytes live in R2, the record in D1. */
export const imageRoutes = new Hono<AppEnv>();

export const IMAGE_RULES: UploadRules = { allow: IMAGE_TYPES, maxBytes: 5 * MB, field: "file" };

export const imageUrl = (id: string) => `/api/user-service/users/images/${id}`;

const uploadForm = z.object({
  file: z.instanceof(File, { error: "file is required: send the image as a multipart file field" }),
  kind: z.enum(IMAGE_KINDS, { error: `kind must be one of ${IMAGE_KINDS.join(", ")}` }),
});
const imageId = z.object({ id: z.uuid({ error: "id must be a UUID" }) });

/**
 * POST /users/images (multipart `file`, `kind`): stores the picture and makes it the user's
 * current one. R2 first, then one D1 batch (row + profile field); if D1 fails the object is
 * removed again, so no record ever points at missing bytes.
 */
imageRoutes.post(
  "/users/images",
  requireUser,
  uploadBodyLimit(IMAGE_RULES),
  valid("form", uploadForm),
  async (c) => {
    const who = caller(c);
    const { file, kind } = c.req.valid("form");
    const id = crypto.randomUUID();
    const stored = await storeUpload(
      c.env.UPLOADS,
      `users/${who.uuid}/${kind}/${id}`,
      file,
      IMAGE_RULES,
      { cacheControl: IMMUTABLE_CACHE },
    );
    const url = imageUrl(id);
    const d = db(c.env);
    try {
      await d.batch([
        d.insert(userImages).values({
          id,
          userUuid: who.uuid,
          kind,
          r2Key: stored.key,
          contentType: stored.contentType,
          size: stored.size,
        }),
        d
          .update(users)
          .set({ [kind]: url, updatedAt: Date.now() })
          .where(eq(users.id, who.user.id)),
      ]);
    } catch (err) {
      await c.env.UPLOADS.delete(stored.key);
      throw err;
    }
    return c.json({ id, kind, url, contentType: stored.contentType, size: stored.size }, 201);
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
