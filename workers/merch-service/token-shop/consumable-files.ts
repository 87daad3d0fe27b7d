import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../db/client";
import { consumableFiles } from "../../db/schema";
import type { AppEnv } from "../../env";
import { caller, requireAdmin } from "../../lib/auth";
import { notFound } from "../../lib/errors";
import {
  IMAGE_TYPES,
  MB,
  serveUpload,
  storeUpload,
  uploadBodyLimit,
  type UploadRules,
  IMMUTABLE_CACHE,
} from "../../lib/uploads";
import { valid } from "../../lib/validate";
import { consumableFileUrl } from "./shop-dto";
import { MSG } from "../messages";

/**
 * The pictures and animations consumables show: `POST /api/v1/consumables/files` (admin,
 * multipart `file`: JPEG, PNG, GIF or WebP up to 10 MB, checked by its bytes) and
 * `GET /api/v1/consumables/files/{fileId}` (public). A file never changes, so its id is its
 * ETag and caches keep it for a year. Bytes are in R2 under `consumables/<id>`.
 */
export const consumableFileRoutes = new Hono<AppEnv>();

export const CONSUMABLE_FILE_RULES: UploadRules = {
  allow: IMAGE_TYPES,
  maxBytes: 10 * MB,
  field: "file",
};
const r2Key = (id: string) => `consumables/${id}`;

const uploadForm = z.object({
  file: z.instanceof(File, { error: "file is required: send the image as a multipart file field" }),
});
const fileParam = z.object({ fileId: z.uuid({ error: "fileId must be a UUID" }) });

/** R2 first, then the row; if the row fails the bytes are removed, so no row names nothing. */
consumableFileRoutes.post(
  "/api/v1/consumables/files",
  requireAdmin,
  uploadBodyLimit(CONSUMABLE_FILE_RULES),
  valid("form", uploadForm),
  async (c) => {
    const id = crypto.randomUUID();
    const stored = await storeUpload(
      c.env.UPLOADS,
      r2Key(id),
      c.req.valid("form").file,
      CONSUMABLE_FILE_RULES,
      { cacheControl: IMMUTABLE_CACHE },
    );
    try {
      await db(c.env)
        .insert(consumableFiles)
        .values({
          id,
          contentType: stored.contentType,
          size: stored.size,
          ownerUuid: caller(c).uuid,
        });
    } catch (err) {
      await c.env.UPLOADS.delete(stored.key);
      throw err;
    }
    return c.json(
      { id, url: consumableFileUrl(id), contentType: stored.contentType, size: stored.size },
      201,
    );
  },
);

consumableFileRoutes.get(
  "/api/v1/consumables/files/:fileId",
  valid("param", fileParam),
  async (c) => {
    const { fileId } = c.req.valid("param");
    const row = await db(c.env)
      .select()
      .from(consumableFiles)
      .where(eq(consumableFiles.id, fileId))
      .get();
    if (!row) throw notFound(MSG.fileNotFound);
    return serveUpload(
      c.req.raw,
      c.env.UPLOADS,
      {
        key: r2Key(row.id),
        size: row.size,
        contentType: row.contentType,
        etag: `"${row.id}"`,
        cacheControl: IMMUTABLE_CACHE,
      },
      MSG.fileNotFound,
    );
  },
);
