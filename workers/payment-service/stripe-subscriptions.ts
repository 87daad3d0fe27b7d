import {
  retrieveSubscription,
  stripeClient,
  StripeUnavailable,
  type StripeCheckoutSession,
  type StripeSubscription,
} from "../adapters/stripe";
import type { SubscriptionStatus } from "../db/schema";
import type { Env } from "../env";
import { ENDED_STATUSES } from "./level-rule";
import { findProduct } from "./product-repo";
import type { EventOutcome } from "./stripe-events";
import {
  applySubscription,
  recordCheckoutStart,
  subscriptionByExternal,
} from "./subscription-state";

/**
 * Stripe subscriptions into ours. The state comes from the subscription, not from the order
 * events arrive in:
 * - with a Stripe key, an event about a subscription (`customer.subscription.*`, a paid
 *   subscription checkout) only says "look again": the subscription is read from Stripe's API
 *   and that answer is written. A late or replayed event reads the same current answer.
 *   Stripe unreachable: 503, and Stripe delivers the event again.
 * - without one (local test mode, where our own pages send the events in order), the
 *   subscription object the event carries; a checkout only starts a subscription we have no
 *   row for (it says nothing about what happened since).
 * Either way an ended subscription stays ended (subscription-state.ts).
 */

export const idOf = (v: string | { id: string } | null | undefined) =>
  typeof v === "string" ? v : (v?.id ?? null);
export const sourceOf = (subscriptionId: string) =>
  subscriptionId.startsWith("sub_local_") ? ("local" as const) : ("stripe" as const);

/**
 * Stripe's statuses in ours. `incomplete` (the first payment pending) is not recorded yet;
 * `incomplete_expired` (it never came) is ended, like `canceled`.
 */
export function statusOf(s: StripeSubscription["status"]): SubscriptionStatus | null {
  switch (s) {
    case "active":
      return "active";
    case "trialing":
      return "trialing";
    case "past_due":
      return "past_due";
    case "unpaid":
      return "unpaid";
    case "paused":
      return "paused";
    case "canceled":
      return "canceled";
    case "incomplete_expired":
      return "expired";
    default:
      return null;
  }
}

/**
 * When the subscription ends as it stands, in ms: when it ended; else the sooner of when it is
 * set to end and when the period paid for ends (the items' `current_period_end` since API
 * 2025-03-31; the subscription's own before that). A renewal moves it on.
 */
function endOf(sub: StripeSubscription): number | null {
  if (sub.ended_at) return sub.ended_at * 1000;
  const periodEnds = (sub.items?.data ?? []).map((i) => i.current_period_end ?? 0);
  const legacy = (sub as { current_period_end?: number | null }).current_period_end ?? 0;
  const periodEnd = Math.max(legacy, ...periodEnds) || null;
  const ends = [sub.cancel_at, periodEnd].filter((s): s is number => !!s);
  return ends.length ? Math.min(...ends) * 1000 : null;
}

/** Stripe's current answer for `id` when a key is set; undefined without one. */
async function askStripe(
  env: Env,
  id: string,
): Promise<{ sub: StripeSubscription | null } | { retry: string } | undefined> {
  const stripe = await stripeClient(env);
  if (!stripe || sourceOf(id) !== "stripe") return undefined;
  try {
    return { sub: await retrieveSubscription(stripe, id) };
  } catch (err) {
    if (err instanceof StripeUnavailable) return { retry: err.message };
    throw err;
  }
}

interface Known {
  deleted?: boolean;
  userUuid?: string | null;
  productId?: string | null;
  region?: string | null;
}

/** Writes `sub` as it stands; `known` fills what its metadata lacks. */
async function writeSubscription(
  env: Env,
  sub: StripeSubscription,
  known: Known,
): Promise<EventOutcome> {
  const source = sourceOf(sub.id);
  const status = known.deleted ? "canceled" : statusOf(sub.status);
  if (!status) return { handled: false, reason: `status ${sub.status} grants nothing yet` };
  const existing = await subscriptionByExternal(env, source, sub.id);
  const userUuid = sub.metadata?.userUuid || known.userUuid || existing?.userUuid;
  const productId = sub.metadata?.productId || known.productId || existing?.productId || null;
  const level =
    (productId ? (await findProduct(env, productId))?.subscriptionLevel : null) ?? existing?.level;
  if (!userUuid || !level) return { handled: false, reason: "subscription is not one of ours" };
  const row = await applySubscription(env, {
    source,
    externalId: sub.id,
    userUuid,
    productId,
    level,
    status,
    customerId: idOf(sub.customer),
    region: known.region,
    startDate: (sub.start_date ?? Math.floor(Date.now() / 1000)) * 1000,
    // An ended subscription without a date ended no later than now.
    endDate: endOf(sub) ?? (ENDED_STATUSES.includes(status) ? Date.now() : null),
  });
  return row
    ? { handled: true, effect: `subscription_${status}` }
    : { handled: false, reason: "subscription already ended" };
}

/** `customer.subscription.*`: the subscription as Stripe answers it now (or as carried). */
export async function syncSubscription(
  env: Env,
  carried: StripeSubscription,
  deleted: boolean,
): Promise<EventOutcome> {
  const asked = await askStripe(env, carried.id);
  if (!asked) return writeSubscription(env, carried, { deleted });
  if ("retry" in asked) return { retry: true, reason: asked.retry };
  if (!asked.sub) return { handled: false, reason: "Stripe has no such subscription" };
  return writeSubscription(env, asked.sub, {});
}

/** A paid subscription checkout: the subscription it started, for `userUuid` and `productId`. */
export async function subscriptionFromCheckout(
  env: Env,
  session: StripeCheckoutSession,
  c: {
    subscriptionId: string;
    userUuid: string;
    productId: string;
    level: string;
    created: number;
  },
): Promise<EventOutcome> {
  const region = session.customer_details?.address?.country ?? null;
  const asked = await askStripe(env, c.subscriptionId);
  if (asked) {
    if ("retry" in asked) return { retry: true, reason: asked.retry };
    if (!asked.sub) return { handled: false, reason: "Stripe has no such subscription" };
    return writeSubscription(env, asked.sub, {
      userUuid: c.userUuid,
      productId: c.productId,
      region,
    });
  }
  await recordCheckoutStart(env, {
    source: sourceOf(c.subscriptionId),
    externalId: c.subscriptionId,
    userUuid: c.userUuid,
    productId: c.productId,
    level: c.level,
    status: "active",
    customerId: idOf(session.customer),
    region,
    startDate: c.created * 1000,
  });
  return { handled: true, effect: "subscribed" };
}
