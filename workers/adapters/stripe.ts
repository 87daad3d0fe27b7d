import type Stripe from "stripe";
import type { Env } from "../env";
import { isDevEnvironment } from "../lib/environments";
import { lazyModule } from "../lib/lazy-module";

/**
 * Stripe through its official SDK in fetch mode (workerd has no node:http): API calls go
 * through `fetch`, webhook signatures are checked with WebCrypto. Configured by env like
 * every adapter (workers/adapters/music/*):
 * - `STRIPE_SECRET_KEY` set: real checkout sessions and the customer portal.
 * - unset in development or test (`ENVIRONMENT`): local test mode
 *   (workers/payment-service/local-checkout.ts), where a local page plays Stripe's part and
 *   signs its events with the same `STRIPE_WEBHOOK_SECRET`.
 * - unset anywhere else (a production deploy missing its key): payments are off. Checkout
 *   and the portal answer 503 and the local pages do not exist: a missing key is never a
 *   way for users to credit themselves.
 * `STRIPE_API_URL` points the SDK elsewhere (tests stub that host at the fetch boundary).
 *
 * The SDK is loaded on first use (lib/lazy-module.ts): only payment paths pay for it.
 */
const loadStripe = lazyModule(() => import("stripe").then((m) => m.default));

/** Where checkout goes: Stripe, the local test page (development and test only), or nowhere. */
export type PaymentsMode = "stripe" | "local" | "off";

export const paymentsMode = (env: Env): PaymentsMode =>
  env.STRIPE_SECRET_KEY ? "stripe" : isDevEnvironment(env) ? "local" : "off";

/** The SDK client, or null in local test mode (which never loads the SDK for it). */
export async function stripeClient(env: Env): Promise<Stripe | null> {
  if (!env.STRIPE_SECRET_KEY) return null;
  const Stripe = await loadStripe();
  const config: ConstructorParameters<typeof Stripe>[1] = {
    httpClient: Stripe.createFetchHttpClient(),
    // One network retry is the SDK default; the caller (a browser) can simply click again.
    maxNetworkRetries: 1,
    timeout: 20_000,
    telemetry: false,
  };
  if (env.STRIPE_API_URL) {
    const u = new URL(env.STRIPE_API_URL);
    config.host = u.hostname;
    config.protocol = u.protocol === "http:" ? "http" : "https";
    config.port = u.port || (u.protocol === "http:" ? 80 : 443);
  }
  return new Stripe(env.STRIPE_SECRET_KEY, config);
}

export type StripeEvent = Stripe.Event;
export type StripeCheckoutSession = Stripe.Checkout.Session;
export type StripeSubscription = Stripe.Subscription;

/**
 * Verifies a webhook body against its `Stripe-Signature` header (HMAC-SHA256 with the
 * signing secret, timestamp within Stripe's 5-minute tolerance). Returns the event, or
 * null for anything that does not verify: the route answers 400 and changes nothing.
 */
export async function verifyStripeEvent(
  secret: string,
  body: string,
  signature: string | undefined,
): Promise<StripeEvent | null> {
  if (!signature) return null;
  const Stripe = await loadStripe();
  try {
    return await Stripe.webhooks.constructEventAsync(
      body,
      signature,
      secret,
      undefined,
      Stripe.createSubtleCryptoProvider(),
    );
  } catch {
    return null;
  }
}

/**
 * A `Stripe-Signature` header for `payload`, exactly as Stripe computes it. Local test mode
 * signs the events it makes with this, so they pass the same check as Stripe's own.
 */
export async function signStripePayload(
  secret: string,
  payload: string,
  timestamp = Math.floor(Date.now() / 1000),
): Promise<string> {
  const Stripe = await loadStripe();
  return Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret,
    timestamp,
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
}

/** Raised when Stripe refuses or cannot be reached; the route answers 502 with its message. */
export class StripeUnavailable extends Error {}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const e = err as { message?: string; type?: string };
    throw new StripeUnavailable(
      e.message ? `Stripe: ${e.message}` : "Stripe could not be reached.",
    );
  }
}

export interface CheckoutRequest {
  mode: "payment" | "subscription";
  userUuid: string;
  email?: string | null;
  product: {
    id: string;
    name: string;
    price: number;
    currency: string;
    stripePriceId: string | null;
  };
  /** A bundle's tokens, fixed now (mode payment): sent as metadata `tokenAmount`. */
  tokenAmount?: number;
  successUrl: string;
  cancelUrl: string;
}

/**
 * A hosted checkout session. The buyer is `client_reference_id`, the product is in the
 * metadata (and, for a subscription, in the subscription's metadata too, so later
 * `customer.subscription.*` events still say whose and which plan it is). A bundle's
 * metadata also carries the tokens sold, which the webhook checks against our session row.
 */
export function createCheckoutSession(
  stripe: Stripe,
  r: CheckoutRequest,
): Promise<StripeCheckoutSession> {
  const metadata: Record<string, string> = { productId: r.product.id, userUuid: r.userUuid };
  if (r.tokenAmount !== undefined) metadata.tokenAmount = String(r.tokenAmount);
  const lineItem: Stripe.Checkout.SessionCreateParams.LineItem = r.product.stripePriceId
    ? { price: r.product.stripePriceId, quantity: 1 }
    : {
        quantity: 1,
        price_data: {
          currency: r.product.currency,
          unit_amount: r.product.price,
          product_data: { name: r.product.name },
          ...(r.mode === "subscription" ? { recurring: { interval: "month" as const } } : {}),
        },
      };
  return guarded(() =>
    stripe.checkout.sessions.create({
      mode: r.mode,
      client_reference_id: r.userUuid,
      customer_email: r.email ?? undefined,
      line_items: [lineItem],
      metadata,
      ...(r.mode === "subscription" ? { subscription_data: { metadata } } : {}),
      success_url: r.successUrl,
      cancel_url: r.cancelUrl,
    }),
  );
}

/** A billing-portal session where the customer manages or cancels their subscription. */
export async function createPortalSession(
  stripe: Stripe,
  customerId: string,
  returnUrl: string,
): Promise<string> {
  const session = await guarded(() =>
    stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }),
  );
  return session.url;
}

/**
 * The subscription as Stripe has it now (what the webhook applies when a key is set, whatever
 * the event carried), or null when Stripe has no such subscription (404: asking again will
 * not help). Anything else is StripeUnavailable, and the webhook asks Stripe to retry.
 */
export async function retrieveSubscription(
  stripe: Stripe,
  id: string,
): Promise<StripeSubscription | null> {
  return guarded(async () => {
    try {
      return await stripe.subscriptions.retrieve(id);
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 404) return null;
      throw err;
    }
  });
}

/**
 * The checkout session a payment intent paid, as Stripe has it (a refund or dispute names the
 * charge's payment intent; a session credited before we recorded intents is found this way).
 * Null when Stripe knows none; StripeUnavailable when it cannot say.
 */
export async function sessionIdForPaymentIntent(
  stripe: Stripe,
  paymentIntentId: string,
): Promise<string | null> {
  const list = await guarded(() =>
    stripe.checkout.sessions.list({ payment_intent: paymentIntentId, limit: 1 }),
  );
  return list.data[0]?.id ?? null;
}
