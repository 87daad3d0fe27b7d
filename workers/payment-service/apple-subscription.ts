import type { SubscriptionStatus } from "../db/schema";

/**
 * What an App Store notification (v2) says about an auto-renewable subscription, read from its
 * verified transaction rather than from when it arrives. `endDate` is always the transaction's
 * expiresDate: the end of the period it is about, which orders notifications
 * (subscription-state.ts: a later period wins, an earlier one never does).
 *
 * - a transaction with a `revocationDate` (REFUND, REVOKE): canceled, whatever the type;
 * - SUBSCRIBED, DID_RENEW: active until expiresDate (a renewal is a later expiresDate);
 * - DID_FAIL_TO_RENEW: past_due in a billing grace period (keeps the level, until endDate),
 *   otherwise expired (Apple is retrying the payment; no service meanwhile);
 * - EXPIRED, GRACE_PERIOD_EXPIRED: expired.
 * Other types (DID_CHANGE_RENEWAL_STATUS, PRICE_INCREASE, ...) change nothing here.
 */
export interface AppleTransactionDates {
  expiresDate?: number;
  revocationDate?: number;
}

export function appleSubscriptionState(
  type: string,
  subtype: string | undefined,
  tx: AppleTransactionDates,
): { status: SubscriptionStatus; endDate: number | null } | null {
  const endDate = tx.expiresDate ?? null;
  if (tx.revocationDate !== undefined) return { status: "canceled", endDate };
  switch (type) {
    case "SUBSCRIBED":
    case "DID_RENEW":
      return { status: "active", endDate };
    case "DID_FAIL_TO_RENEW":
      return { status: subtype === "GRACE_PERIOD" ? "past_due" : "expired", endDate };
    case "EXPIRED":
    case "GRACE_PERIOD_EXPIRED":
      return { status: "expired", endDate };
    case "REFUND":
    case "REVOKE":
      return { status: "canceled", endDate };
    default:
      return null;
  }
}
