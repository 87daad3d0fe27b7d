import type { PhotonImage } from "@cf-wasm/photon";
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import {
  AVATAR_SIZES,
  DEFAULT_AVATAR_SIZE,
  slugArtSvg,
  type AvatarSize,
} from "../../../shared/avatar-art";
import { db } from "../../db/client";
import { avatars, type AvatarRow } from "../../db/schema";
import type { AppEnv, Env } from "../../env";
import { requireAdmin } from "../../lib/auth";
import { ApiError, badRequest, notFound } from "../../lib/errors";
import {
  checkUpload,
  MB,
  sniffType,
  SNIFF_BYTES,
  unsupportedTypeMessage,
  uploadBodyLimit,
  type UploadRules,
} from "../../lib/uploads";
import { loadPhoton, rasterSize, type RasterType } from "../../lib/images";
import { valid } from "../../lib/validate";
import { MSG } from "../messages";

/**
 * Avatar art in R2 (seed 000: thumbnails at 128, 256 by default, 500 and 1024; a 60 s cache).
 *
 * - PNG, JPEG and WebP are decoded once, at upload, by photon (WASM) and stored as PNG
 *   thumbnails at every size (fitted inside size x size, aspect kept), so serving is one R2
 *   read and never costs image CPU.
 * - SVG is stored as sent and served at every size (it scales). It is refused if it carries
 *   script or event handlers, and always served with a CSP that forbids script, plus nosniff,
 *   so even a file opened directly cannot run code on our origin.
 * - An avatar without art answers art drawn from its slug, so a client never shows a
 *   broken image.
 *
 * R2 keys: the original at `imageKey` = `avatars/<slug>/<uploadId>.<ext>`, thumbnails at
 * `<imageKey>/<size>`. A new upload gets a new id, so the id is the art's ETag and a URL
 * carrying `?v=<id>` never serves stale art past the 60 s cache.
 */
export const avatarArtRoutes = new Hono<AppEnv>();

/** Raster files are decoded in memory: 2 MB and 2048 x 2048 keep that well inside a Worker's 128 MB. */
const RASTER_RULES: UploadRules = {
  allow: ["image/png", "image/jpeg", "image/webp"],
  maxBytes: 2 * MB,
  field: "file",
};
const MAX_SIDE = 2048;
const SVG_MAX_BYTES = 256 * 1024;
const ART_LIMIT: UploadRules = {
  ...RASTER_RULES,
  maxBytes: Math.max(RASTER_RULES.maxBytes, SVG_MAX_BYTES),
};

export const ART_CACHE = "public, max-age=60";
export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";

const EXT = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/svg+xml": "svg",
} as const;
type ArtType = keyof typeof EXT;

export const artPath = (slug: string) => `/api/merch-service/avatars/${slug}/image`;

/** Where the art of `row` is served; `v` changes with every upload (cache busting). */
export function artUrl(row: Pick<AvatarRow, "slug" | "imageKey">, size?: AvatarSize): string {
  const q = new URLSearchParams();
  if (size && size !== DEFAULT_AVATAR_SIZE) q.set("size", String(size));
  q.set("v", uploadId(row.imageKey) ?? "0");
  return `${artPath(row.slug)}?${q}`;
}

const uploadId = (key: string | null) => key?.split("/").pop()?.split(".")[0] ?? null;
const isSvgKey = (key: string) => key.endsWith(".svg");

/** Whether text is an SVG document: optional BOM, XML declaration, comments or doctype, then `<svg`. */
function looksLikeSvg(text: string): boolean {
  const head = text.replace(/^\uFEFF/, "").slice(0, 4096);
  return /^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i.test(head);
}

// What could run code if the file were ever inlined into a page; the CSP covers direct loads.
const SVG_ACTIVE =
  /<script|<foreignObject|<iframe|<embed|<object|\son[a-z]+\s*=|javascript:|<!ENTITY/i;

/** Decodes once and encodes a PNG fitted inside each size; a file photon cannot read is a 400. */
async function thumbnails(bytes: Uint8Array): Promise<Map<AvatarSize, Uint8Array>> {
  const { PhotonImage, resize, SamplingFilter } = await loadPhoton();
  let source: PhotonImage;
  try {
    source = PhotonImage.new_from_byteslice(bytes);
  } catch {
    throw badRequest(MSG.artUnreadable);
  }
  try {
    const w = source.get_width();
    const h = source.get_height();
    const out = new Map<AvatarSize, Uint8Array>();
    for (const size of AVATAR_SIZES) {
      const scale = size / Math.max(w, h);
      const img = resize(
        source,
        Math.max(1, Math.round(w * scale)),
        Math.max(1, Math.round(h * scale)),
        SamplingFilter.Lanczos3,
      );
      try {
        out.set(size, img.get_bytes());
      } finally {
        img.free();
      }
    }
    return out;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw badRequest(MSG.artUnreadable);
  } finally {
    source.free();
  }
}

/** Checks the file and answers what to store: the original and, for raster art, its thumbnails. */
async function prepareArt(
  file: File,
): Promise<{ type: ArtType; original: Uint8Array; thumbs: Map<AvatarSize, Uint8Array> }> {
  if (file.size === 0) throw badRequest(MSG.artFileEmpty);
  const head = new Uint8Array(await file.slice(0, 4096).arrayBuffer());
  if (!sniffType(head.slice(0, SNIFF_BYTES))) {
    // Not a known binary type: it may be SVG text (what the bytes say, never the file name).
    const text = new TextDecoder("utf-8", { fatal: false }).decode(head);
    if (!looksLikeSvg(text)) throw new ApiError(415, MSG.artTypes);
    if (file.size > SVG_MAX_BYTES)
      throw new ApiError(413, MSG.artSvgTooLarge(SVG_MAX_BYTES / 1024));
    const original = new Uint8Array(await file.arrayBuffer());
    const full = new TextDecoder("utf-8", { fatal: false }).decode(original);
    if (SVG_ACTIVE.test(full)) throw badRequest(MSG.artSvgActive);
    return { type: "image/svg+xml", original, thumbs: new Map() };
  }
  let type: ArtType;
  try {
    // checkUpload answers only types in RASTER_RULES.allow.
    type = (await checkUpload(file, RASTER_RULES)) as ArtType;
  } catch (err) {
    if (
      err instanceof ApiError &&
      err.status === 415 &&
      err.body === unsupportedTypeMessage(RASTER_RULES)
    )
      throw new ApiError(415, MSG.artTypes);
    throw err;
  }
  const original = new Uint8Array(await file.arrayBuffer());
  const dims = rasterSize(original, type as RasterType); // raster: SVG returned above
  if (!dims || dims.width === 0 || dims.height === 0) throw badRequest(MSG.artUnreadable);
  if (dims.width > MAX_SIDE || dims.height > MAX_SIDE)
    throw badRequest(MSG.artTooLarge(MAX_SIDE, dims.width, dims.height));
  return { type, original, thumbs: await thumbnails(original) };
}

/** Every R2 key under an art upload (the original and its thumbnails). */
export const artKeys = (imageKey: string) => [
  imageKey,
  ...AVATAR_SIZES.map((s) => `${imageKey}/${s}`),
];

/** Removes an upload's objects; a failure only leaves unreferenced bytes behind. */
export async function deleteArt(env: Pick<Env, "UPLOADS">, imageKey: string | null) {
  if (imageKey)
    await env.UPLOADS.delete(artKeys(imageKey)).catch((err) =>
      console.error("avatar art cleanup failed", imageKey, err),
    );
}

const slugParam = z.object({ slug: z.string().min(1).max(100) });
const sizeQuery = z.object({
  size: z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s === "") return DEFAULT_AVATAR_SIZE;
      const n = Number(s);
      if (!(AVATAR_SIZES as readonly number[]).includes(n)) {
        ctx.addIssue({ code: "custom", message: `size must be one of ${AVATAR_SIZES.join(", ")}` });
        return z.NEVER;
      }
      return n as AvatarSize;
    }),
  v: z.string().max(64).optional(),
});

const artHeaders = (contentType: string, etag: string, svg: boolean) => {
  const h = new Headers({
    "Content-Type": contentType,
    ETag: etag,
    "Cache-Control": ART_CACHE,
    "X-Content-Type-Options": "nosniff",
  });
  if (svg) h.set("Content-Security-Policy", SVG_CSP);
  return h;
};

const notModified = (req: Request, etag: string) =>
  req.headers
    .get("If-None-Match")
    ?.split(",")
    .some((t) => t.trim().replace(/^W\//, "") === etag) ?? false;

/**
 * GET /avatars/{slug}/image?size=128|256|500|1024: public (a room shows everyone's avatar).
 * 304 when If-None-Match names the ETag, answered from D1 alone.
 */
avatarArtRoutes.get(
  "/avatars/:slug/image",
  valid("param", slugParam),
  valid("query", sizeQuery),
  async (c) => {
    const { slug } = c.req.valid("param");
    const { size } = c.req.valid("query");
    const row = await db(c.env)
      .select({ slug: avatars.slug, imageKey: avatars.imageKey })
      .from(avatars)
      .where(eq(avatars.slug, slug))
      .get();
    if (!row) throw notFound(MSG.avatarNotFound);
    if (!row.imageKey) {
      const etag = `"slug-${size}"`;
      const headers = artHeaders("image/svg+xml; charset=utf-8", etag, true);
      if (notModified(c.req.raw, etag)) return new Response(null, { status: 304, headers });
      return new Response(slugArtSvg(row.slug, size), { headers });
    }
    const svg = isSvgKey(row.imageKey);
    const etag = `"${uploadId(row.imageKey)}-${svg ? "svg" : size}"`;
    const headers = artHeaders(svg ? "image/svg+xml" : "image/png", etag, svg);
    if (notModified(c.req.raw, etag)) return new Response(null, { status: 304, headers });
    const object = await c.env.UPLOADS.get(svg ? row.imageKey : `${row.imageKey}/${size}`);
    if (!object) throw notFound(MSG.artNotFound);
    headers.set("Content-Length", String(object.size));
    return new Response(object.body, { headers });
  },
);

/**
 * PUT /avatars/{slug}/image (admin, multipart `file`: PNG, JPEG, WebP or SVG): replaces the
 * art. R2 first (original and thumbnails), then D1; if D1 fails the new objects are removed,
 * and the old ones only after D1 points at the new, so no row ever names missing bytes.
 */
avatarArtRoutes.put(
  "/avatars/:slug/image",
  requireAdmin,
  uploadBodyLimit(ART_LIMIT),
  valid("param", slugParam),
  valid(
    "form",
    z.object({
      file: z.instanceof(File, {
        error: "file is required: send the art as a multipart file field",
      }),
    }),
  ),
  async (c) => {
    const { slug } = c.req.valid("param");
    const d = db(c.env);
    const row = await d.select().from(avatars).where(eq(avatars.slug, slug)).get();
    if (!row) throw notFound(MSG.avatarNotFound);
    const art = await prepareArt(c.req.valid("form").file);
    const imageKey = `avatars/${slug}/${crypto.randomUUID()}.${EXT[art.type]}`;
    const meta = { cacheControl: ART_CACHE };
    await Promise.all([
      c.env.UPLOADS.put(imageKey, art.original, {
        httpMetadata: { contentType: art.type, ...meta },
      }),
      ...[...art.thumbs].map(([size, bytes]) =>
        c.env.UPLOADS.put(`${imageKey}/${size}`, bytes, {
          httpMetadata: { contentType: "image/png", ...meta },
        }),
      ),
    ]);
    let updated: AvatarRow;
    try {
      updated = (await d
        .update(avatars)
        .set({ imageKey, updatedAt: Date.now() })
        .where(eq(avatars.slug, slug))
        .returning()
        .get())!;
    } catch (err) {
      await deleteArt(c.env, imageKey);
      throw err;
    }
    if (!updated) {
      // Deleted while we uploaded.
      await deleteArt(c.env, imageKey);
      throw notFound(MSG.avatarNotFound);
    }
    c.executionCtx.waitUntil(deleteArt(c.env, row.imageKey));
    return c.json({
      slug,
      contentType: art.type,
      imageUrl: artUrl(updated),
      sizes: art.thumbs.size ? [...art.thumbs.keys()] : AVATAR_SIZES,
    });
  },
);
