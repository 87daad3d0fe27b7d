import { and, eq } from "drizzle-orm";
import { db } from "../db/client";
import { checkoutSessions, type SubscriptionStatus } from "../db/schema";
import type { Env } from "../env";
import type { StripeCheckoutSession, StripeEvent, StripeSubscription } from "../adapters/stripe";
import { creditCheckout } from "./checkout-credit";
import { applySubscription, subscriptionByExternal, type CreditOutcome } from "./fulfil";
import { findProduct } from "./product-repo";

/**
 * What each verified Stripe event does. Real Stripe events and the ones local test mode
 * makes (ids `cs_local_…`, `sub_local_…`) take exactly this path.
 *
 * - `checkout.session.completed` / `async_payment_succeeded`, paid: a payment-mode session
 *   credits the tokens fixed on its row when checkout started (key `checkout:<sessionId>`;
 *   checkout-credit.ts refuses a session whose metadata disagrees); a subscription-mode session
 *   starts the subscription. The session row is marked complete.
 * - `checkout.session.expired`: the session row is marked expired.
 * - `customer.subscription.created|updated|deleted`: the subscription row follows Stripe's
 *   status; `deleted` ends it. A Stripe subscription that has ended never restarts (Stripe
 *   makes a new one), so a late, out-of-order `updated` cannot revive a cancelled row.
 */

export type EventOutcome =
  | { handled: true; effect: string; credit?: CreditOutcome }
  | { handled: false; reason: string }
  /** Not applied yet and worth retrying: the sender gets a 503 and delivers the event again. */
  | { retry: true; reason: string };

const idOf = (v: string | { id: string } | null | undefined) =>
  typeof v === "string" ? v : (v?.id ?? null);
const sourceOf = (subscriptionId: string) =>
  subscriptionId.startsWith("sub_local_") ? ("local" as const) : ("stripe" as const);

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
      return syncSubscription(
        env,
        event.data.object,
        event.type === "customer.subscription.deleted",
      );
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
    await applySubscription(env, {
      source: sourceOf(subscriptionId),
      externalId: subscriptionId,
      userUuid,
      productId,
      level: product.subscriptionLevel,
      status: "active",
      customerId: idOf(session.customer),
      region: session.customer_details?.address?.country ?? null,
      startDate: created * 1000,
    });
    outcome = { handled: true, effect: "subscribed" };
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

/** Stripe's subscription statuses, in ours. `incomplete` (first payment pending) grants nothing yet. */
function statusOf(s: StripeSubscription["status"]): SubscriptionStatus | null {
  switch (s) {
    case "active":
      return "active";
    case "trialing":
      return "trialing";
    case "past_due":
      return "past_due";
    case "canceled":
      return "canceled";
    case "unpaid":
    case "paused":
      return "past_due";
    case "incomplete_expired":
      return "expired";
    default:
      return null;
  }
}

async function syncSubscription(
  env: Env,
  sub: StripeSubscription,
  deleted: boolean,
): Promise<EventOutcome> {
  const source = sourceOf(sub.id);
  const existing = await subscriptionByExternal(env, source, sub.id);
  if (existing && (existing.status === "canceled" || existing.status === "expired") && !deleted) {
    return { handled: false, reason: "subscription already ended" };
  }
  const status = deleted ? "canceled" : statusOf(sub.status);
  if (!status) return { handled: false, reason: `status ${sub.status} grants nothing yet` };
  const userUuid = sub.metadata?.userUuid || existing?.userUuid;
  const productId = sub.metadata?.productId || existing?.productId || null;
  const level =
    (productId ? (await findProduct(env, productId))?.subscriptionLevel : null) ?? existing?.level;
  if (!userUuid || !level) return { handled: false, reason: "subscription is not one of ours" };
  const endSeconds =
    sub.ended_at ?? sub.cancel_at ?? sub.items?.data?.[0]?.current_period_end ?? null;
  await applySubscription(env, {
    source,
    externalId: sub.id,
    userUuid,
    productId,
    level,
    status,
    customerId: idOf(sub.customer),
    startDate: (sub.start_date ?? Math.floor(Date.now() / 1000)) * 1000,
    endDate: endSeconds ? endSeconds * 1000 : null,
  });
  return { handled: true, effect: `subscription_${status}` };
}
