import { and, desc, eq, inArray } from "drizzle-orm";
import { db } from "../db/client";
import {
  paymentEvents,
  subscriptions,
  users,
  type SubscriptionRow,
  type SubscriptionStatus,
} from "../db/schema";
import type { Env } from "../env";
import { accountObject, ensureAccount } from "../merch-service/token-shop/account-repo";
import { dropLostAvatar } from "../merch-service/avatars/avatar-rules";
import { bundleFor } from "./product-repo";

/**
 * What a verified payment event does, shared by the Stripe webhook (and so local test
 * mode) and the App Store webhook. Every step is idempotent on its own, so an event may be
 * handled again (a retry, two deliveries racing) without a second effect:
 * - a credit carries a key derived from the purchase (`checkout:<sessionId>`,
 *   `apple:<transactionId>`); the TokenAccount object applies each key once;
 * - a subscription is one row per (source, externalId), written with an upsert;
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

/** Statuses under which the subscriber keeps the level (and its perks). */
export const LEVEL_STATUSES: SubscriptionStatus[] = ["active", "trialing", "past_due"];

export interface SubscriptionChange {
  source: SubscriptionRow["source"];
  externalId: string;
  userUuid: string;
  productId: string | null;
  level: string;
  status: SubscriptionStatus;
  region?: string | null;
  customerId?: string | null;
  startDate: number;
  endDate?: number | null;
}

export const subscriptionByExternal = (
  env: Env,
  source: SubscriptionRow["source"],
  externalId: string,
) =>
  db(env)
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.source, source), eq(subscriptions.externalId, externalId)))
    .get();

/**
 * Writes the subscription (one row per source and external id; a racing duplicate lands
 * on the same row) and then the user's `subscriptionLevel` from all their subscriptions.
 * Region and customer are kept when an event does not carry them.
 */
export async function applySubscription(env: Env, s: SubscriptionChange): Promise<SubscriptionRow> {
  const now = Date.now();
  const row = await db(env)
    .insert(subscriptions)
    .values({
      id: crypto.randomUUID(),
      ...s,
      region: s.region ?? null,
      customerId: s.customerId ?? null,
      endDate: s.endDate ?? null,
    })
    .onConflictDoUpdate({
      target: [subscriptions.source, subscriptions.externalId],
      set: {
        status: s.status,
        level: s.level,
        ...(s.productId ? { productId: s.productId } : {}),
        ...(s.region ? { region: s.region } : {}),
        ...(s.customerId ? { customerId: s.customerId } : {}),
        ...(s.endDate !== undefined ? { endDate: s.endDate } : {}),
        updatedAt: now,
      },
    })
    .returning()
    .get();
  await refreshLevel(env, s.userUuid);
  return row;
}

/**
 * users.subscriptionLevel is derived, never set by hand: the level of the user's most
 * recently started subscription that still grants one, or null when none does. A
 * subscriber-only avatar the user can no longer use comes off with it (avatar-rules.ts).
 */
export async function refreshLevel(env: Env, userUuid: string): Promise<string | null> {
  const live = await db(env)
    .select({ level: subscriptions.level })
    .from(subscriptions)
    .where(and(eq(subscriptions.userUuid, userUuid), inArray(subscriptions.status, LEVEL_STATUSES)))
    .orderBy(desc(subscriptions.startDate))
    .limit(1)
    .get();
  const level = live?.level ?? null;
  await db(env)
    .update(users)
    .set({ subscriptionLevel: level })
    .where(eq(users.uuid, userUuid))
    .run();
  if (!level) await dropLostAvatar(env, userUuid);
  return level;
}
