import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { subscriptions, users } from "../workers/db/schema";
import { admin, signUp, type TestAccount } from "./helpers";
import {
  makeProduct,
  pay,
  postStripe,
  postStripeLive,
  signed,
  stripeEvent,
  stubStripe,
  uniq,
} from "./payment-helpers";

/**
 * Subscription state comes from the subscription itself, not from the order Stripe's events
 * arrive in (workers/payment-service/stripe-subscriptions.ts, subscription-state.ts).
 */

let boss: TestAccount;
beforeAll(async () => {
  boss = await admin();
});
afterEach(() => vi.restoreAllMocks());

const DAY = 86_400;
const nowS = () => Math.floor(Date.now() / 1000);

const levelOf = async (uuid: string) =>
  (
    await db(env)
      .select({ l: users.subscriptionLevel })
      .from(users)
      .where(eq(users.uuid, uuid))
      .get()
  )?.l ?? null;
const rowOf = (externalId: string) =>
  db(env).select().from(subscriptions).where(eq(subscriptions.externalId, externalId)).get();

/** A subscriber, a plan granting `level`, and Stripe-shaped objects about one subscription. */
async function subscriber(level: string, who?: TestAccount) {
  const user = who ?? (await signUp());
  const plan = await makeProduct(boss.token, {
    paymentType: "recurring",
    subscriptionLevel: level,
  });
  const id = `sub_${uniq("o")}`;
  const periodEnd = nowS() + 30 * DAY;
  const sub = (status: string, over: Record<string, unknown> = {}) => ({
    id,
    object: "subscription",
    status,
    customer: "cus_order",
    start_date: nowS() - DAY,
    metadata: { userUuid: user.uuid, productId: plan.id },
    items: { object: "list", data: [{ current_period_end: periodEnd }] },
    ...over,
  });
  const checkout = () =>
    stripeEvent("checkout.session.completed", {
      id: `cs_test_${uniq("s")}`,
      object: "checkout.session",
      mode: "subscription",
      payment_status: "paid",
      status: "complete",
      client_reference_id: user.uuid,
      subscription: id,
      customer: "cus_order",
      metadata: { productId: plan.id },
    });
  return { user, plan, id, periodEnd, sub, checkout };
}

/** Signs and posts `event` (without a Stripe key: the object it carries is the state). */
const send = async (event: unknown) => {
  const { body, header } = await signed(event);
  return postStripe(body, header);
};
/** The same with a Stripe key: the event is a prompt, Stripe's API answer is the state. */
const sendLive = async (event: unknown) => {
  const { body, header } = await signed(event);
  return postStripeLive(body, header);
};
const older = <T extends { created: number }>(e: T, seconds = 600) => ({
  ...e,
  created: e.created - seconds,
});

describe("Stripe: an ended subscription never comes back", () => {
  it("a late checkout.session.completed, or an older `updated` (active) delivered after a newer canceled one, leaves the user without the level", async () => {
    const s = await subscriber("gold");
    const startedAt = s.checkout();
    const firstActive = stripeEvent("customer.subscription.updated", s.sub("active"));
    await send(stripeEvent("customer.subscription.created", s.sub("active")));
    expect(await levelOf(s.user.uuid)).toBe("gold");
    await send(
      stripeEvent("customer.subscription.deleted", s.sub("canceled", { ended_at: nowS() })),
    );
    expect(await levelOf(s.user.uuid)).toBeNull();

    // The checkout that started it, delivered late (Stripe does not order its events).
    const late = await send(older(startedAt));
    expect(late.status).toBe(200);
    expect(await levelOf(s.user.uuid)).toBeNull();
    expect((await rowOf(s.id))?.status).toBe("canceled");
    // An older "active" update delivered after the newer canceled one.
    await send(older(firstActive));
    expect(await levelOf(s.user.uuid)).toBeNull();
    const mine = await pay("/subscription", { token: s.user.token });
    expect(mine.body.subscriptionLevel).toBeNull();
    expect(mine.body.data[0]).toMatchObject({ status: "canceled", running: false });
    // A new subscription (a new id) is a new start.
    const again = await subscriber("gold", s.user);
    await send(again.checkout());
    expect(await levelOf(s.user.uuid)).toBe("gold");
  });
});

describe("Stripe: unpaid and paused end perks", () => {
  it("unpaid and paused take the level away; paying or resuming gives it back; past_due keeps it", async () => {
    const s = await subscriber("silver");
    await send(s.checkout());
    expect(await levelOf(s.user.uuid)).toBe("silver");
    await send(stripeEvent("customer.subscription.updated", s.sub("past_due")));
    expect(await levelOf(s.user.uuid)).toBe("silver");

    await send(stripeEvent("customer.subscription.updated", s.sub("unpaid")));
    expect(await levelOf(s.user.uuid)).toBeNull();
    const unpaid = await pay("/subscription", { token: s.user.token });
    expect(unpaid.body.subscriptionLevel).toBeNull();
    expect(unpaid.body.data[0]).toMatchObject({ status: "unpaid", running: false });
    // Not ended: paying the invoice makes it active again.
    await send(stripeEvent("customer.subscription.updated", s.sub("active")));
    expect(await levelOf(s.user.uuid)).toBe("silver");

    await send(stripeEvent("customer.subscription.paused", s.sub("paused")));
    expect(await levelOf(s.user.uuid)).toBeNull();
    expect((await rowOf(s.id))?.status).toBe("paused");
    await send(stripeEvent("customer.subscription.resumed", s.sub("active")));
    expect(await levelOf(s.user.uuid)).toBe("silver");

    await send(stripeEvent("customer.subscription.updated", s.sub("incomplete_expired")));
    expect(await levelOf(s.user.uuid)).toBeNull();
    expect((await rowOf(s.id))?.status).toBe("expired");
  });
});

describe("Stripe with a key: the subscription as Stripe's API answers it", () => {
  it("events only prompt a read: a late older `active` cannot undo what Stripe says now (unpaid, then canceled)", async () => {
    const s = await subscriber("pro");
    const stripe: Record<string, Record<string, unknown>> = { [s.id]: s.sub("active") };
    stubStripe(stripe);
    const startedAt = s.checkout();
    const firstActive = stripeEvent("customer.subscription.updated", s.sub("active"));

    expect((await sendLive(startedAt)).status).toBe(200);
    expect(await levelOf(s.user.uuid)).toBe("pro");
    // The period end is Stripe's, not guessed from the session.
    expect((await rowOf(s.id))?.endDate).toBe(s.periodEnd * 1000);

    stripe[s.id] = s.sub("unpaid");
    await sendLive(stripeEvent("customer.subscription.updated", s.sub("unpaid")));
    expect(await levelOf(s.user.uuid)).toBeNull();
    // An older event that carries "active", delivered now: Stripe still says unpaid.
    await sendLive(older(firstActive));
    expect(await levelOf(s.user.uuid)).toBeNull();
    expect((await rowOf(s.id))?.status).toBe("unpaid");

    stripe[s.id] = s.sub("canceled", { ended_at: nowS() });
    await sendLive(stripeEvent("customer.subscription.deleted", stripe[s.id]));
    await sendLive(older(startedAt));
    expect(await levelOf(s.user.uuid)).toBeNull();
    expect((await rowOf(s.id))?.status).toBe("canceled");
  });

  it("Stripe unreachable: 503 so Stripe retries, and nothing changes", async () => {
    const s = await subscriber("pro");
    vi.spyOn(globalThis, "fetch").mockRejectedValue(new TypeError("network down"));
    const r = await sendLive(s.checkout());
    expect(r.status).toBe(503);
    expect(await rowOf(s.id)).toBeUndefined();
    expect(await levelOf(s.user.uuid)).toBeNull();
  });
});
