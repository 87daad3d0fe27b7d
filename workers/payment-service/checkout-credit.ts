import { eq } from "drizzle-orm";
import { db } from "../db/client";
import { checkoutSessions, type CheckoutSessionRow } from "../db/schema";
import type { Env } from "../env";
import type { StripeCheckoutSession } from "../adapters/stripe";
import { creditBundle, creditTokens, type CreditOutcome } from "./fulfil";

/**
 * What a paid bundle checkout (a Stripe session in mode payment, or local test mode's)
 * credits. The tokens were fixed when checkout started (checkout.ts): our session row is
 * the source of truth and Stripe's session metadata a copy. The row's amount is credited,
 * never the bundle's amount now, so an admin editing the bundle between checkout and
 * payment changes nothing for this buyer. Every credit is keyed `checkout:<sessionId>`,
 * so each purchase is credited once however often the event comes.
 *
 * Refused (nothing credited, logged for an admin to look into): a session with no row of
 * ours, or whose metadata disagrees with the row on the buyer, the product or the tokens.
 * A signed event cannot be forged, so a disagreement means two writers of one Stripe
 * account or a bug; crediting either side could give the wrong amount. Stripe is not asked
 * to retry: the same event would disagree again.
 */

export type CheckoutCreditOutcome = CreditOutcome | { kind: "refused"; reason: string };

export async function creditCheckout(
  env: Env,
  session: StripeCheckoutSession,
): Promise<CheckoutCreditOutcome> {
  const row = await db(env)
    .select()
    .from(checkoutSessions)
    .where(eq(checkoutSessions.id, session.id))
    .get();
  const mismatch = row ? disagreement(row, session) : "no checkout session of ours has this id";
  if (mismatch || !row) {
    const reason = `checkout ${session.id} not credited: ${mismatch}`;
    console.error(reason);
    return { kind: "refused", reason };
  }
  const key = `checkout:${row.id}`;
  const memo = `checkout ${row.id}`;
  // A row from before migration 0010 has no fixed amount (nor does its metadata): it is
  // credited as it was then, at the bundle's amount now. Sessions expire within a day.
  if (row.tokenAmount === null) return creditBundle(env, row.userUuid, row.productId, key, memo);
  return creditTokens(env, row.userUuid, row.tokenAmount, key, memo);
}

/** Why Stripe's copy of the session is not the one we started, or null when it is. */
function disagreement(row: CheckoutSessionRow, session: StripeCheckoutSession): string | null {
  const meta = session.metadata ?? {};
  if (row.mode !== "payment") return `the session was started as ${row.mode}`;
  if (session.client_reference_id !== row.userUuid)
    return "the buyer differs from the one who started the session";
  if (meta.productId !== row.productId)
    return "the product differs from the one the session was started for";
  const fixed = row.tokenAmount === null ? null : String(row.tokenAmount);
  const claimed = meta.tokenAmount ?? null;
  if (claimed !== fixed)
    return `the session fixed ${fixed ?? "no"} tokens but its metadata says ${claimed ?? "none"}`;
  return null;
}
