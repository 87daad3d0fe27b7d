import { and, count, desc, eq, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../db/client";
import { products, tokenBundles } from "../../db/schema";
import type { AppEnv } from "../../env";
import { requireAdmin } from "../../lib/auth";
import { conflict, isUniqueViolation, notFound } from "../../lib/errors";
import { limitOffset } from "../../lib/paging";
import {
  IMAGE_TYPES,
  MB,
  serveUpload,
  storeUpload,
  uploadBodyLimit,
  type UploadRules,
  IMMUTABLE_CACHE,
} from "../../lib/uploads";
import { cleanText, valid } from "../../lib/validate";
import { toBundleDto } from "./shop-dto";
import { MSG } from "../messages";

/**
 * Token bundles (seed 000): tokens sold as a payment-service product. Reads are public (the
 * bundles page lists them); writes are for admins. Deletion is `POST /{id}`, as the spec
 * names it. The thumbnail is stored in R2 under `token-bundles/<id>/<uuid>` and served at
 * `GET /api/v1/token-bundles/{id}/thumbnail`.
 *
 * A product is sold by at most one bundle (the unique index on `product_id`): creating a
 * bundle for, or moving one onto, a product another bundle sells is 409 and writes nothing.
 * The index decides, so of two racing creates exactly one wins.
 */
export const tokenBundleRoutes = new Hono<AppEnv>();

const P = "/api/v1/token-bundles";
/** Seed 000, section 9: token bundles are listed 32 a page. */
export const BUNDLE_PAGE = 32;
const THUMB_RULES: UploadRules = { allow: IMAGE_TYPES, maxBytes: 5 * MB, field: "file" };

const line = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} must not be empty`)
    .max(max, `${name} must be at most ${max} characters`)
    .refine((s) => cleanText(s), `${name} must not contain control characters`);
const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .max(max, `${name} must be at most ${max} characters`)
    .refine((s) => cleanText(s, true), `${name} must not contain control characters`);

const bundleFields = {
  productId: line("productId", 100),
  name: line("name", 100),
  description: text("description", 1000).nullable(),
  tokenAmount: z
    .number({ error: "tokenAmount must be a number" })
    .int("tokenAmount must be an integer")
    .min(1, "tokenAmount must be at least 1")
    .max(10_000_000, "tokenAmount must be at most 10000000"),
};
const createBody = z.strictObject(
  { ...bundleFields, description: bundleFields.description.optional() },
  { error: unknownOr("body must be a JSON object") },
);
const patchBody = z
  .strictObject(
    {
      productId: bundleFields.productId.optional(),
      name: bundleFields.name.optional(),
      description: bundleFields.description.optional(),
      tokenAmount: bundleFields.tokenAmount.optional(),
    },
    { error: unknownOr("body must be a JSON object") },
  )
  .refine(
    (b) => Object.keys(b).length > 0,
    "Send at least one of productId, name, description, tokenAmount.",
  );
const idParam = z.object({
  id: z.coerce
    .number({ error: "id must be a number" })
    .int("id must be an integer")
    .min(1, "id must be positive")
    .max(Number.MAX_SAFE_INTEGER, "id is too large"),
});
const listQuery = limitOffset(BUNDLE_PAGE, BUNDLE_PAGE).extend({
  id: idParam.shape.id.optional(),
  productId: line("productId", 100).optional(),
});
const thumbForm = z.object({
  file: z.instanceof(File, { error: "file is required: send the image as a multipart file field" }),
});

function unknownOr(fallback: string) {
  return (i: { code: string; keys?: string[] }) =>
    i.code === "unrecognized_keys" ? `Unknown field(s): ${i.keys?.join(", ")}` : fallback;
}

function filters(q: z.output<typeof listQuery>): SQL | undefined {
  return and(
    q.id !== undefined ? eq(tokenBundles.id, q.id) : undefined,
    q.productId !== undefined ? eq(tokenBundles.productId, q.productId) : undefined,
  );
}

/** Bundles with their product's price (a left join: a bundle may name a product not made yet). */
function selectBundles(env: AppEnv["Bindings"]) {
  return db(env)
    .select({
      bundle: tokenBundles,
      product: { price: products.price, currency: products.currency, name: products.name },
    })
    .from(tokenBundles)
    .leftJoin(products, eq(products.id, tokenBundles.productId));
}

async function bundleOr404(env: AppEnv["Bindings"], id: number) {
  const row = await selectBundles(env).where(eq(tokenBundles.id, id)).get();
  if (!row) throw notFound(MSG.bundleNotFound);
  return row;
}
const dto = (r: Awaited<ReturnType<typeof bundleOr404>>) =>
  toBundleDto(r.bundle, r.product?.price == null ? null : r.product);

/** A write the unique product index refused is the admin's 409, not a 500. */
async function oneBundlePerProduct<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(MSG.bundleProductTaken);
    throw err;
  }
}

tokenBundleRoutes.post(P, requireAdmin, valid("json", createBody), async (c) => {
  const row = await oneBundlePerProduct(
    db(c.env).insert(tokenBundles).values(c.req.valid("json")).returning().get(),
  );
  return c.json(dto(await bundleOr404(c.env, row.id)), 201);
});

/** Newest first, 32 a page: `{ data, total, limit, offset }`. */
tokenBundleRoutes.get(P, valid("query", listQuery), async (c) => {
  const q = c.req.valid("query");
  const where = filters(q);
  const [rows, [{ n }]] = await Promise.all([
    selectBundles(c.env)
      .where(where)
      .orderBy(desc(tokenBundles.createdAt), desc(tokenBundles.id))
      .limit(q.limit)
      .offset(q.offset)
      .all(),
    db(c.env).select({ n: count() }).from(tokenBundles).where(where).all(),
  ]);
  return c.json({ data: rows.map(dto), total: n, limit: q.limit, offset: q.offset });
});

tokenBundleRoutes.get(`${P}/count`, valid("query", listQuery), async (c) => {
  const [{ n }] = await db(c.env)
    .select({ n: count() })
    .from(tokenBundles)
    .where(filters(c.req.valid("query")))
    .all();
  return c.json({ count: n });
});

tokenBundleRoutes.get(`${P}/:id`, valid("param", idParam), async (c) =>
  c.json(dto(await bundleOr404(c.env, c.req.valid("param").id))),
);

tokenBundleRoutes.patch(
  `${P}/:id`,
  requireAdmin,
  valid("param", idParam),
  valid("json", patchBody),
  async (c) => {
    const { id } = c.req.valid("param");
    const updated = await oneBundlePerProduct(
      db(c.env)
        .update(tokenBundles)
        .set({ ...c.req.valid("json"), updatedAt: Date.now() })
        .where(eq(tokenBundles.id, id))
        .returning()
        .get(),
    );
    if (!updated) throw notFound(MSG.bundleNotFound);
    return c.json(dto(await bundleOr404(c.env, id)));
  },
);

/** Deletion (the spec's `POST /api/v1/token-bundles/{id}`): the row, then its thumbnail. */
tokenBundleRoutes.post(`${P}/:id`, requireAdmin, valid("param", idParam), async (c) => {
  const { id } = c.req.valid("param");
  const gone = await db(c.env)
    .delete(tokenBundles)
    .where(eq(tokenBundles.id, id))
    .returning()
    .get();
  if (!gone) throw notFound(MSG.bundleNotFound);
  if (gone.thumbnailKey) await c.env.UPLOADS.delete(gone.thumbnailKey);
  return c.json({ id, deleted: true });
});

/**
 * The thumbnail (multipart `file`, an image up to 5 MB). R2 first, then the row; the old
 * picture is removed only once the row points at the new one, so a link never breaks.
 */
tokenBundleRoutes.patch(
  `${P}/:id/thumbnail`,
  requireAdmin,
  uploadBodyLimit(THUMB_RULES),
  valid("param", idParam),
  valid("form", thumbForm),
  async (c) => {
    const { id } = c.req.valid("param");
    const before = await bundleOr404(c.env, id);
    const stored = await storeUpload(
      c.env.UPLOADS,
      `token-bundles/${id}/${crypto.randomUUID()}`,
      c.req.valid("form").file,
      THUMB_RULES,
      { cacheControl: IMMUTABLE_CACHE },
    );
    const updated = await db(c.env)
      .update(tokenBundles)
      .set({ thumbnailKey: stored.key, updatedAt: Date.now() })
      .where(eq(tokenBundles.id, id))
      .returning()
      .get();
    if (!updated) {
      // Deleted while the file was uploading: leave nothing behind.
      await c.env.UPLOADS.delete(stored.key);
      throw notFound(MSG.bundleNotFound);
    }
    if (before.bundle.thumbnailKey) await c.env.UPLOADS.delete(before.bundle.thumbnailKey);
    return c.json(dto(await bundleOr404(c.env, id)));
  },
);

tokenBundleRoutes.get(`${P}/:id/thumbnail`, valid("param", idParam), async (c) => {
  const { bundle } = await bundleOr404(c.env, c.req.valid("param").id);
  if (!bundle.thumbnailKey) throw notFound(MSG.thumbnailNotFound);
  const head = await c.env.UPLOADS.head(bundle.thumbnailKey);
  if (!head) throw notFound(MSG.thumbnailNotFound);
  const version = bundle.thumbnailKey.split("/").pop()!;
  // The versioned URL (`?v=`, what the DTO links) names one picture for good; the bare path
  // follows the current picture, so caches must come back soon.
  const cacheControl = c.req.query("v") === version ? IMMUTABLE_CACHE : "public, max-age=60";
  const contentType = head.httpMetadata?.contentType ?? "application/octet-stream";
  return serveUpload(
    c.req.raw,
    c.env.UPLOADS,
    { key: bundle.thumbnailKey, size: head.size, contentType, etag: `"${version}"`, cacheControl },
    MSG.thumbnailNotFound,
  );
});
