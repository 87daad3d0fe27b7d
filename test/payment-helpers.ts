import { env } from "cloudflare:test";
import { and, eq, inArray } from "drizzle-orm";
import { CompactSign, importPKCS8 } from "jose";
import Stripe from "stripe";
import { vi } from "vitest";
import { db } from "../workers/db/client";
import { subscriptions, tokenBundles, users } from "../workers/db/schema";
import { LEVEL_STATUSES } from "../workers/payment-service/level-rule";
import { api } from "../workers/api";
import type { Env } from "../workers/env";
import { accountObject, accountOf } from "../workers/merch-service/token-shop/account-repo";
import { call, type CallInit } from "./helpers";

/**
 * Payment test kit. The suite's env has no STRIPE_SECRET_KEY (local test mode); `live`
 * is the env a real-Stripe deployment has, with Stripe's host pointed at a stub that
 * `stubStripe` answers at the fetch boundary.
 */

/** `/api/payment-service<path>` through the real Worker (local test mode). */
export const pay = (path: string, init?: CallInit) => call("payment-service", path, init);

export const STRIPE_STUB = "http://stripe.test";
export const live: Partial<Env> = {
  STRIPE_SECRET_KEY: "sk_test_stub",
  STRIPE_API_URL: STRIPE_STUB,
};

/** `/api/payment-service<path>` on the gateway with `over` merged into the env (e.g. `live`). */
export async function payWith(
  over: Partial<Env>,
  path: string,
  init: CallInit = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const body =
    init.body === undefined
      ? undefined
      : typeof init.body === "string"
        ? init.body
        : JSON.stringify(init.body);
  if (body !== undefined) headers["Content-Type"] ??= "application/json";
  const res = await api.request(
    `/api/payment-service${path}`,
    { method: init.method ?? (body ? "POST" : "GET"), headers, body },
    { ...env, ...over } as Env,
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

let n = 0;
export const uniq = (tag = "p") =>
  `${tag}-${Date.now().toString(36)}-${(n++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** A product made through the admin route. */
export async function makeProduct(adminToken: string, over: Record<string, unknown> = {}) {
  const res = await pay("/api/v1/products", {
    token: adminToken,
    body: { name: `Product ${uniq()}`, price: 499, ...over },
  });
  if (res.status !== 201)
    throw new Error(`product create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as {
    id: string;
    price: number;
    currency: string;
    subscriptionLevel: string | null;
  };
}

/** A token bundle selling `productId` (the merch-service's table; rows as its admin route makes them). */
export async function makeBundle(productId: string, tokenAmount: number) {
  return db(env)
    .insert(tokenBundles)
    .values({ productId, name: `${tokenAmount} tokens`, tokenAmount })
    .returning()
    .get();
}

/** The user's available token balance (0 when they have no account yet). */
export async function balanceOf(userUuid: string): Promise<number> {
  const account = await accountOf(env, userUuid);
  if (!account) return 0;
  return (await accountObject(env, account.id).getAccount()).balance;
}

/**
 * What payments leaves when a subscription starts: a running subscription granting `level`
 * (the level is read from subscriptions) and the cached `users.subscriptionLevel`; with null,
 * the user's running subscriptions end. No avatar is taken off here (dropLostAvatar does).
 */
export async function setSubscriptionLevel(uuid: string, level: string | null) {
  const d = db(env);
  if (level)
    await d.insert(subscriptions).values({
      id: crypto.randomUUID(),
      userUuid: uuid,
      level,
      status: "active",
      source: "local",
      externalId: `sub_local_${uniq("t")}`,
      startDate: Date.now(),
    });
  else
    await d
      .update(subscriptions)
      .set({ status: "canceled", endDate: Date.now() })
      .where(and(eq(subscriptions.userUuid, uuid), inArray(subscriptions.status, LEVEL_STATUSES)));
  await d.update(users).set({ subscriptionLevel: level }).where(eq(users.uuid, uuid));
}

/** A Stripe-shaped event, as Stripe would post it. */
export function stripeEvent(
  type: string,
  object: Record<string, unknown>,
  id = `evt_${uniq("t")}`,
) {
  return {
    id,
    object: "event",
    api_version: "2025-01-01",
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: null,
    type,
    data: { object },
  };
}

/** Body and Stripe-Signature header for `event`, signed with the suite's webhook secret by the SDK's own helper. */
export async function signed(event: unknown, secret = env.STRIPE_WEBHOOK_SECRET!) {
  const body = JSON.stringify(event);
  const header = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload: body,
    secret,
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  return { body, header };
}

/** Posts a signed (or deliberately unsigned/forged) body to the Stripe webhook. */
export const postStripe = (body: string, header?: string) =>
  pay("/webhook/stripe", {
    body,
    headers: header === undefined ? {} : { "Stripe-Signature": header },
  });

/** Posts a signed body to the Stripe webhook of a deployment with a Stripe key (`live`). */
export const postStripeLive = (body: string, header: string) =>
  payWith(live, "/webhook/stripe", { body, headers: { "Stripe-Signature": header } });

/**
 * Answers Stripe's API calls (checkout and portal sessions, and subscriptions from
 * `subscriptions`, which the test may change between calls) at the fetch boundary; records
 * what was sent.
 */
export function stubStripe(subscriptions: Record<string, Record<string, unknown>> = {}) {
  const sent: { path: string; form: URLSearchParams; auth: string | null }[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== STRIPE_STUB) throw new Error(`unrouted fetch in test: ${url.href}`);
    const form = new URLSearchParams(String(init?.body ?? ""));
    sent.push({ path: url.pathname, form, auth: new Headers(init?.headers).get("Authorization") });
    if (url.pathname === "/v1/checkout/sessions") {
      const id = `cs_test_${uniq("s")}`;
      return Response.json({
        id,
        object: "checkout.session",
        url: `https://checkout.stripe.com/c/pay/${id}`,
        mode: form.get("mode"),
        client_reference_id: form.get("client_reference_id"),
      });
    }
    const sub = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname);
    if (sub && subscriptions[decodeURIComponent(sub[1])])
      return Response.json(subscriptions[decodeURIComponent(sub[1])]);
    if (url.pathname === "/v1/billing_portal/sessions") {
      return Response.json({
        id: "bps_1",
        object: "billing_portal.session",
        url: `https://billing.stripe.com/p/session/${form.get("customer")}`,
      });
    }
    return Response.json(
      { error: { type: "invalid_request_error", message: `No such route ${url.pathname}` } },
      { status: 404 },
    );
  });
  return sent;
}

const testEnv = env as unknown as Record<string, string | undefined>;
export const appleReady = !!testEnv.TEST_APPLE_CHAIN;

/** An App Store JWS over `payload`, signed by the trusted test leaf (or the rogue chain's). */
export async function appleJws(
  payload: unknown,
  o: { rogue?: boolean; chain?: string[]; key?: string } = {},
) {
  const chain =
    o.chain ??
    (JSON.parse(
      (o.rogue ? testEnv.TEST_APPLE_ROGUE_CHAIN : testEnv.TEST_APPLE_CHAIN)!,
    ) as string[]);
  const key = await importPKCS8(
    o.key ?? (o.rogue ? testEnv.TEST_APPLE_ROGUE_KEY : testEnv.TEST_APPLE_LEAF_KEY)!,
    "ES256",
  );
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "ES256", x5c: chain })
    .sign(key);
}

export const trustedChain = () => JSON.parse(testEnv.TEST_APPLE_CHAIN!) as string[];
export const rogueChain = () => JSON.parse(testEnv.TEST_APPLE_ROGUE_CHAIN!) as string[];
export const rogueKey = () => testEnv.TEST_APPLE_ROGUE_KEY!;
/** Trusted chains missing one Apple marker; their leaf signs with the trusted leaf key. */
export const noLeafOidChain = () => JSON.parse(testEnv.TEST_APPLE_CHAIN_NO_LEAF_OID!) as string[];
export const noIntermediateOidChain = () =>
  JSON.parse(testEnv.TEST_APPLE_CHAIN_NO_INT_OID!) as string[];

/** The app and environment the suite is configured for (vitest.config.ts), as Apple writes them. */
export const appleApp = () => ({
  bundleId: env.APPLE_BUNDLE_ID!,
  appAppleId: Number(env.APPLE_APP_APPLE_ID),
  environment: "Production",
});
