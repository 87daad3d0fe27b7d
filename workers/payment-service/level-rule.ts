import {
  and,
  desc,
  eq,
  gt,
  inArray,
  isNull,
  or,
  sql,
  type SQL,
  type SQLWrapper,
} from "drizzle-orm";
import { db } from "../db/client";
import { subscriptions, type SubscriptionRow, type SubscriptionStatus } from "../db/schema";
import type { Env } from "../env";

/**
 * What grants a subscriber level, the one rule every reader uses (the user's level, the
 * subscriber-only avatars, the room's "pro" flag, the running count, one plan at a time):
 *
 * a subscription grants its level while its status is one of LEVEL_STATUSES AND its endDate
 * (the end of the period paid for, or the time it ends) has not passed. The second half holds
 * with no event at all: a lost `deleted` or EXPIRED notification cannot leave perks on.
 *
 * `past_due` keeps the level, but only until endDate: for Stripe that is the end of the new
 * period whose payment is being retried (Stripe's retry schedule then makes it `canceled` or
 * `unpaid`, both without perks). For the App Store the period (expiresDate) has already ended
 * when a renewal fails; in a billing grace period the level lasts until graceEndDate (the
 * renewal info's gracePeriodExpiresDate), which is set only while `past_due`.
 * `unpaid`, `paused`, `canceled` and `expired` never grant one.
 */
export const LEVEL_STATUSES: SubscriptionStatus[] = ["active", "trialing", "past_due"];

/** Ended for good by their source (Stripe never restarts a subscription; Apple starts a new period). */
export const ENDED_STATUSES: SubscriptionStatus[] = ["canceled", "expired"];

/** Whether `s` grants its level at `now`. */
export const grantsLevel = (
  s: Pick<SubscriptionRow, "status" | "endDate" | "graceEndDate">,
  now = Date.now(),
) =>
  LEVEL_STATUSES.includes(s.status) &&
  (s.endDate === null || s.endDate > now || (s.graceEndDate ?? 0) > now);

/** The same rule as SQL over `subscriptions`. */
export const grantingSql = (now = Date.now()): SQL =>
  and(
    inArray(subscriptions.status, LEVEL_STATUSES),
    or(
      isNull(subscriptions.endDate),
      gt(subscriptions.endDate, now),
      gt(subscriptions.graceEndDate, now),
    ),
  )!;

/**
 * The level `userUuid` (a column or value) holds at `now`, as a scalar subquery: the level of
 * their most recently started subscription that grants one, else NULL. It reads the
 * subscriptions themselves, never the cached `users.subscriptionLevel`.
 */
export const liveLevelSql = (userUuid: SQLWrapper | string, now = Date.now()) =>
  sql<
    string | null
  >`(select ${subscriptions.level} from ${subscriptions} where ${subscriptions.userUuid} = ${userUuid} and ${grantingSql(now)} order by ${subscriptions.startDate} desc limit 1)`;

/** The level `userUuid` holds at `now` (one indexed read), or null. */
export async function levelNow(
  env: Pick<Env, "DB">,
  userUuid: string,
  now = Date.now(),
): Promise<string | null> {
  const live = await db(env)
    .select({ level: subscriptions.level })
    .from(subscriptions)
    .where(and(eq(subscriptions.userUuid, userUuid), grantingSql(now)))
    .orderBy(desc(subscriptions.startDate))
    .limit(1)
    .get();
  return live?.level ?? null;
}
