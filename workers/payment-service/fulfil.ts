import { eq } from "drizzle-orm";
import { db } from "../db/client";
import { paymentEvents } from "../db/schema";
import type { Env } from "../env";
import { accountObject, ensureAccount } from "../merch-service/token-shop/account-repo";
import { bundleFor } from "./product-repo";

/**
 * What a verified payment event does, shared by the Stripe webhook (and so local test
 * mode) and the App Store webhook. Every step is idempotent on its own, so an event may be
 * handled again (a retry, two deliveries racing) without a second effect:
 * - a credit carries a key derived from the purchase (`checkout:<sessionId>`,
 *   `apple:<transactionId>`); the TokenAccount object applies each key once;
 * - a subscription is one row per (source, externalId), written with an upsert that refuses
 *   a state older than the row's (subscription-state.ts);
 * - the event id is recorded only after its effects, so a crash in between means Stripe
 *   retries and the retry finds the effects already there.
 */

/** Whether an event id was already handled (a cheap early answer for retries). */
export async function eventSeen(env: Env, id: string): Promise<boolean> {
  return !!(await db(env)
    .select({ id: paymentEvents.id })
    .from(paymentEvents)
    .where(eq(paymentEvents.id, id))
    .get());
}

export async function recordEvent(
  env: Env,
  id: string,
  source: "stripe" | "apple",
  type: string,
): Promise<void> {
  await db(env).insert(paymentEvents).values({ id, source, type }).onConflictDoNothing().run();
}

export type CreditOutcome =
  | { kind: "credited"; tokens: number; balance: number; duplicate: boolean }
  | { kind: "no_bundle" }
  | { kind: "failed"; reason: string };

/**
 * Credits `tokens` to the user's token account, once per `key`. A Stripe checkout passes
 * the amount fixed on its session row when it started (checkout-credit.ts).
 * A refusal from the object (a disabled account) comes back as `failed` so the webhook can
 * ask the sender to retry instead of dropping the purchase.
 */
export async function creditTokens(
  env: Env,
  userUuid: string,
  tokens: number,
  key: string,
  memo: string,
): Promise<CreditOutcome> {
  const { account } = await ensureAccount(env, userUuid);
  try {
    const r = await accountObject(env, account.id).credit(tokens, key, memo.slice(0, 200));
    return { kind: "credited", tokens, balance: r.balance, duplicate: r.duplicate };
  } catch (err) {
    const reason = (err as Error).message ?? String(err);
    // The key was already spent on this purchase with another amount (a checkout from
    // before 0010 credited at the bundle's amount, which was edited since): it was credited
    // then, which is all "exactly once" asks.
    if (reason.includes("different amount"))
      return { kind: "credited", tokens, balance: -1, duplicate: true };
    return { kind: "failed", reason };
  }
}

/**
 * Credits the bundle `productId` sells, at the bundle's amount now. For App Store
 * purchases: the App Store fixes its own price and sends no amount of ours, so the bundle
 * as it is when the notification arrives is what is credited. (And for a Stripe checkout
 * started before migration 0010, whose row has no fixed amount.)
 */
export async function creditBundle(
  env: Env,
  userUuid: string,
  productId: string,
  key: string,
  memo: string,
): Promise<CreditOutcome> {
  const bundle = await bundleFor(env, productId);
  if (!bundle) return { kind: "no_bundle" };
  return creditTokens(env, userUuid, bundle.tokenAmount, key, memo);
}

// Subscriptions: what grants a level is level-rule.ts, the cached level level.ts, and the
// ordered write subscription-state.ts. Re-exported here for the webhooks that import them.
export { LEVEL_STATUSES } from "./level-rule";
export { refreshLevel } from "./level";
export {
  applySubscription,
  subscriptionByExternal,
  type SubscriptionChange,
} from "./subscription-state";
