import { and, eq, lt, notInArray, or, isNull, sql, type SQL } from "drizzle-orm";
import { db } from "../db/client";
import { subscriptions, type SubscriptionRow, type SubscriptionStatus } from "../db/schema";
import type { Env } from "../env";
import { refreshLevel } from "./level";
import { ENDED_STATUSES } from "./level-rule";

/**
 * Writing a subscription row: one row per (source, externalId), and a change replaces the row
 * only when it is not older than what the row already says. Events arrive late, twice and out
 * of order; the state comes from the subscription itself, so the rule is in what each source's
 * subscription carries, checked in the same statement as the write (two deliveries racing
 * cannot undo each other):
 *
 * - Stripe (and local test mode): an ended subscription (`canceled`, `expired`) never changes
 *   again. Stripe never restarts one; a new subscription has a new id and so a new row.
 *   Other states follow the subscription as Stripe answers it (stripe-subscriptions.ts).
 * - App Store: the period is the transaction's expiresDate, kept as endDate. A change about a
 *   later period replaces the row (a renewal, a resubscribe, a billing recovery: even after
 *   EXPIRED); one about an earlier period never does; within one period the state only moves
 *   on (active -> billing grace -> expired -> revoked), so a replayed DID_RENEW cannot undo
 *   an EXPIRED.
 */

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
  /** App Store billing grace end (level-rule.ts); any change without one clears it. */
  graceEndDate?: number | null;
}

export const subscriptionByExternal = (
  env: Pick<Env, "DB">,
  source: SubscriptionRow["source"],
  externalId: string,
) =>
  db(env)
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.source, source), eq(subscriptions.externalId, externalId)))
    .get();

/** How far along one App Store period a state is; a state never moves back within a period. */
const APPLE_STEP: Record<SubscriptionStatus, number> = {
  active: 0,
  trialing: 0,
  past_due: 1,
  unpaid: 1,
  paused: 1,
  expired: 2,
  canceled: 3,
};

const stepSql = sql`(case ${subscriptions.status} ${sql.join(
  Object.entries(APPLE_STEP).map(([s, n]) => sql`when ${s} then ${n}`),
  sql` `,
)} else 0 end)`;

/** The condition, over the row already there, under which `s` may replace it. */
function mayReplace(s: SubscriptionChange): SQL {
  const t = subscriptions;
  if (s.source !== "apple") return notInArray(t.status, ENDED_STATUSES);
  const samePeriodOnward = sql`${stepSql} <= ${APPLE_STEP[s.status]}`;
  if (s.endDate == null) return and(isNull(t.endDate), samePeriodOnward)!;
  return or(
    isNull(t.endDate),
    lt(t.endDate, s.endDate),
    and(eq(t.endDate, s.endDate), samePeriodOnward),
  )!;
}

/**
 * Writes the change unless the row already holds a newer state (see above), then the user's
 * level. Region and customer are kept when the change does not carry them. Returns the row
 * written, or null when the change was older than the row and nothing changed.
 */
/** The row a change makes when its subscription is new (fields it does not carry are null). */
const newRow = (s: SubscriptionChange) => ({
  id: crypto.randomUUID(),
  ...s,
  region: s.region ?? null,
  customerId: s.customerId ?? null,
  endDate: s.endDate ?? null,
  graceEndDate: s.graceEndDate ?? null,
});

export async function applySubscription(
  env: Env,
  s: SubscriptionChange,
): Promise<SubscriptionRow | null> {
  const row = await db(env)
    .insert(subscriptions)
    .values(newRow(s))
    .onConflictDoUpdate({
      target: [subscriptions.source, subscriptions.externalId],
      set: {
        status: s.status,
        level: s.level,
        ...(s.productId ? { productId: s.productId } : {}),
        ...(s.region ? { region: s.region } : {}),
        ...(s.customerId ? { customerId: s.customerId } : {}),
        ...(s.endDate !== undefined ? { endDate: s.endDate } : {}),
        graceEndDate: s.graceEndDate ?? null,
        updatedAt: Date.now(),
      },
      setWhere: mayReplace(s),
    })
    .returning()
    .get();
  await refreshLevel(env, row?.userUuid ?? s.userUuid);
  return row ?? null;
}

/**
 * A subscription's start as a checkout session tells it (no key to ask Stripe): the row is
 * made `active` if there is none yet; an existing row keeps its state (the session says
 * nothing about what happened since, e.g. a cancellation) and only gains region and customer.
 */
export async function recordCheckoutStart(env: Env, s: SubscriptionChange): Promise<void> {
  const known = {
    ...(s.region ? { region: s.region } : {}),
    ...(s.customerId ? { customerId: s.customerId } : {}),
  };
  const insert = db(env).insert(subscriptions).values(newRow(s));
  await (
    Object.keys(known).length
      ? insert.onConflictDoUpdate({
          target: [subscriptions.source, subscriptions.externalId],
          set: { ...known, updatedAt: Date.now() },
        })
      : insert.onConflictDoNothing()
  ).run();
  await refreshLevel(env, s.userUuid);
}
