import { and, asc, count, desc, eq, lt, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../db/client";
import { CONSUMABLE_DISPLAY_TYPES } from "../../../shared/shop";
import { consumableFiles, consumables } from "../../db/schema";
import type { AppEnv, Env } from "../../env";
import { requireAdmin } from "../../lib/auth";
import { badRequest, notFound } from "../../lib/errors";
import { limitOffset } from "../../lib/paging";
import { cleanText, valid } from "../../lib/validate";
import { toConsumableDto } from "./shop-dto";
import { MSG } from "../messages";

/**
 * Consumables (seed 000): things bought with tokens and sent into a room. Reads are public
 * (the shop lists them); writes are for admins. Lists take `id`, `createdBefore` (ISO date
 * or epoch ms), `orderBy` (`createdAt|tokenCost|name` with `,ASC` or `,DESC`; default
 * `createdAt,DESC`), `offset` and `limit` (page 32, seed 000 section 9).
 */
export const consumableRoutes = new Hono<AppEnv>();

const P = "/api/v1/consumables";
export const CONSUMABLE_PAGE = 32;

const name = z
  .string({ error: "name must be a string" })
  .trim()
  .min(1, "name must not be empty")
  .max(60, "name must be at most 60 characters")
  .refine((s) => cleanText(s), "name must not contain control characters");
const description = z
  .string({ error: "description must be a string" })
  .max(500, "description must be at most 500 characters")
  .refine((s) => cleanText(s, true), "description must not contain control characters");
const tokenCost = z
  .number({ error: "tokenCost must be a number" })
  .int("tokenCost must be an integer")
  .min(1, "tokenCost must be a positive integer")
  .max(1_000_000, "tokenCost must be at most 1000000");
const displayType = z.enum(CONSUMABLE_DISPLAY_TYPES, {
  error: `displayType must be one of ${CONSUMABLE_DISPLAY_TYPES.join(", ")}`,
});
const fileId = z.uuid({ error: "fileId must be a UUID" });
const unknownKeys = {
  error: (i: { code: string; keys?: string[] }) =>
    i.code === "unrecognized_keys"
      ? `Unknown field(s): ${i.keys?.join(", ")}`
      : "body must be a JSON object",
};

const createBody = z.strictObject(
  {
    name,
    description: description.nullable().optional(),
    tokenCost,
    displayType: displayType.default("small"),
    fileId: fileId.nullable().optional(),
  },
  unknownKeys,
);
const patchBody = z
  .strictObject(
    {
      name: name.optional(),
      description: description.nullable().optional(),
      tokenCost: tokenCost.optional(),
      displayType: displayType.optional(),
      fileId: fileId.nullable().optional(),
    },
    unknownKeys,
  )
  .refine(
    (b) => Object.keys(b).length > 0,
    "Send at least one of name, description, tokenCost, displayType, fileId.",
  );
export const consumableIdParam = z.object({
  id: z.coerce
    .number({ error: "id must be a number" })
    .int("id must be an integer")
    .min(1, "id must be positive")
    .max(Number.MAX_SAFE_INTEGER, "id is too large"),
});

const ORDER_COLUMNS = {
  createdAt: consumables.createdAt,
  tokenCost: consumables.tokenCost,
  name: consumables.name,
} as const;
const orderBy = z
  .string()
  .regex(
    /^(createdAt|tokenCost|name)([,:](ASC|DESC|asc|desc))?$/,
    "orderBy must be createdAt, tokenCost or name, optionally followed by ,ASC or ,DESC",
  )
  .transform((s) => {
    const [field, dir = "DESC"] = s.split(/[,:]/) as [keyof typeof ORDER_COLUMNS, string?];
    return { field, desc: dir.toUpperCase() === "DESC" };
  });
const createdBefore = z.string().transform((s, ctx) => {
  const ms = /^\d+$/.test(s) ? Number(s) : Date.parse(s);
  if (!Number.isFinite(ms))
    ctx.addIssue({
      code: "custom",
      message: "createdBefore must be an ISO date or epoch milliseconds",
    });
  return ms;
});
const listQuery = limitOffset(CONSUMABLE_PAGE, CONSUMABLE_PAGE).extend({
  id: consumableIdParam.shape.id.optional(),
  createdBefore: createdBefore.optional(),
  orderBy: orderBy.default({ field: "createdAt", desc: true }),
});
type ListQuery = z.output<typeof listQuery>;

function filters(q: ListQuery): SQL | undefined {
  return and(
    q.id !== undefined ? eq(consumables.id, q.id) : undefined,
    q.createdBefore !== undefined ? lt(consumables.createdAt, q.createdBefore) : undefined,
  );
}

export async function consumableOr404(env: Env, id: number) {
  const row = await db(env).select().from(consumables).where(eq(consumables.id, id)).get();
  if (!row) throw notFound(MSG.consumableNotFound);
  return row;
}

/** A consumable may only name a file that was uploaded, so it never shows a broken image. */
async function checkFile(env: Env, id: string | null | undefined) {
  if (!id) return;
  const file = await db(env)
    .select({ id: consumableFiles.id })
    .from(consumableFiles)
    .where(eq(consumableFiles.id, id))
    .get();
  if (!file) throw badRequest(MSG.unknownFile);
}

consumableRoutes.post(P, requireAdmin, valid("json", createBody), async (c) => {
  const body = c.req.valid("json");
  await checkFile(c.env, body.fileId);
  const row = await db(c.env).insert(consumables).values(body).returning().get();
  return c.json(toConsumableDto(row), 201);
});

/** `{ data, total, limit, offset }`; ties in the order break by id, so pages never overlap. */
consumableRoutes.get(P, valid("query", listQuery), async (c) => {
  const q = c.req.valid("query");
  const where = filters(q);
  const dir = q.orderBy.desc ? desc : asc;
  const [rows, [{ n }]] = await Promise.all([
    db(c.env)
      .select()
      .from(consumables)
      .where(where)
      .orderBy(dir(ORDER_COLUMNS[q.orderBy.field]), dir(consumables.id))
      .limit(q.limit)
      .offset(q.offset)
      .all(),
    db(c.env).select({ n: count() }).from(consumables).where(where).all(),
  ]);
  return c.json({ data: rows.map(toConsumableDto), total: n, limit: q.limit, offset: q.offset });
});

consumableRoutes.get(`${P}/count`, valid("query", listQuery), async (c) => {
  const [{ n }] = await db(c.env)
    .select({ n: count() })
    .from(consumables)
    .where(filters(c.req.valid("query")))
    .all();
  return c.json({ count: n });
});

consumableRoutes.get(`${P}/:id`, valid("param", consumableIdParam), async (c) =>
  c.json(toConsumableDto(await consumableOr404(c.env, c.req.valid("param").id))),
);

/** A new tokenCost applies to the next purchase; one sent with the old cost gets 409. */
consumableRoutes.patch(
  `${P}/:id`,
  requireAdmin,
  valid("param", consumableIdParam),
  valid("json", patchBody),
  async (c) => {
    const body = c.req.valid("json");
    await checkFile(c.env, body.fileId);
    const row = await db(c.env)
      .update(consumables)
      .set({ ...body, updatedAt: Date.now() })
      .where(eq(consumables.id, c.req.valid("param").id))
      .returning()
      .get();
    if (!row) throw notFound(MSG.consumableNotFound);
    return c.json(toConsumableDto(row));
  },
);

/** Purchases keep their consumableId (history); the file stays, other consumables may use it. */
consumableRoutes.delete(`${P}/:id`, requireAdmin, valid("param", consumableIdParam), async (c) => {
  const { id } = c.req.valid("param");
  const gone = await db(c.env).delete(consumables).where(eq(consumables.id, id)).returning().get();
  if (!gone) throw notFound(MSG.consumableNotFound);
  return c.json({ id, deleted: true });
});
