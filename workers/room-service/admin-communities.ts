import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { batchOf, db } from "../db/client";
import { communities, type CommunityRow } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireAdmin } from "../lib/auth";
import { ApiError, conflict } from "../lib/errors";
import { crudList, crudQuerySchema, type Columns } from "../lib/crud-query";
import { fields, valid } from "../lib/validate";
import {
  communityOr404,
  communityShape,
  idParam,
  slugClash,
  slugOf,
  toCommunityDto,
  withSlug,
} from "./community-repo";
import { nonEmpty } from "./room-repo";
import { MSG } from "./messages";

/** The admin panel's community pages: the crud list, create (one or a batch), read, edit, delete. */
export const adminCommunityRoutes = new Hono<AppEnv>();

const COMMUNITY_COLUMNS: Columns = {
  id: communities.id,
  uuid: communities.uuid,
  slug: communities.slug,
  name: communities.name,
  description: communities.description,
  ownerUuid: communities.ownerUuid,
  isPublic: communities.isPublic,
  createdAt: communities.createdAt,
  updatedAt: communities.updatedAt,
};

/** An admin may name the owner; otherwise the admin who creates it owns it. */
const createBody = z.strictObject(
  { ...communityShape, ownerUuid: fields.uuid.optional() },
  {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `Unknown field(s): ${i.keys.join(", ")}`
        : "body must be a JSON object",
  },
);
type CreateBody = z.output<typeof createBody>;

function newRow(b: CreateBody, ownerUuid: string): typeof communities.$inferInsert {
  const now = Date.now();
  return {
    uuid: crypto.randomUUID(),
    slug: b.slug ?? slugOf(b.name),
    name: b.name,
    description: b.description ?? null,
    imageUrl: b.imageUrl ?? null,
    isPublic: b.isPublic ?? true,
    ownerUuid: b.ownerUuid ?? ownerUuid,
    createdAt: now,
    updatedAt: now,
  };
}

adminCommunityRoutes.get(
  "/admin/communities",
  requireAdmin,
  valid("query", crudQuerySchema),
  async (c) => {
    return c.json(
      await crudList(
        c.env,
        communities,
        COMMUNITY_COLUMNS,
        c.req.valid("query"),
        (r: CommunityRow) => toCommunityDto(r),
      ),
    );
  },
);

/** POST /admin/communities: one community; a taken slug is 409. */
adminCommunityRoutes.post(
  "/admin/communities",
  requireAdmin,
  valid("json", createBody),
  async (c) => {
    const b = c.req.valid("json");
    const values = newRow(b, caller(c).uuid);
    const row = await withSlug(b.slug, b.name, MSG.communitySlugTaken, (slug) =>
      db(c.env)
        .insert(communities)
        .values({ ...values, slug })
        .returning()
        .get(),
    );
    return c.json(toCommunityDto(row), 201);
  },
);

/**
 * POST /admin/communities/bulk `{communities: [...]}` (≤ 50): every row is validated first,
 * slugs must be unique within the batch, and the inserts go in one D1 batch, which is one
 * transaction: one clash with an existing slug and nothing is written.
 */
const bulkBody = z.strictObject(
  {
    communities: z
      .array(createBody, { error: "communities must be a list" })
      .min(1, "communities must not be empty")
      .max(50, "communities must hold at most 50"),
  },
  { error: "body must be a JSON object" },
);

adminCommunityRoutes.post(
  "/admin/communities/bulk",
  requireAdmin,
  valid("json", bulkBody),
  async (c) => {
    const who = caller(c);
    const rows = c.req.valid("json").communities.map((b) => newRow(b, who.uuid));
    const seen = new Set<string>();
    for (const r of rows) {
      if (seen.has(r.slug)) throw conflict(MSG.duplicateSlug(r.slug));
      seen.add(r.slug);
    }
    const d = db(c.env);
    const stmts = rows.map((r) => d.insert(communities).values(r).returning());
    const out = await d.batch(batchOf(stmts)).catch(slugClash(MSG.communitySlugTaken));
    return c.json({ data: out.map((r) => toCommunityDto(r[0])) }, 201);
  },
);

adminCommunityRoutes.get(
  "/admin/communities/:id",
  requireAdmin,
  valid("param", idParam),
  async (c) => {
    return c.json(toCommunityDto(await communityOr404(c.env, c.req.valid("param").id)));
  },
);

const patchShape = {
  ...communityShape,
  name: communityShape.name.optional(),
  ownerUuid: fields.uuid.optional(),
};

async function update(env: AppEnv["Bindings"], id: string, set: Record<string, unknown>) {
  const cm = await communityOr404(env, id);
  const row = await db(env)
    .update(communities)
    .set({ ...set, updatedAt: Date.now() })
    .where(eq(communities.id, cm.id))
    .returning()
    .get()
    .catch(slugClash(MSG.communitySlugTaken));
  if (!row) throw new ApiError(404, MSG.communityNotFound);
  return toCommunityDto(row);
}

/** PATCH: the fields sent; PUT: the whole community (name required, absent optional fields reset). */
adminCommunityRoutes.patch(
  "/admin/communities/:id",
  requireAdmin,
  valid("param", idParam),
  valid("json", nonEmpty(patchShape)),
  async (c) => {
    return c.json(await update(c.env, c.req.valid("param").id, c.req.valid("json")));
  },
);

adminCommunityRoutes.put(
  "/admin/communities/:id",
  requireAdmin,
  valid("param", idParam),
  valid("json", createBody),
  async (c) => {
    const b = c.req.valid("json");
    const set: Record<string, unknown> = {
      name: b.name,
      description: b.description ?? null,
      imageUrl: b.imageUrl ?? null,
      isPublic: b.isPublic ?? true,
    };
    if (b.slug) set.slug = b.slug;
    if (b.ownerUuid) set.ownerUuid = b.ownerUuid;
    return c.json(await update(c.env, c.req.valid("param").id, set));
  },
);

/** DELETE: memberships and room links go with it (ON DELETE CASCADE); events keep a null communityId. */
adminCommunityRoutes.delete(
  "/admin/communities/:id",
  requireAdmin,
  valid("param", idParam),
  async (c) => {
    const cm = await communityOr404(c.env, c.req.valid("param").id);
    await db(c.env).delete(communities).where(eq(communities.id, cm.id)).run();
    return c.json({ deleted: true, id: cm.id });
  },
);
