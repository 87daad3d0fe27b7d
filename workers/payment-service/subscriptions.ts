import { and, count, desc, eq, gte, isNotNull, isNull, lte, ne, or, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { ADMIN_ROLES } from "../../shared/roles";
import { db } from "../db/client";
import { products, subscriptions, type SubscriptionRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import {
  createPortalSession,
  paymentsMode,
  stripeClient,
  StripeUnavailable,
} from "../adapters/stripe";
import { caller, requireAdmin, requireUser } from "../lib/auth";
import { ApiError, badRequest, conflict, forbidden, notFound } from "../lib/errors";
import { publicOrigin } from "../lib/links";
import { fields, valid } from "../lib/validate";
import { startCheckout } from "./checkout";
import { accountNow } from "./level";
import { grantingSql, grantsLevel } from "./level-rule";
import { MSG } from "./messages";
import { productDto, productOr404 } from "./product-repo";

/**
 * Subscriptions (seed 001): the caller's, one user's, the admin count by window, region and
 * level, checkout for a plan, the portal, and the plans on sale. Rows are written only by
 * verified payment events (stripe-events.ts, webhook-apple.ts), never by these routes.
 */
export const subscriptionRoutes = new Hono<AppEnv>();

/** `running`: whether it grants its level now (level-rule.ts: status and endDate). */
export function subscriptionDto(s: SubscriptionRow, now = Date.now()) {
  return {
    id: s.id,
    userUuid: s.userUuid,
    productId: s.productId,
    level: s.level,
    status: s.status,
    running: grantsLevel(s, now),
    region: s.region,
    source: s.source,
    startDate: new Date(s.startDate).toISOString(),
    endDate: s.endDate === null ? null : new Date(s.endDate).toISOString(),
    createdAt: new Date(s.createdAt).toISOString(),
    updatedAt: new Date(s.updatedAt).toISOString(),
  };
}

/**
 * `{ subscriptionLevel, data }`: the level the user holds now (by the rule, even when no event
 * has said a subscription ended) and every subscription, newest first.
 */
async function subscriptionsOf(env: Env, userUuid: string) {
  const [user, rows] = await Promise.all([
    accountNow(env, userUuid),
    db(env)
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.userUuid, userUuid))
      .orderBy(desc(subscriptions.startDate))
      .limit(50)
      .all(),
  ]);
  if (!user) throw notFound(MSG.userNotFound);
  return { subscriptionLevel: user.subscriptionLevel, data: rows.map((r) => subscriptionDto(r)) };
}

subscriptionRoutes.get("/subscription", requireUser, async (c) =>
  c.json(await subscriptionsOf(c.env, caller(c).uuid)),
);

subscriptionRoutes.get(
  "/subscription/user/:id",
  requireUser,
  valid("param", z.object({ id: fields.uuid })),
  async (c) => {
    const who = caller(c);
    const id = c.req.valid("param").id;
    if (id !== who.uuid && !who.roles.some((r) => ADMIN_ROLES.includes(r))) throw forbidden();
    return c.json(await subscriptionsOf(c.env, id));
  },
);

/** A day (`2026-03-01`), a full ISO time, or epoch milliseconds. */
const when = (name: string) =>
  z
    .string()
    .transform((s, ctx) => {
      const t = /^\d{1,15}$/.test(s) ? Number(s) : Date.parse(s);
      if (!Number.isFinite(t)) {
        ctx.addIssue({
          code: "custom",
          message: `${name} must be an ISO date or epoch milliseconds`,
        });
        return z.NEVER;
      }
      return t;
    })
    .optional();

const countQuery = z
  .object({
    startDate: when("startDate"),
    endDate: when("endDate"),
    region: z
      .string()
      .regex(/^[A-Za-z]{2,3}$/, "region must be a 2 or 3 letter country code")
      .transform((s) => s.toUpperCase())
      .optional(),
    level: z
      .string()
      .regex(
        /^[A-Za-z0-9_-]{1,40}$/,
        "level must be 1 to 40 letters, digits, dashes or underscores",
      )
      .optional(),
  })
  .refine(
    (q) => q.startDate === undefined || q.endDate === undefined || q.startDate <= q.endDate,
    "startDate must not be after endDate",
  );

/**
 * GET /subscription/count: subscriptions that were running at some time inside
 * [startDate, endDate] (started by endDate, not ended before startDate), by region and
 * level. Without dates: every subscription running now.
 */
subscriptionRoutes.get(
  "/subscription/count",
  requireAdmin,
  valid("query", countQuery),
  async (c) => {
    const q = c.req.valid("query");
    const where: SQL[] = [];
    if (q.startDate === undefined && q.endDate === undefined) {
      where.push(grantingSql());
    } else {
      if (q.endDate !== undefined) where.push(lte(subscriptions.startDate, q.endDate));
      if (q.startDate !== undefined)
        where.push(or(isNull(subscriptions.endDate), gte(subscriptions.endDate, q.startDate))!);
    }
    if (q.region) where.push(eq(subscriptions.region, q.region));
    if (q.level) where.push(eq(subscriptions.level, q.level));
    const [{ n }] = await db(c.env)
      .select({ n: count() })
      .from(subscriptions)
      .where(and(...where))
      .all();
    return c.json({ count: n });
  },
);

/** GET /subscription/products: the plans on sale, cheapest first. */
subscriptionRoutes.get("/subscription/products", requireUser, async (c) => {
  const rows = await db(c.env)
    .select()
    .from(products)
    .where(and(eq(products.paymentType, "recurring"), eq(products.active, true)))
    .orderBy(products.price)
    .limit(100)
    .all();
  return c.json({ data: rows.map((r) => productDto(r)) });
});

/** POST /subscription/checkout/{id}: start a plan -> `{ sessionId, url }`. One running subscription at a time. */
subscriptionRoutes.post(
  "/subscription/checkout/:id",
  requireUser,
  valid("param", z.object({ id: z.string().min(1).max(100) })),
  async (c) => {
    const who = caller(c);
    const p = await productOr404(c.env, c.req.valid("param").id);
    if (!p.active) throw badRequest(MSG.notForSale);
    if (p.paymentType !== "recurring") throw badRequest(MSG.notRecurring);
    const running = await db(c.env)
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(and(eq(subscriptions.userUuid, who.uuid), grantingSql()))
      .get();
    if (running) throw conflict(MSG.alreadySubscribed);
    return c.json(
      await startCheckout(c, { uuid: who.uuid, email: who.user.email }, p, "subscription"),
      201,
    );
  },
);

/**
 * POST /subscription/portal -> `{ url }`: Stripe's customer portal for the customer of the
 * caller's latest Stripe subscription; in local test mode, the local portal page (cancel
 * there sends `customer.subscription.deleted` through the webhook path).
 */
subscriptionRoutes.post("/subscription/portal", requireUser, async (c) => {
  const who = caller(c);
  if (paymentsMode(c.env) === "off") throw new ApiError(503, MSG.paymentsOff);
  const origin = publicOrigin(c);
  const stripe = await stripeClient(c.env);
  const source = stripe ? "stripe" : "local";
  const latest = await db(c.env)
    .select({ customerId: subscriptions.customerId })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.userUuid, who.uuid),
        eq(subscriptions.source, source),
        ...(stripe ? [isNotNull(subscriptions.customerId), ne(subscriptions.customerId, "")] : []),
      ),
    )
    .orderBy(desc(subscriptions.startDate))
    .get();
  if (!latest) throw notFound(MSG.noSubscription);
  if (!stripe) return c.json({ url: `${origin}/subscription/local-portal` });
  try {
    return c.json({
      url: await createPortalSession(stripe, latest.customerId!, `${origin}/subscription`),
    });
  } catch (err) {
    if (err instanceof StripeUnavailable) throw new ApiError(502, err.message);
    throw err;
  }
});
