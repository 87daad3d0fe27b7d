import type { Context } from "hono";
import { db } from "../db/client";
import { checkoutSessions, type ProductRow } from "../db/schema";
import type { AppEnv } from "../env";
import {
  createCheckoutSession,
  paymentsMode,
  stripeClient,
  StripeUnavailable,
} from "../adapters/stripe";
import { ApiError } from "../lib/errors";
import { publicOrigin } from "../lib/links";
import { MSG } from "./messages";

/**
 * Starting a checkout, for a bundle (mode payment) or a plan (mode subscription).
 * With a Stripe key: a hosted Stripe session. Without one, in development or test (local
 * test mode): a session row
 * `cs_local_<uuid>` whose URL is the local page /checkout/local/<id>, which plays Stripe's
 * part (local-checkout.ts). Either way the row in checkout_sessions records who started
 * what, and the answer is `{ sessionId, url }`. Without a key anywhere else: 503.
 *
 * A bundle's tokens are fixed here, at checkout: the row keeps `tokenAmount` (the source of
 * truth the webhook credits) and Stripe's session carries it in its metadata (the webhook's
 * cross-check), so an admin editing the bundle before the payment lands changes nothing
 * for this buyer (stripe-events.ts, checkout-credit.ts).
 */

export type CheckoutMode = "payment" | "subscription";

/** Where the browser lands after paying: the bundles page or the subscription page. */
export const returnPath = (mode: CheckoutMode) =>
  mode === "payment" ? "/tokens" : "/subscription";

type Buyer = { uuid: string; email: string | null };
type Started = { sessionId: string; url: string };

export function startCheckout(
  c: Context<AppEnv>,
  user: Buyer,
  product: ProductRow,
  mode: "subscription",
): Promise<Started>;
export function startCheckout(
  c: Context<AppEnv>,
  user: Buyer,
  product: ProductRow,
  mode: "payment",
  tokenAmount: number,
): Promise<Started>;
export async function startCheckout(
  c: Context<AppEnv>,
  user: Buyer,
  product: ProductRow,
  mode: CheckoutMode,
  tokenAmount?: number,
): Promise<Started> {
  if (paymentsMode(c.env) === "off") throw new ApiError(503, MSG.paymentsOff);
  const origin = publicOrigin(c);
  const back = `${origin}${returnPath(mode)}`;
  const stripe = await stripeClient(c.env);
  let sessionId: string;
  let url: string;
  if (stripe) {
    try {
      const session = await createCheckoutSession(stripe, {
        mode,
        userUuid: user.uuid,
        email: user.email,
        product,
        tokenAmount,
        // Stripe fills in {CHECKOUT_SESSION_ID}; the page uses it to show the result.
        successUrl: `${back}?session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${back}?canceled=1`,
      });
      if (!session.url) throw new StripeUnavailable("Stripe: the checkout session has no URL.");
      sessionId = session.id;
      url = session.url;
    } catch (err) {
      if (err instanceof StripeUnavailable) throw new ApiError(502, err.message);
      throw err;
    }
  } else {
    sessionId = `cs_local_${crypto.randomUUID()}`;
    url = `${origin}/checkout/local/${sessionId}`;
  }
  await db(c.env)
    .insert(checkoutSessions)
    .values({
      id: sessionId,
      userUuid: user.uuid,
      productId: product.id,
      mode,
      url,
      tokenAmount: mode === "payment" ? tokenAmount : null,
    })
    .run();
  return { sessionId, url };
}
