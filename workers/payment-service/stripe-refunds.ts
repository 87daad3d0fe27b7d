import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { sessionIdForPaymentIntent, stripeClient, StripeUnavailable } from "../adapters/stripe";
import { db } from "../db/client";
import { checkoutSessions, type CheckoutSessionRow } from "../db/schema";
import type { Env } from "../env";
import { giveBackCredit, takeBackCredit, type RefundOutcome } from "./refunds";
import type { EventOutcome } from "./stripe-events";

/**
 * Refunds and disputes of a token bundle bought through Stripe (issue 12). A charge names its
 * payment intent; the bundle session that intent paid is found by `payment_intent_id`
 * (recorded when the session is credited), else through Stripe's API (a session credited
 * before that column, or a refund that overtook the checkout event). Its credit is
 * `checkout:<sessionId>` on the buyer's account.
 *
 * - `charge.refunded`: takes back the refunded share, `amount_refunded` (cumulative) of
 *   `amount`, keyed `refund:<chargeId>:<amountRefunded>`. Partial refunds total the credit at
 *   most; replays and older events arriving late take nothing more (the object's target rule).
 * - `charge.dispute.created`: takes back the whole credit at once (`dispute:<disputeId>`):
 *   the money is withdrawn from us when the dispute opens.
 * - `charge.dispute.closed`: `won` gives back what that dispute took (`dispute-won:<id>`),
 *   keeping any refund; every other outcome leaves the tokens taken back.
 * A charge of no bundle session of ours is acknowledged and changes nothing. A session of ours
 * not credited yet (its checkout event not applied) is worth a retry: the sender gets a 503.
 */

const idOrObject = z.union([z.string(), z.object({ id: z.string() })]).nullish();
const charge = z.object({
  id: z.string().min(1).max(255),
  amount: z.number().int().min(1),
  amount_refunded: z.number().int().min(0),
  payment_intent: idOrObject,
});
const dispute = z.object({
  id: z.string().min(1).max(255),
  status: z.string(),
  payment_intent: idOrObject,
});

const idOf = (v: z.infer<typeof idOrObject>) => (typeof v === "string" ? v : (v?.id ?? null));

export async function chargeRefunded(env: Env, object: unknown): Promise<EventOutcome> {
  const c = charge.safeParse(object);
  if (!c.success) return { handled: false, reason: "not a charge" };
  const { id, amount, amount_refunded: refunded } = c.data;
  if (refunded === 0) return { handled: false, reason: "nothing refunded" };
  return onSession(env, idOf(c.data.payment_intent), (row) =>
    takeBackCredit(env, row.userUuid, {
      ref: `checkout:${row.id}`,
      key: `refund:${id}:${refunded}`,
      part: Math.min(refunded, amount),
      whole: amount,
      memo: `refund of charge ${id}`,
    }),
  );
}

export async function disputeCreated(env: Env, object: unknown): Promise<EventOutcome> {
  const d = dispute.safeParse(object);
  if (!d.success) return { handled: false, reason: "not a dispute" };
  return onSession(env, idOf(d.data.payment_intent), (row) =>
    takeBackCredit(env, row.userUuid, {
      ref: `checkout:${row.id}`,
      key: `dispute:${d.data.id}`,
      part: 1,
      whole: 1,
      memo: `dispute ${d.data.id} opened`,
    }),
  );
}

export async function disputeClosed(env: Env, object: unknown): Promise<EventOutcome> {
  const d = dispute.safeParse(object);
  if (!d.success) return { handled: false, reason: "not a dispute" };
  if (d.data.status !== "won")
    return { handled: false, reason: `dispute ${d.data.status}: the tokens stay taken back` };
  return onSession(env, idOf(d.data.payment_intent), (row) =>
    giveBackCredit(env, row.userUuid, {
      ref: `checkout:${row.id}`,
      key: `dispute-won:${d.data.id}`,
      reverses: `dispute:${d.data.id}`,
      memo: `dispute ${d.data.id} won`,
    }),
  );
}

/** Runs `apply` on the bundle session `paymentIntent` paid, and says what came of it. */
async function onSession(
  env: Env,
  paymentIntent: string | null,
  apply: (row: CheckoutSessionRow) => Promise<RefundOutcome>,
): Promise<EventOutcome> {
  if (!paymentIntent) return { handled: false, reason: "the charge has no payment intent" };
  let row: CheckoutSessionRow | null;
  try {
    row = await sessionPaidBy(env, paymentIntent);
  } catch (err) {
    if (err instanceof StripeUnavailable) return { retry: true, reason: err.message };
    throw err;
  }
  if (!row) return { handled: false, reason: "no bundle checkout of ours was paid by this charge" };
  const out = await apply(row);
  if (out.handled) return { handled: true, effect: out.effect, refund: out };
  // Ours but not credited: its checkout event is still to come (retry), or it credited
  // nothing and never will (a completed session whose credit was refused: nothing to take).
  return row.status === "complete"
    ? { handled: false, reason: "nothing was credited for this checkout" }
    : { retry: true, reason: `checkout ${row.id} is not credited yet` };
}

async function sessionPaidBy(env: Env, paymentIntent: string): Promise<CheckoutSessionRow | null> {
  const d = db(env);
  const known = await d
    .select()
    .from(checkoutSessions)
    .where(eq(checkoutSessions.paymentIntentId, paymentIntent))
    .get();
  if (known) return known;
  const stripe = await stripeClient(env);
  if (!stripe) return null;
  const sessionId = await sessionIdForPaymentIntent(stripe, paymentIntent);
  if (!sessionId) return null;
  const row = await d
    .select()
    .from(checkoutSessions)
    .where(eq(checkoutSessions.id, sessionId))
    .get();
  if (!row || row.mode !== "payment") return null;
  await recordPaymentIntent(env, row.id, paymentIntent);
  return row;
}

/**
 * Notes which payment intent paid a bundle session (once; a second claim on the same intent,
 * which Stripe never makes, is logged and ignored rather than failing the credit).
 */
export async function recordPaymentIntent(
  env: Env,
  sessionId: string,
  paymentIntent: string,
): Promise<void> {
  try {
    await db(env)
      .update(checkoutSessions)
      .set({ paymentIntentId: paymentIntent })
      .where(and(eq(checkoutSessions.id, sessionId), isNull(checkoutSessions.paymentIntentId)))
      .run();
  } catch (err) {
    console.error(`checkout ${sessionId}: payment intent ${paymentIntent} not recorded`, err);
  }
}
