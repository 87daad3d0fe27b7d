import { and, eq } from "drizzle-orm";
import { db } from "../db/client";
import { checkoutSessions } from "../db/schema";
import type { Env } from "../env";
import type { StripeCheckoutSession, StripeEvent } from "../adapters/stripe";
import { creditCheckout } from "./checkout-credit";
import type { CreditOutcome } from "./fulfil";
import { findProduct } from "./product-repo";
import type { RefundOutcome } from "./refunds";
import {
  chargeRefunded,
  disputeClosed,
  disputeCreated,
  recordPaymentIntent,
} from "./stripe-refunds";
import { idOf, subscriptionFromCheckout, syncSubscription } from "./stripe-subscriptions";

/**
 * What each verified Stripe event does. Real Stripe events and the ones local test mode
 * makes (ids `cs_local_…`, `sub_local_…`) take exactly this path.
 *
 * - `checkout.session.completed` / `async_payment_succeeded`, paid: a payment-mode session
 *   credits the tokens fixed on its row when checkout started (key `checkout:<sessionId>`;
 *   checkout-credit.ts refuses a session whose metadata disagrees); a subscription-mode session
 *   records the subscription it started. The session row is marked complete.
 * - `checkout.session.expired`: the session row is marked expired.
 * - `customer.subscription.created|updated|deleted|paused|resumed`: the subscription row
 *   follows the subscription itself, not the order events come in (stripe-subscriptions.ts);
 *   `deleted` ends it, and an ended one never comes back.
 * - `charge.refunded`, `charge.dispute.created`, `charge.dispute.closed`: a bundle's tokens
 *   are taken back (or, for a dispute won, given back) exactly once (stripe-refunds.ts).
 */

export type EventOutcome =
  | { handled: true; effect: string; credit?: CreditOutcome; refund?: RefundOutcome }
  | { handled: false; reason: string }
  /** Not applied yet and worth retrying: the sender gets a 503 and delivers the event again. */
  | { retry: true; reason: string };

export async function handleStripeEvent(env: Env, event: StripeEvent): Promise<EventOutcome> {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return completeCheckout(env, event.data.object, event.created);
    case "checkout.session.expired":
      await db(env)
        .update(checkoutSessions)
        .set({ status: "expired", updatedAt: Date.now() })
        .where(
          and(eq(checkoutSessions.id, event.data.object.id), eq(checkoutSessions.status, "open")),
        )
        .run();
      return { handled: true, effect: "session_expired" };
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
    case "customer.subscription.paused":
    case "customer.subscription.resumed":
      return syncSubscription(
        env,
        event.data.object,
        event.type === "customer.subscription.deleted",
      );
    case "charge.refunded":
      return chargeRefunded(env, event.data.object);
    case "charge.dispute.created":
      return disputeCreated(env, event.data.object);
    case "charge.dispute.closed":
      return disputeClosed(env, event.data.object);
    default:
      return { handled: false, reason: `event type ${event.type} is not used` };
  }
}

async function completeCheckout(
  env: Env,
  session: StripeCheckoutSession,
  created: number,
): Promise<EventOutcome> {
  const userUuid = session.client_reference_id;
  const productId = session.metadata?.productId;
  if (!userUuid || !productId)
    return { handled: false, reason: "session carries no buyer or product" };
  // An asynchronous payment (a bank debit) completes the session unpaid; its
  // async_payment_succeeded event comes later and fulfils it then.
  if (session.payment_status !== "paid" && session.payment_status !== "no_payment_required")
    return { handled: false, reason: "not paid yet" };

  let outcome: EventOutcome;
  if (session.mode === "payment") {
    // Before the credit, so a refund that follows at once finds the session (stripe-refunds.ts).
    const paymentIntent = idOf(session.payment_intent);
    if (paymentIntent) await recordPaymentIntent(env, session.id, paymentIntent);
    const credit = await creditCheckout(env, session);
    if (credit.kind === "failed") return { retry: true, reason: credit.reason };
    if (credit.kind === "refused") return { handled: false, reason: credit.reason };
    outcome =
      credit.kind === "no_bundle"
        ? { handled: false, reason: "product sells no token bundle" }
        : { handled: true, effect: "credited", credit };
  } else if (session.mode === "subscription") {
    const subscriptionId = idOf(session.subscription);
    const product = await findProduct(env, productId);
    if (!subscriptionId || !product?.subscriptionLevel)
      return { handled: false, reason: "no subscription or plan level" };
    outcome = await subscriptionFromCheckout(env, session, {
      subscriptionId,
      userUuid,
      productId,
      level: product.subscriptionLevel,
      created,
    });
    if ("retry" in outcome) return outcome;
  } else {
    return { handled: false, reason: `mode ${session.mode} is not sold here` };
  }
  await db(env)
    .update(checkoutSessions)
    .set({ status: "complete", completedAt: Date.now(), updatedAt: Date.now() })
    .where(eq(checkoutSessions.id, session.id))
    .run();
  return outcome;
}
