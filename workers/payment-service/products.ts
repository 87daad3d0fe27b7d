import { and, count, desc, eq, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { ADMIN_ROLES } from "../../shared/roles";
import { db } from "../db/client";
import { PAYMENT_TYPES, products, type ProductRow } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireAdmin, requireUser } from "../lib/auth";
import { badRequest, conflict, isUniqueViolation, notFound } from "../lib/errors";
import { limitOffset } from "../lib/paging";
import { cleanText, valid } from "../lib/validate";
import { startCheckout } from "./checkout";
import { MSG } from "./messages";
import { bundleFor, bundlesFor, productDto, productOr404 } from "./product-repo";

/**
 * Products (seed 001, "Products: CRUD at /api/v1/products"): admins write, any signed-in
 * account reads. A one_time product is sold as the token bundle that names it; a recurring
 * product is a subscription plan granting `subscriptionLevel`.
 */
export const productRoutes = new Hono<AppEnv>();

const text = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} must not be empty`)
    .max(max, `${name} must be at most ${max} characters`)
    .refine((s) => cleanText(s), `${name} must not contain control characters`);

/**
 * An id an admin may choose: for a product also sold in the App Store, its App Store
 * product identifier (e.g. `com.hangout.tokens.500`), which is how an App Store
 * notification finds our product (webhook-apple.ts). Otherwise a uuid is made.
 */
const productId = z
  .string()
  .regex(
    /^[A-Za-z0-9._-]{1,100}$/,
    "id must be 1 to 100 letters, digits, dots, dashes or underscores",
  );

const productFields = {
  name: text("name", 100),
  description: z.union([text("description", 1000), z.null()]).optional(),
  paymentType: z.enum(PAYMENT_TYPES, {
    error: `paymentType must be one of ${PAYMENT_TYPES.join(", ")}`,
  }),
  price: z
    .number({ error: "price must be a number (cents)" })
    .int("price must be a whole number of cents")
    .min(1, "price must be at least 1")
    .max(99_999_999, "price must be at most 99999999"),
  currency: z
    .string({ error: "currency must be a string" })
    .regex(/^[A-Za-z]{3}$/, "currency must be a 3-letter ISO code")
    .transform((s) => s.toLowerCase()),
  subscriptionLevel: z
    .union([
      z
        .string()
        .trim()
        .regex(
          /^[A-Za-z0-9_-]{1,40}$/,
          "subscriptionLevel must be 1 to 40 letters, digits, dashes or underscores",
        ),
      z.null(),
    ])
    .optional(),
  stripePriceId: z
    .union([
      z.string().regex(/^price_[A-Za-z0-9]{1,100}$/, "stripePriceId must look like price_..."),
      z.null(),
    ])
    .optional(),
  active: z.boolean({ error: "active must be true or false" }),
};

const createSchema = z.strictObject({
  id: productId.optional(),
  ...productFields,
  paymentType: productFields.paymentType.default("one_time"),
  currency: productFields.currency.default("usd"),
  active: productFields.active.default(true),
});
const updateSchema = z.strictObject(productFields).partial();
const idParam = z.object({ id: productId });

/** A plan needs its level and only a plan may have one: checked on the row as it will be. */
function checkShape(p: Pick<ProductRow, "paymentType" | "subscriptionLevel">) {
  if (p.paymentType === "recurring" && !p.subscriptionLevel) throw badRequest(MSG.levelRequired);
  if (p.paymentType === "one_time" && p.subscriptionLevel) throw badRequest(MSG.levelOnlyRecurring);
}

const listQuery = limitOffset(100, 50).extend({
  paymentType: z
    .enum(PAYMENT_TYPES, { error: `paymentType must be one of ${PAYMENT_TYPES.join(", ")}` })
    .optional(),
});

/** GET /api/v1/products: newest first; inactive products are listed for admins only. */
productRoutes.get("/api/v1/products", requireUser, valid("query", listQuery), async (c) => {
  const q = c.req.valid("query");
  const isAdmin = caller(c).roles.some((r) => ADMIN_ROLES.includes(r));
  const where: SQL[] = [];
  if (q.paymentType) where.push(eq(products.paymentType, q.paymentType));
  if (!isAdmin) where.push(eq(products.active, true));
  const cond = where.length ? and(...where) : undefined;
  const [rows, [{ total }]] = await Promise.all([
    db(c.env)
      .select()
      .from(products)
      .where(cond)
      .orderBy(desc(products.createdAt), desc(products.id))
      .limit(q.limit)
      .offset(q.offset)
      .all(),
    db(c.env).select({ total: count() }).from(products).where(cond).all(),
  ]);
  const bundles = await bundlesFor(
    c.env,
    rows.map((r) => r.id),
  );
  return c.json({ data: rows.map((r) => productDto(r, bundles.get(r.id) ?? null)), total });
});

productRoutes.get("/api/v1/products/:id", requireUser, valid("param", idParam), async (c) => {
  const p = await productOr404(c.env, c.req.valid("param").id);
  const isAdmin = caller(c).roles.some((r) => ADMIN_ROLES.includes(r));
  // A product withdrawn from sale is hidden from buyers as if it were gone.
  if (!p.active && !isAdmin) throw notFound(MSG.productNotFound);
  const b = await bundleFor(c.env, p.id);
  return c.json(productDto(p, b ? { id: b.id, name: b.name, tokenAmount: b.tokenAmount } : null));
});

productRoutes.post("/api/v1/products", requireAdmin, valid("json", createSchema), async (c) => {
  const body = c.req.valid("json");
  checkShape({ paymentType: body.paymentType, subscriptionLevel: body.subscriptionLevel ?? null });
  try {
    const row = await db(c.env)
      .insert(products)
      .values({ ...body, id: body.id ?? crypto.randomUUID() })
      .returning()
      .get();
    return c.json(productDto(row), 201);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(MSG.productIdTaken);
    throw err;
  }
});

productRoutes.patch(
  "/api/v1/products/:id",
  requireAdmin,
  valid("param", idParam),
  valid("json", updateSchema),
  async (c) => {
    const current = await productOr404(c.env, c.req.valid("param").id);
    const patch = c.req.valid("json");
    checkShape({
      ...current,
      ...patch,
      subscriptionLevel:
        patch.subscriptionLevel === undefined ? current.subscriptionLevel : patch.subscriptionLevel,
    });
    const row = await db(c.env)
      .update(products)
      .set({ ...patch, updatedAt: Date.now() })
      .where(eq(products.id, current.id))
      .returning()
      .get();
    const b = await bundleFor(c.env, current.id);
    return c.json(
      productDto(row ?? current, b ? { id: b.id, name: b.name, tokenAmount: b.tokenAmount } : null),
    );
  },
);

/**
 * DELETE /api/v1/products/{id}: refused while a token bundle sells it (the bundle would
 * credit nothing). Subscriptions keep their own level, so deleting a plan ends no one's.
 * To stop selling without deleting, set `active: false`.
 */
productRoutes.delete("/api/v1/products/:id", requireAdmin, valid("param", idParam), async (c) => {
  const p = await productOr404(c.env, c.req.valid("param").id);
  if (await bundleFor(c.env, p.id)) throw conflict(MSG.productHasBundle);
  await db(c.env).delete(products).where(eq(products.id, p.id)).run();
  return c.json(productDto(p));
});

/** POST /api/v1/products/{id}/checkout: buy a one-time product (a token bundle) -> `{ sessionId, url }`. */
productRoutes.post(
  "/api/v1/products/:id/checkout",
  requireUser,
  valid("param", idParam),
  async (c) => {
    const who = caller(c);
    const p = await productOr404(c.env, c.req.valid("param").id);
    if (!p.active) throw badRequest(MSG.notForSale);
    if (p.paymentType !== "one_time") throw badRequest(MSG.notOneTime);
    const bundle = await bundleFor(c.env, p.id);
    if (!bundle) throw badRequest(MSG.noBundle);
    // The tokens are fixed now: what the buyer is sold is the bundle as it is at checkout.
    return c.json(
      await startCheckout(
        c,
        { uuid: who.uuid, email: who.user.email },
        p,
        "payment",
        bundle.tokenAmount,
      ),
      201,
    );
  },
);
