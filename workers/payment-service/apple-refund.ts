import type { Env } from "../env";
import { ApiError } from "../lib/errors";
import { MSG } from "./messages";
import { bundleFor } from "./product-repo";
import { giveBackCredit, takeBackCredit } from "./refunds";

/**
 * App Store refunds of a token bundle (a consumable, issue 12). ONE_TIME_CHARGE credited it
 * as `apple:<transactionId>` (webhook-apple.ts); the refund's signed transaction is the same
 * purchase, so the credit is found by its transactionId (or, should Apple send a different
 * one, its originalTransactionId) on the account of its appAccountToken.
 *
 * - REFUND, REVOKE: take the whole credit back, once (`apple-refund:<id>`, `apple-revoke:<id>`:
 *   a second one finds the credit already taken back).
 * - REFUND_REVERSED: gives back what the refund took (`apple-refund-reversed:<id>`).
 * No credit found: if the product sells a bundle, its ONE_TIME_CHARGE is still to be applied,
 * so this is a 503 and Apple delivers the refund again; if it sells none, nothing was ever
 * credited and the refund is acknowledged. (The credit is looked for first: a bundle deleted
 * since the purchase does not make its tokens stay.)
 */
export type AppleRefundType = "REFUND" | "REVOKE" | "REFUND_REVERSED";
export const APPLE_REFUND_TYPES: readonly string[] = ["REFUND", "REVOKE", "REFUND_REVERSED"];

export async function appleRefund(
  env: Env,
  type: AppleRefundType,
  userUuid: string,
  productId: string,
  tx: { transactionId: string; originalTransactionId: string },
): Promise<{ handled: boolean; effect: string }> {
  const ids = [...new Set([tx.transactionId, tx.originalTransactionId])];
  for (const id of ids) {
    const memo = `App Store ${type.toLowerCase().replace("_", " ")} of ${id}`;
    const out =
      type === "REFUND_REVERSED"
        ? await giveBackCredit(env, userUuid, {
            ref: `apple:${id}`,
            key: `apple-refund-reversed:${id}`,
            reverses: `apple-refund:${id}`,
            memo,
          })
        : await takeBackCredit(env, userUuid, {
            ref: `apple:${id}`,
            key: `apple-${type.toLowerCase()}:${id}`,
            part: 1,
            whole: 1,
            memo,
          });
    if (out.handled) return { handled: true, effect: out.effect };
  }
  if (!(await bundleFor(env, productId)))
    return { handled: false, effect: "product sells no token bundle" };
  throw new ApiError(503, MSG.refundNotCredited);
}
