import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { db } from "../db/client";
import { checkoutSessions, subscriptions } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { paymentsMode, signStripePayload } from "../adapters/stripe";
import { caller, requireUser } from "../lib/auth";
import { ApiError, conflict, forbidden, notFound, onNotFound } from "../lib/errors";
import { valid } from "../lib/validate";
import { returnPath } from "./checkout";
import { LEVEL_STATUSES } from "./fulfil";
import { MSG } from "./messages";
import { productDto, productOr404 } from "./product-repo";
import { subscriptionDto } from "./subscriptions";
import { receiveStripeWebhook } from "./webhook-stripe";

/**
 * Local test mode: on exactly when STRIPE_SECRET_KEY is unset in development or test
 * (adapters/stripe.ts `paymentsMode`). The local page
 * /checkout/local/<id> (and the local portal) play Stripe's part: they build the event
 * Stripe would send, sign it with STRIPE_WEBHOOK_SECRET as Stripe does, and hand the raw
 * body and header to `receiveStripeWebhook`, the same function POST /webhook/stripe runs.
 * Nothing is credited or subscribed any other way. With a Stripe key set every route here
 * is 403; in production without one they do not exist (404): no one can pay themselves.
 *
 * Event ids are derived from the session (or subscription), so paying twice (a double
 * click, two tabs) replays one event instead of making a second.
 */
export const localCheckoutRoutes = new Hono<AppEnv>();

const localOnly = createMiddleware<AppEnv>(async (c, next) => {
  const mode = paymentsMode(c.env);
  if (mode === "stripe") throw forbidden(MSG.localOnly);
  if (mode === "off") return onNotFound(c);
  await next();
});

const sessionParam = z.object({
  sessionId: z
    .string()
    .regex(/^cs_local_[0-9a-f-]{36}$/, "sessionId must be a local checkout session id"),
});

async function ownSession(env: Env, id: string, userUuid: string) {
  const s = await db(env).select().from(checkoutSessions).where(eq(checkoutSessions.id, id)).get();
  // Someone else's session is as good as missing: ids are not for guessing.
  if (!s || s.userUuid !== userUuid) throw notFound(MSG.sessionNotFound);
  return s;
}

/** Signs `event` and delivers it through the webhook path; a refusal there is a 502 here. */
async function deliver(env: Env, event: Record<string, unknown>) {
  const secret = env.STRIPE_WEBHOOK_SECRET;
  if (!secret) throw new ApiError(503, MSG.webhookNotConfigured);
  const body = JSON.stringify(event);
  const answer = await receiveStripeWebhook(env, body, await signStripePayload(secret, body));
  if (answer.status !== 200)
    throw new ApiError(answer.status === 503 ? 503 : 502, answer.body.message);
  return answer.body;
}

const stripeShaped = (id: string, type: string, object: Record<string, unknown>) => ({
  id,
  object: "event",
  api_version: null,
  created: Math.floor(Date.now() / 1000),
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type,
  data: { object },
});

/** GET /checkout/local/{sessionId}: what the local page shows (the session and its product). */
localCheckoutRoutes.get(
  "/checkout/local/:sessionId",
  localOnly,
  requireUser,
  valid("param", sessionParam),
  async (c) => {
    const s = await ownSession(c.env, c.req.valid("param").sessionId, caller(c).uuid);
    const product = await productOr404(c.env, s.productId);
    return c.json({
      session: {
        id: s.id,
        mode: s.mode,
        status: s.status,
        // A bundle's tokens as fixed at checkout: what paying this session credits.
        tokenAmount: s.tokenAmount,
        createdAt: new Date(s.createdAt).toISOString(),
      },
      product: productDto(product),
      returnTo: returnPath(s.mode),
    });
  },
);

/** POST /checkout/local/{sessionId}/complete: "Pay (test mode)". */
localCheckoutRoutes.post(
  "/checkout/local/:sessionId/complete",
  localOnly,
  requireUser,
  valid("param", sessionParam),
  async (c) => {
    const who = caller(c);
    const s = await ownSession(c.env, c.req.valid("param").sessionId, who.uuid);
    if (s.status === "expired") throw conflict(MSG.sessionClosed);
    const product = await productOr404(c.env, s.productId);
    const ref = s.id.slice("cs_local_".length);
    const result = await deliver(
      c.env,
      stripeShaped(`evt_local_${ref}`, "checkout.session.completed", {
        id: s.id,
        object: "checkout.session",
        mode: s.mode,
        status: "complete",
        payment_status: "paid",
        client_reference_id: s.userUuid,
        customer: `cus_local_${s.userUuid}`,
        customer_details: null,
        subscription: s.mode === "subscription" ? `sub_local_${ref}` : null,
        // A bundle's payment, as Stripe names it: what a refund of it would name too.
        payment_intent: s.mode === "payment" ? `pi_local_${ref}` : null,
        // As Stripe would carry it: what checkout put in the session's metadata.
        metadata: {
          productId: s.productId,
          userUuid: s.userUuid,
          ...(s.tokenAmount === null ? {} : { tokenAmount: String(s.tokenAmount) }),
        },
        amount_total: product.price,
        currency: product.currency,
      }),
    );
    return c.json({
      status: "complete",
      sessionId: s.id,
      redirectTo: `${returnPath(s.mode)}?session_id=${s.id}`,
      webhook: result,
    });
  },
);

/** POST /checkout/local/{sessionId}/cancel: "Cancel" closes an open session; nothing is charged. */
localCheckoutRoutes.post(
  "/checkout/local/:sessionId/cancel",
  localOnly,
  requireUser,
  valid("param", sessionParam),
  async (c) => {
    const s = await ownSession(c.env, c.req.valid("param").sessionId, caller(c).uuid);
    if (s.status === "complete") throw conflict(MSG.sessionClosed);
    await db(c.env)
      .update(checkoutSessions)
      .set({ status: "expired", updatedAt: Date.now() })
      .where(and(eq(checkoutSessions.id, s.id), eq(checkoutSessions.status, "open")))
      .run();
    return c.json({ status: "expired", redirectTo: `${returnPath(s.mode)}?canceled=1` });
  },
);

/** POST /subscription/local-portal/{id}/cancel: the local portal's "Cancel subscription". */
localCheckoutRoutes.post(
  "/subscription/local-portal/:id/cancel",
  localOnly,
  requireUser,
  valid("param", z.object({ id: z.uuid({ error: "id must be a UUID" }) })),
  async (c) => {
    const who = caller(c);
    const row = await db(c.env)
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.id, c.req.valid("param").id))
      .get();
    if (!row || row.userUuid !== who.uuid || row.source !== "local")
      throw notFound(MSG.subscriptionNotFound);
    if (!LEVEL_STATUSES.includes(row.status)) throw conflict(MSG.subscriptionEnded);
    await deliver(
      c.env,
      stripeShaped(`evt_local_cancel_${row.id}`, "customer.subscription.deleted", {
        id: row.externalId,
        object: "subscription",
        status: "canceled",
        customer: row.customerId,
        metadata: { userUuid: row.userUuid, productId: row.productId ?? "" },
        start_date: Math.floor(row.startDate / 1000),
        ended_at: Math.floor(Date.now() / 1000),
        cancel_at: null,
        items: { object: "list", data: [] },
      }),
    );
    const updated = await db(c.env)
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.id, row.id))
      .get();
    return c.json(subscriptionDto(updated ?? row));
  },
);
