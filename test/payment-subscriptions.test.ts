import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { djFacts } from "../durable/room/library";
import { db } from "../workers/db/client";
import { subscriptions } from "../workers/db/schema";
import { MSG } from "../workers/payment-service/messages";
import { avatarIdOf, makeAvatar, wear } from "./avatars-helpers";
import { admin, guestToken, signUp, user, type TestAccount } from "./helpers";
import { makeProduct, pay, postStripe, signed, stripeEvent, uniq } from "./payment-helpers";

let boss: TestAccount;
let member: TestAccount;
beforeAll(async () => {
  [boss, member] = await Promise.all([admin(), signUp()]);
});

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 0, 1);

/** A subscription row as a verified event would leave it (this file tests the read side). */
const addSubscription = (over: Partial<typeof subscriptions.$inferInsert>) =>
  db(env)
    .insert(subscriptions)
    .values({
      id: crypto.randomUUID(),
      userUuid: member.uuid,
      level: "pro",
      status: "active",
      source: "stripe",
      externalId: `sub_${uniq()}`,
      startDate: T0,
      ...over,
    })
    .run();

describe("GET /subscription/count (admin)", () => {
  it("is 401 without a token and 403 for a plain user", async () => {
    expect((await pay("/subscription/count")).status).toBe(401);
    expect((await pay("/subscription/count", { token: member.token })).status).toBe(403);
  });

  it("counts subscriptions running inside the window, by region and level", async () => {
    const level = uniq("lvl")
      .replace(/[^A-Za-z0-9_-]/g, "")
      .slice(0, 40);
    await addSubscription({
      level,
      region: "US",
      startDate: T0,
      endDate: T0 + 30 * DAY,
      status: "expired",
    });
    await addSubscription({ level, region: "US", startDate: T0 + 10 * DAY, endDate: null });
    await addSubscription({ level, region: "ES", startDate: T0 + 40 * DAY, endDate: null });
    await addSubscription({
      level,
      region: "US",
      startDate: T0 - 90 * DAY,
      endDate: T0 - 60 * DAY,
      status: "canceled",
    });
    const count = async (q: string) => {
      const r = await pay(`/subscription/count?level=${level}&${q}`, { token: boss.token });
      expect(r.status, q).toBe(200);
      return r.body.count;
    };
    expect(await count("startDate=2030-01-01&endDate=2030-01-31")).toBe(2);
    expect(await count("startDate=2030-01-01&endDate=2030-01-31&region=us")).toBe(2);
    expect(await count("startDate=2030-01-01&endDate=2030-12-31&region=ES")).toBe(1);
    expect(await count("startDate=2029-10-01&endDate=2029-10-31")).toBe(1);
    expect(await count(`startDate=${T0 + 35 * DAY}`)).toBe(2);
    // No dates: the ones running now.
    expect(await count("")).toBe(2);
  });

  it("bad input is a 400 with a message", async () => {
    for (const q of [
      "startDate=yesterday",
      "endDate=2030-13-45",
      "region=Spain",
      "level=a%20b",
      "startDate=2030-02-01&endDate=2030-01-01",
    ]) {
      const r = await pay(`/subscription/count?${q}`, { token: boss.token });
      expect(r.status, q).toBe(400);
      expect(r.body.message).toBeTruthy();
    }
  });
});

describe("reading subscriptions", () => {
  it("GET /subscription/user/{id}: self or admin only", async () => {
    const other = await signUp();
    expect((await pay(`/subscription/user/${member.uuid}`, { token: member.token })).status).toBe(
      200,
    );
    expect((await pay(`/subscription/user/${member.uuid}`, { token: boss.token })).status).toBe(
      200,
    );
    expect((await pay(`/subscription/user/${member.uuid}`, { token: other.token })).status).toBe(
      403,
    );
    expect((await pay(`/subscription/user/${member.uuid}`)).status).toBe(401);
    expect((await pay("/subscription/user/not-a-uuid", { token: boss.token })).status).toBe(400);
    expect(
      (await pay(`/subscription/user/${crypto.randomUUID()}`, { token: boss.token })).status,
    ).toBe(404);
  });

  it("GET /subscription lists the caller's own, newest first, with their level", async () => {
    const fresh = await signUp();
    const empty = await pay("/subscription", { token: fresh.token });
    expect(empty.body).toEqual({ subscriptionLevel: null, data: [] });
    expect((await pay("/subscription", { token: await guestToken() })).status).toBe(403);
  });

  it("GET /subscription/products lists active plans only, cheapest first", async () => {
    const cheap = await makeProduct(boss.token, {
      paymentType: "recurring",
      subscriptionLevel: "basic",
      price: 100,
    });
    const dear = await makeProduct(boss.token, {
      paymentType: "recurring",
      subscriptionLevel: "pro",
      price: 900,
    });
    const hidden = await makeProduct(boss.token, {
      paymentType: "recurring",
      subscriptionLevel: "pro",
      price: 500,
      active: false,
    });
    const oneTime = await makeProduct(boss.token);
    const r = await pay("/subscription/products", { token: member.token });
    const ids = r.body.data.map((p: { id: string }) => p.id);
    expect(ids.indexOf(cheap.id)).toBeLessThan(ids.indexOf(dear.id));
    expect(ids).not.toContain(hidden.id);
    expect(ids).not.toContain(oneTime.id);
    expect((await pay("/subscription/products")).status).toBe(401);
  });

  it("POST /subscription/checkout/{id} refuses one-time products, unknown ids and anonymous callers", async () => {
    const oneTime = await makeProduct(boss.token);
    expect(
      (await pay(`/subscription/checkout/${oneTime.id}`, { method: "POST", token: member.token }))
        .body.message,
    ).toBe(MSG.notRecurring);
    expect(
      (await pay(`/subscription/checkout/nope`, { method: "POST", token: member.token })).status,
    ).toBe(404);
    expect((await pay(`/subscription/checkout/${oneTime.id}`, { method: "POST" })).status).toBe(
      401,
    );
  });

  it("POST /subscription/portal with nothing to manage is a 404 with a message", async () => {
    const fresh = await signUp();
    const r = await pay("/subscription/portal", { method: "POST", token: fresh.token });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe(MSG.noSubscription);
  });
});

describe("a subscription past its endDate, with no further event", () => {
  it("grants no level, no subscriber-only avatar, no room perk, and does not block a new plan", async () => {
    const fan = await signUp();
    const level = uniq("end")
      .replace(/[^A-Za-z0-9_-]/g, "")
      .slice(0, 40);
    const plan = await makeProduct(boss.token, {
      paymentType: "recurring",
      subscriptionLevel: level,
    });
    const subId = `sub_${uniq("end")}`;
    const started = await signed(
      stripeEvent("customer.subscription.created", {
        id: subId,
        object: "subscription",
        status: "active",
        customer: "cus_end",
        start_date: Math.floor(Date.now() / 1000) - 86_400,
        metadata: { userUuid: fan.uuid, productId: plan.id },
        items: { data: [{ current_period_end: Math.floor(Date.now() / 1000) + 3600 }] },
      }),
    );
    expect((await postStripe(started.body, started.header)).status).toBe(200);
    const perk = await makeAvatar(boss.token, { status: "SUBSCRIBER_ONLY" });
    expect((await wear(fan.token, perk.slug)).status).toBe(200);
    expect((await djFacts(env, fan.uuid)).pro).toBe(true);

    // The paid period ends (moved into the past rather than waited for), and Stripe's
    // `deleted` event never arrives.
    await db(env)
      .update(subscriptions)
      .set({ endDate: Date.now() - 1000 })
      .where(eq(subscriptions.externalId, subId))
      .run();

    // Every reader asks the rule, before anything rewrites the cached level.
    expect((await djFacts(env, fan.uuid)).pro).toBe(false);
    const count = await pay(`/subscription/count?level=${level}`, { token: boss.token });
    expect(count.body.count).toBe(0);
    const seen = await pay(`/subscription/user/${fan.uuid}`, { token: boss.token });
    expect(seen.body.subscriptionLevel).toBeNull();
    expect(seen.body.data[0]).toMatchObject({ status: "active", running: false });
    expect((await user("/users/profile", { token: fan.token })).body.subscriptionLevel).toBeNull();
    expect(await avatarIdOf(fan.uuid)).toBeNull();
    const again = await wear(fan.token, perk.slug);
    expect(again.status).toBe(403);
    // One running subscription at a time: this one is not running any more.
    const fresh = await pay(`/subscription/checkout/${plan.id}`, {
      method: "POST",
      token: fan.token,
    });
    expect(fresh.status).toBe(201);
  });
});
