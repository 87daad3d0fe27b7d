import { Hono } from "hono";
import type { AppEnv, Env } from "../env";
import { verifyStripeEvent } from "../adapters/stripe";
import { errorBody, type ErrorBody } from "../lib/errors";
import { eventSeen, recordEvent } from "./fulfil";
import { MSG } from "./messages";
import { handleStripeEvent, type EventOutcome } from "./stripe-events";

/** POST /webhook/stripe: Stripe's events, verified with the signing secret before anything else. */
export const stripeWebhookRoutes = new Hono<AppEnv>();

/** Stripe's events are a few KB; anything far larger is not from Stripe. */
const MAX_BODY = 256 * 1024;

export type WebhookAnswer =
  | { status: 200; body: { received: true; duplicate: boolean; outcome?: EventOutcome } }
  | { status: 400 | 413 | 503; body: ErrorBody };

/**
 * The one path every Stripe event takes, Stripe's own and local test mode's alike:
 * verify the signature (a bad or missing one is 400 and nothing is read further), answer a
 * known event id at once, otherwise apply it and record its id. Concurrent deliveries of
 * one event may both apply it; every effect is idempotent (fulfil.ts), so that is safe.
 */
export async function receiveStripeWebhook(
  env: Env,
  body: string,
  signature: string | undefined,
): Promise<WebhookAnswer> {
  const secret = env.STRIPE_WEBHOOK_SECRET;
  if (!secret) return { status: 503, body: errorBody(503, MSG.webhookNotConfigured) };
  if (body.length > MAX_BODY) return { status: 413, body: errorBody(413, MSG.bodyTooLarge) };
  const event = await verifyStripeEvent(secret, body, signature);
  if (
    !event ||
    typeof event.id !== "string" ||
    typeof event.type !== "string" ||
    !event.data?.object
  ) {
    return { status: 400, body: errorBody(400, MSG.badSignature) };
  }
  if (await eventSeen(env, event.id))
    return { status: 200, body: { received: true, duplicate: true } };
  const outcome = await handleStripeEvent(env, event);
  if ("retry" in outcome) {
    console.warn(`stripe event ${event.id} (${event.type}) not applied yet: ${outcome.reason}`);
    return { status: 503, body: errorBody(503, MSG.creditFailed) };
  }
  await recordEvent(env, event.id, "stripe", event.type);
  return { status: 200, body: { received: true, duplicate: false, outcome } };
}

stripeWebhookRoutes.post("/webhook/stripe", async (c) => {
  const declared = Number(c.req.header("Content-Length") ?? 0);
  if (declared > MAX_BODY) return c.json(errorBody(413, MSG.bodyTooLarge), 413);
  // The signature is over the exact bytes Stripe sent: read the raw text, never re-serialised JSON.
  const answer = await receiveStripeWebhook(
    c.env,
    await c.req.text(),
    c.req.header("Stripe-Signature"),
  );
  return c.json(answer.body, answer.status);
});
