import type { SubscriptionStatus } from "../db/schema";

/**
 * What an App Store notification (v2) says about an auto-renewable subscription, read from its
 * verified transaction rather than from when it arrives. `endDate` is always the transaction's
 * expiresDate: the end of the period it is about, which orders notifications
 * (subscription-state.ts: a later period wins, an earlier one never does).
 *
 * - a transaction with a `revocationDate` (REFUND, REVOKE): canceled, whatever the type;
 * - SUBSCRIBED, DID_RENEW: active until expiresDate (a renewal is a later expiresDate);
 * - DID_FAIL_TO_RENEW: past_due in a billing grace period, keeping the level until the
 *   renewal info's gracePeriodExpiresDate (graceEndDate; the period itself has ended);
 *   otherwise expired (Apple is retrying the payment; no service meanwhile);
 * - EXPIRED, GRACE_PERIOD_EXPIRED: expired.
 * Other types (DID_CHANGE_RENEWAL_STATUS, PRICE_INCREASE, ...) change nothing here.
 */
export interface AppleTransactionDates {
  expiresDate?: number;
  revocationDate?: number;
}

/** From the verified signedRenewalInfo: when the billing grace period ends, if in one. */
export interface AppleRenewalDates {
  gracePeriodExpiresDate?: number;
}

export function appleSubscriptionState(
  type: string,
  subtype: string | undefined,
  tx: AppleTransactionDates,
  renewal: AppleRenewalDates = {},
): { status: SubscriptionStatus; endDate: number | null; graceEndDate?: number } | null {
  const endDate = tx.expiresDate ?? null;
  if (tx.revocationDate !== undefined) return { status: "canceled", endDate };
  switch (type) {
    case "SUBSCRIBED":
    case "DID_RENEW":
      return { status: "active", endDate };
    case "DID_FAIL_TO_RENEW":
      return subtype === "GRACE_PERIOD"
        ? { status: "past_due", endDate, graceEndDate: renewal.gracePeriodExpiresDate }
        : { status: "expired", endDate };
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
