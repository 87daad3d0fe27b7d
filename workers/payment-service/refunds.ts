import type { GiveBackRequest, TakeBackRequest, TakeBackResult } from "../../durable/token-account";
import type { Env } from "../env";
import { accountObject, accountOf } from "../merch-service/token-shop/account-repo";

/**
 * Taking back what a refunded or disputed payment credited, shared by the Stripe
 * (stripe-refunds.ts) and App Store (apple-refund.ts) webhooks. The TokenAccount object does
 * the work (durable/token-account-debt.ts): once per credit and share, what the balance cannot
 * cover becomes debt. Here: which account, and what the webhook reports.
 */

export type RefundOutcome =
  | {
      handled: true;
      effect: "taken_back" | "given_back" | "already_applied";
      /** Tokens moved: taken back (> 0) or given back (< 0). */
      tokens: number;
      balance: number;
      debt: number;
    }
  /** No credit of this payment exists on the buyer's account (yet). */
  | { handled: false; notCredited: true };

type Request = Omit<TakeBackRequest, "accountId">;

/** Takes back `part` of `whole` of the credit `ref` from the user's account. */
export async function takeBackCredit(
  env: Env,
  userUuid: string,
  req: Request,
): Promise<RefundOutcome> {
  const account = await accountOf(env, userUuid);
  // No account: nothing was ever credited to this user.
  if (!account) return { handled: false, notCredited: true };
  const r = await accountObject(env, account.id).takeBack({ ...req, accountId: account.id });
  return outcome(r);
}

/** Reverses the take-back `reverses` (a dispute won, an App Store refund reversed). */
export async function giveBackCredit(
  env: Env,
  userUuid: string,
  req: Omit<GiveBackRequest, "accountId">,
): Promise<RefundOutcome> {
  const account = await accountOf(env, userUuid);
  if (!account) return { handled: false, notCredited: true };
  const r = await accountObject(env, account.id).giveBack({ ...req, accountId: account.id });
  return outcome(r);
}

function outcome(r: TakeBackResult): RefundOutcome {
  if (!r.ok) return { handled: false, notCredited: true };
  return {
    handled: true,
    effect:
      r.duplicate || r.moved === 0 ? "already_applied" : r.moved > 0 ? "taken_back" : "given_back",
    tokens: r.moved,
    balance: r.balance,
    debt: r.debt,
  };
}
