import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import type { Env } from "../workers/env";
import { checkoutSessions, subscriptions, users } from "../workers/db/schema";
import { MSG } from "../workers/payment-service/messages";
import { avatarIdOf, makeAvatar, wear } from "./avatars-helpers";
import { admin, countRows, signUp, type TestAccount } from "./helpers";
import {
  balanceOf,
  live,
  makeBundle,
  makeProduct,
  pay,
  payWith,
  postStripe,
  signed,
  stripeEvent,
  stubStripe,
  uniq,
} from "./payment-helpers";

let boss: TestAccount;
beforeAll(async () => {
  boss = await admin();
});
afterEach(() => vi.restoreAllMocks());

/** A paid checkout.session.completed for `productId` bought by `userUuid`. */
const completed = (userUuid: string, productId: string, over: Record<string, unknown> = {}) =>
  stripeEvent("checkout.session.completed", {
    id: `cs_test_${uniq("s")}`,
    object: "checkout.session",
    mode: "payment",
    payment_status: "paid",
    status: "complete",
    client_reference_id: userUuid,
    metadata: { productId },
    ...over,
  });

async function bundleProduct(tokens: number) {
  const p = await makeProduct(boss.token);
  await makeBundle(p.id, tokens);
  return p;
}

/**
 * A checkout the buyer really started (local test mode: our session row, tokens fixed) and
 * the paid event Stripe sends for it, its metadata as checkout wrote it.
 */
async function bought(
  buyer: TestAccount,
  productId: string,
  tokens: number,
  over: Record<string, unknown> = {},
) {
  const start = await pay(`/api/v1/products/${productId}/checkout`, {
    method: "POST",
    token: buyer.token,
  });
  expect(start.status).toBe(201);
  return completed(buyer.uuid, productId, {
    id: start.body.sessionId,
    metadata: { productId, userUuid: buyer.uuid, tokenAmount: String(tokens) },
    ...over,
  });
}

const levelOf = async (uuid: string) =>
  (
    await db(env)
      .select({ l: users.subscriptionLevel })
      .from(users)
      .where(eq(users.uuid, uuid))
      .get()
  )?.l ?? null;

describe("POST /webhook/stripe: signatures", () => {
  it("a missing, malformed, wrong-secret or tampered signature is 400 and changes nothing", async () => {
    const buyer = await signUp();
    const p = await bundleProduct(300);
    const event = completed(buyer.uuid, p.id);
    const good = await signed(event);
    const forged = await signed(event, "whsec_not_the_secret");
    const tampered = JSON.stringify({
      ...event,
      data: { object: { ...event.data.object, metadata: { productId: "other" } } },
    });
    const eventsBefore = await countRows("payment_events");
    const attempts: [string, string | undefined][] = [
      [good.body, undefined],
      [good.body, ""],
      [good.body, "t=1,v1=deadbeef"],
      [good.body, forged.header],
      [tampered, good.header],
      ["not json at all", good.header],
    ];
    for (const [body, header] of attempts) {
      const r = await postStripe(body, header);
      expect(r.status, String(header)).toBe(400);
      expect(r.body.message).toBe(MSG.badSignature);
    }
    // An old signature (replayed outside Stripe's 5-minute tolerance) is refused too.
    const old = await signed(event);
    const stale = old.header.replace(/t=\d+/, `t=${Math.floor(Date.now() / 1000) - 3600}`);
    expect((await postStripe(old.body, stale)).status).toBe(400);
    expect(await balanceOf(buyer.uuid)).toBe(0);
    expect(await countRows("payment_events")).toBe(eventsBefore);
  });
});

describe("POST /webhook/stripe: a bundle bought", () => {
  it("credits the bundle once when Stripe replays the event five times in a row", async () => {
    const buyer = await signUp();
    const p = await bundleProduct(500);
    const { body, header } = await signed(await bought(buyer, p.id, 500));
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await postStripe(body, header));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(1);
    expect(await balanceOf(buyer.uuid)).toBe(500);
  });

  it("credits once when five deliveries of one event race, and once more for a new session", async () => {
    const buyer = await signUp();
    const p = await bundleProduct(250);
    const event = await bought(buyer, p.id, 250);
    const { body, header } = await signed(event);
    const answers = await Promise.all(Array.from({ length: 5 }, () => postStripe(body, header)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await balanceOf(buyer.uuid)).toBe(250);
    // Stripe may also send the same session under a new event id (e.g. async_payment_succeeded):
    // the credit is keyed by the session, so it still counts once.
    const again = await signed(
      stripeEvent("checkout.session.async_payment_succeeded", event.data.object),
    );
    await Promise.all(Array.from({ length: 5 }, () => postStripe(again.body, again.header)));
    expect(await balanceOf(buyer.uuid)).toBe(250);
    const second = await signed(await bought(buyer, p.id, 250));
    expect((await postStripe(second.body, second.header)).status).toBe(200);
    expect(await balanceOf(buyer.uuid)).toBe(500);
  });

  it("an unpaid (async) completion credits nothing until the payment succeeds", async () => {
    const buyer = await signUp();
    const p = await bundleProduct(40);
    const pending = await bought(buyer, p.id, 40, { payment_status: "unpaid" });
    const a = await signed(pending);
    expect((await postStripe(a.body, a.header)).body.outcome.handled).toBe(false);
    expect(await balanceOf(buyer.uuid)).toBe(0);
    const paid = await signed(
      stripeEvent("checkout.session.async_payment_succeeded", {
        ...pending.data.object,
        payment_status: "paid",
      }),
    );
    await postStripe(paid.body, paid.header);
    expect(await balanceOf(buyer.uuid)).toBe(40);
  });

  it("events it does not use are acknowledged and change nothing", async () => {
    const { body, header } = await signed(
      stripeEvent("invoice.created", { id: "in_1", object: "invoice" }),
    );
    const r = await postStripe(body, header);
    expect(r.status).toBe(200);
    expect(r.body.outcome.handled).toBe(false);
  });
});

describe("local test mode", () => {
  it("checkout, the local page's data, pay: the bundle is credited through the webhook path", async () => {
    const buyer = await signUp();
    const p = await bundleProduct(120);
    const start = await pay(`/api/v1/products/${p.id}/checkout`, {
      method: "POST",
      token: buyer.token,
    });
    const id = start.body.sessionId;
    const page = await pay(`/checkout/local/${id}`, { token: buyer.token });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({
      session: { id, status: "open", mode: "payment" },
      product: { id: p.id, price: p.price },
    });
    const eventsBefore = await countRows("payment_events");

    const done = await pay(`/checkout/local/${id}/complete`, {
      method: "POST",
      token: buyer.token,
    });
    expect(done.status).toBe(200);
    expect(done.body.redirectTo).toBe(`/tokens?session_id=${id}`);
    expect(await balanceOf(buyer.uuid)).toBe(120);
    // It went through the webhook: the signed event was recorded like Stripe's.
    expect(await countRows("payment_events")).toBe(eventsBefore + 1);
    expect(
      (await db(env).select().from(checkoutSessions).where(eq(checkoutSessions.id, id)).get())
        ?.status,
    ).toBe("complete");

    // Paying again (a double click, a second tab) replays the same event: no second credit.
    await Promise.all(
      [1, 2, 3].map(() =>
        pay(`/checkout/local/${id}/complete`, { method: "POST", token: buyer.token }),
      ),
    );
    expect(await balanceOf(buyer.uuid)).toBe(120);
  });

  it("only the buyer may see or pay their session; cancel closes it without a charge", async () => {
    const [buyer, other] = await Promise.all([signUp(), signUp()]);
    const p = await bundleProduct(60);
    const id = (
      await pay(`/api/v1/products/${p.id}/checkout`, { method: "POST", token: buyer.token })
    ).body.sessionId;
    expect((await pay(`/checkout/local/${id}`, { token: other.token })).status).toBe(404);
    expect(
      (await pay(`/checkout/local/${id}/complete`, { method: "POST", token: other.token })).status,
    ).toBe(404);
    expect((await pay(`/checkout/local/${id}/complete`, { method: "POST" })).status).toBe(401);
    expect(
      (await pay(`/checkout/local/not-a-session/complete`, { method: "POST", token: buyer.token }))
        .status,
    ).toBe(400);
    const cancel = await pay(`/checkout/local/${id}/cancel`, {
      method: "POST",
      token: buyer.token,
    });
    expect(cancel.body).toMatchObject({ status: "expired", redirectTo: "/tokens?canceled=1" });
    const late = await pay(`/checkout/local/${id}/complete`, {
      method: "POST",
      token: buyer.token,
    });
    expect(late.status).toBe(409);
    expect(late.body.message).toBe(MSG.sessionClosed);
    expect(await balanceOf(buyer.uuid)).toBe(0);
    expect(await balanceOf(other.uuid)).toBe(0);
  });

  it("is refused (403) when a Stripe key is set, and credits nothing", async () => {
    const buyer = await signUp();
    const p = await bundleProduct(70);
    const id = (
      await pay(`/api/v1/products/${p.id}/checkout`, { method: "POST", token: buyer.token })
    ).body.sessionId;
    const r = await payWith(live, `/checkout/local/${id}/complete`, {
      method: "POST",
      token: buyer.token,
    });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(MSG.localOnly);
    expect((await payWith(live, `/checkout/local/${id}`, { token: buyer.token })).status).toBe(403);
    expect(await balanceOf(buyer.uuid)).toBe(0);
  });
});

describe("a production deploy without a Stripe key", () => {
  // What wrangler.toml deploys, with STRIPE_SECRET_KEY missing: before, checkout fell back
  // to the local test page there too, and any user could pay themselves.
  const prod: Partial<Env> = { ENVIRONMENT: "production" };

  it("answers checkout and the portal with 503, has no local pages, and credits nothing", async () => {
    const buyer = await signUp();
    const p = await bundleProduct(70);
    const checkout = await payWith(prod, `/api/v1/products/${p.id}/checkout`, {
      method: "POST",
      token: buyer.token,
    });
    expect(checkout.status).toBe(503);
    expect(checkout.body.message).toBe(MSG.paymentsOff);
    const portal = await payWith(prod, "/subscription/portal", {
      method: "POST",
      token: buyer.token,
    });
    expect(portal.status).toBe(503);
    // A session opened in local mode (the same database) cannot be completed in production.
    const id = (
      await pay(`/api/v1/products/${p.id}/checkout`, { method: "POST", token: buyer.token })
    ).body.sessionId;
    const complete = await payWith(prod, `/checkout/local/${id}/complete`, {
      method: "POST",
      token: buyer.token,
    });
    expect(complete.status).toBe(404);
    expect(complete.body.message).toBe(
      `Cannot POST /api/payment-service/checkout/local/${id}/complete`,
    );
    expect((await payWith(prod, `/checkout/local/${id}`, { token: buyer.token })).status).toBe(404);
    expect(await balanceOf(buyer.uuid)).toBe(0);
  });
});

describe("subscriptions from Stripe events", () => {
  it("checkout in subscription mode sets the level; updates follow; deletion clears it", async () => {
    const subscriber = await signUp();
    const plan = await makeProduct(boss.token, {
      paymentType: "recurring",
      subscriptionLevel: "gold",
      price: 799,
    });
    const subId = `sub_${uniq("x")}`;
    const start = await signed(
      completed(subscriber.uuid, plan.id, {
        mode: "subscription",
        subscription: subId,
        customer: "cus_42",
        customer_details: { address: { country: "ES" } },
      }),
    );
    expect((await postStripe(start.body, start.header)).status).toBe(200);
    expect(await levelOf(subscriber.uuid)).toBe("gold");
    const row = await db(env)
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.externalId, subId))
      .get();
    expect(row).toMatchObject({
      userUuid: subscriber.uuid,
      level: "gold",
      status: "active",
      region: "ES",
      customerId: "cus_42",
      source: "stripe",
    });

    const sub = {
      id: subId,
      object: "subscription",
      customer: "cus_42",
      start_date: Math.floor(Date.now() / 1000),
      metadata: { userUuid: subscriber.uuid, productId: plan.id },
      items: { data: [] },
    };
    const pastDue = await signed(
      stripeEvent("customer.subscription.updated", { ...sub, status: "past_due" }),
    );
    await postStripe(pastDue.body, pastDue.header);
    expect(await levelOf(subscriber.uuid)).toBe("gold");

    const deleted = await signed(
      stripeEvent("customer.subscription.deleted", {
        ...sub,
        status: "canceled",
        ended_at: Math.floor(Date.now() / 1000),
      }),
    );
    await postStripe(deleted.body, deleted.header);
    expect(await levelOf(subscriber.uuid)).toBeNull();
    const ended = await db(env)
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.externalId, subId))
      .get();
    expect(ended?.status).toBe("canceled");
    expect(ended?.endDate).toBeGreaterThan(0);

    // A late, out-of-order "active" update cannot revive an ended Stripe subscription.
    const late = await signed(
      stripeEvent("customer.subscription.updated", { ...sub, status: "active" }),
    );
    await postStripe(late.body, late.header);
    expect(await levelOf(subscriber.uuid)).toBeNull();
  });

  it("a subscriber-only avatar comes off when the subscription ends", async () => {
    const subscriber = await signUp();
    const plan = await makeProduct(boss.token, {
      paymentType: "recurring",
      subscriptionLevel: "plus",
    });
    const subId = `sub_${uniq("av")}`;
    const start = await signed(
      completed(subscriber.uuid, plan.id, {
        mode: "subscription",
        subscription: subId,
        customer: "cus_av",
      }),
    );
    await postStripe(start.body, start.header);
    const perk = await makeAvatar(boss.token, { status: "SUBSCRIBER_ONLY" });
    await wear(subscriber.token, perk.slug);
    expect(await avatarIdOf(subscriber.uuid)).toBe(perk.slug);
    const end = await signed(
      stripeEvent("customer.subscription.deleted", {
        id: subId,
        object: "subscription",
        status: "canceled",
        customer: "cus_av",
        start_date: 1,
        metadata: {},
      }),
    );
    await postStripe(end.body, end.header);
    expect(await levelOf(subscriber.uuid)).toBeNull();
    expect(await avatarIdOf(subscriber.uuid)).toBeNull();
  });

  it("customer.subscription.created alone (from the metadata) starts a subscription", async () => {
    const subscriber = await signUp();
    const plan = await makeProduct(boss.token, {
      paymentType: "recurring",
      subscriptionLevel: "silver",
    });
    const e = await signed(
      stripeEvent("customer.subscription.created", {
        id: `sub_${uniq("y")}`,
        object: "subscription",
        status: "active",
        customer: "cus_7",
        start_date: 1_700_000_000,
        metadata: { userUuid: subscriber.uuid, productId: plan.id },
      }),
    );
    expect((await postStripe(e.body, e.header)).body.outcome).toMatchObject({ handled: true });
    expect(await levelOf(subscriber.uuid)).toBe("silver");
  });

  it("local test mode: subscribe, see the level, cancel in the local portal, level cleared", async () => {
    const subscriber = await signUp();
    const plan = await makeProduct(boss.token, {
      paymentType: "recurring",
      subscriptionLevel: "pro",
    });
    const start = await pay(`/subscription/checkout/${plan.id}`, {
      method: "POST",
      token: subscriber.token,
    });
    expect(start.status).toBe(201);
    const done = await pay(`/checkout/local/${start.body.sessionId}/complete`, {
      method: "POST",
      token: subscriber.token,
    });
    expect(done.body.redirectTo).toBe(`/subscription?session_id=${start.body.sessionId}`);
    const mine = await pay("/subscription", { token: subscriber.token });
    expect(mine.body.subscriptionLevel).toBe("pro");
    expect(mine.body.data[0]).toMatchObject({
      level: "pro",
      status: "active",
      source: "local",
      productId: plan.id,
    });

    // One running subscription at a time.
    const again = await pay(`/subscription/checkout/${plan.id}`, {
      method: "POST",
      token: subscriber.token,
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(MSG.alreadySubscribed);

    const portal = await pay("/subscription/portal", { method: "POST", token: subscriber.token });
    expect(portal.body.url).toBe("http://hangout.test/subscription/local-portal");
    const other = await signUp();
    expect(
      (
        await pay(`/subscription/local-portal/${mine.body.data[0].id}/cancel`, {
          method: "POST",
          token: other.token,
        })
      ).status,
    ).toBe(404);
    const cancel = await pay(`/subscription/local-portal/${mine.body.data[0].id}/cancel`, {
      method: "POST",
      token: subscriber.token,
    });
    expect(cancel.body.status).toBe("canceled");
    expect(
      (await pay("/subscription", { token: subscriber.token })).body.subscriptionLevel,
    ).toBeNull();
    expect(
      (
        await pay(`/subscription/local-portal/${mine.body.data[0].id}/cancel`, {
          method: "POST",
          token: subscriber.token,
        })
      ).status,
    ).toBe(409);
  });

  it("with a Stripe key the portal is Stripe's, for the subscriber's customer", async () => {
    const subscriber = await signUp();
    const plan = await makeProduct(boss.token, {
      paymentType: "recurring",
      subscriptionLevel: "pro",
    });
    const e = await signed(
      completed(subscriber.uuid, plan.id, {
        mode: "subscription",
        subscription: `sub_${uniq("z")}`,
        customer: "cus_portal",
      }),
    );
    await postStripe(e.body, e.header);
    const sent = stubStripe();
    const r = await payWith(live, "/subscription/portal", {
      method: "POST",
      token: subscriber.token,
    });
    expect(r.status).toBe(200);
    expect(r.body.url).toBe("https://billing.stripe.com/p/session/cus_portal");
    expect(sent[0].form.get("return_url")).toBe("http://hangout.test/subscription");
    const nobody = await signUp();
    expect(
      (await payWith(live, "/subscription/portal", { method: "POST", token: nobody.token })).body
        .message,
    ).toBe(MSG.noSubscription);
  });
});
