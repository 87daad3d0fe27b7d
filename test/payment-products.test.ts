import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { checkoutSessions } from "../workers/db/schema";
import { MSG } from "../workers/payment-service/messages";
import { admin, countRows, guestToken, signUp, type TestAccount } from "./helpers";
import { live, makeBundle, makeProduct, pay, payWith, stubStripe, uniq } from "./payment-helpers";

let boss: TestAccount;
let buyer: TestAccount;
beforeAll(async () => {
  [boss, buyer] = await Promise.all([admin(), signUp()]);
});
afterEach(() => vi.restoreAllMocks());

describe("products: who may do what", () => {
  it("every admin route is 401 without a token and 403 for a plain user", async () => {
    const p = await makeProduct(boss.token);
    const writes: [string, string, unknown][] = [
      ["POST", "/api/v1/products", { name: "x", price: 100 }],
      ["PATCH", `/api/v1/products/${p.id}`, { price: 200 }],
      ["DELETE", `/api/v1/products/${p.id}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      expect((await pay(path, { method, body })).status, `${method} ${path} anonymous`).toBe(401);
      expect(
        (await pay(path, { method, body, token: buyer.token })).status,
        `${method} ${path} as user`,
      ).toBe(403);
    }
    expect((await pay(`/api/v1/products/${p.id}`, { token: boss.token })).body.price).toBe(499);
  });

  it("reads need a signed-in account; guests are refused", async () => {
    expect((await pay("/api/v1/products")).status).toBe(401);
    expect((await pay("/api/v1/products", { token: await guestToken() })).status).toBe(403);
    expect((await pay("/api/v1/products", { token: buyer.token })).status).toBe(200);
  });
});

describe("products: CRUD", () => {
  it("creates, reads, lists, updates and deletes a product", async () => {
    const created = await pay("/api/v1/products", {
      token: boss.token,
      body: { name: "500 tokens", price: 499, currency: "EUR", description: "A stack" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "500 tokens",
      price: 499,
      currency: "eur",
      paymentType: "one_time",
      active: true,
      subscriptionLevel: null,
      tokenBundle: null,
    });
    const id = created.body.id;

    await makeBundle(id, 500);
    const one = await pay(`/api/v1/products/${id}`, { token: buyer.token });
    expect(one.body.tokenBundle).toMatchObject({ tokenAmount: 500 });

    const list = await pay("/api/v1/products?paymentType=one_time&limit=100", {
      token: buyer.token,
    });
    expect(list.body.data.find((p: { id: string }) => p.id === id)?.tokenBundle?.tokenAmount).toBe(
      500,
    );

    const patched = await pay(`/api/v1/products/${id}`, {
      method: "PATCH",
      token: boss.token,
      body: { price: 599, name: "Big stack" },
    });
    expect(patched.body).toMatchObject({ price: 599, name: "Big stack", currency: "eur" });

    // A product a bundle sells cannot be deleted out from under it.
    const refused = await pay(`/api/v1/products/${id}`, { method: "DELETE", token: boss.token });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(MSG.productHasBundle);

    const plain = await makeProduct(boss.token);
    expect(
      (await pay(`/api/v1/products/${plain.id}`, { method: "DELETE", token: boss.token })).status,
    ).toBe(200);
    expect((await pay(`/api/v1/products/${plain.id}`, { token: boss.token })).status).toBe(404);
  });

  it("an inactive product is hidden from buyers and cannot be bought", async () => {
    const p = await makeProduct(boss.token, { active: false });
    await makeBundle(p.id, 10);
    expect((await pay(`/api/v1/products/${p.id}`, { token: buyer.token })).status).toBe(404);
    expect((await pay(`/api/v1/products/${p.id}`, { token: boss.token })).status).toBe(200);
    const list = await pay("/api/v1/products?limit=100", { token: buyer.token });
    expect(list.body.data.some((x: { id: string }) => x.id === p.id)).toBe(false);
    expect(
      (await pay(`/api/v1/products/${p.id}/checkout`, { token: buyer.token, method: "POST" })).body
        .message,
    ).toBe(MSG.notForSale);
  });

  it("an admin may choose the id (an App Store product identifier); a taken id is 409", async () => {
    const id = `com.hangout.${uniq("tokens")}`;
    expect((await makeProduct(boss.token, { id })).id).toBe(id);
    const again = await pay("/api/v1/products", {
      token: boss.token,
      body: { id, name: "dup", price: 100 },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(MSG.productIdTaken);
  });

  it("bad input is a 400 with a message and writes nothing", async () => {
    const before = await countRows("products");
    const bad: [unknown, string | RegExp][] = [
      [{ price: 100 }, /name/],
      [{ name: "x", price: -5 }, /price/],
      [{ name: "x", price: 1.5 }, /price/],
      [{ name: "x", price: "100" }, /price/],
      [{ name: "x", price: 100, currency: "dollars" }, /currency/],
      [{ name: "x", price: 100, paymentType: "weekly" }, /paymentType/],
      [{ name: "x", price: 100, paymentType: "recurring" }, MSG.levelRequired],
      [{ name: "x", price: 100, subscriptionLevel: "pro" }, MSG.levelOnlyRecurring],
      [{ name: "x", price: 100, stripePriceId: "prod_123" }, /stripePriceId/],
      [{ name: "x", price: 100, id: "has spaces" }, /id/],
      [{ name: "x", price: 100, extra: 1 }, /extra|Unrecognized/],
      ["not json", /./],
    ];
    for (const [body, message] of bad) {
      const r = await pay("/api/v1/products", { token: boss.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(r.body.message)).toMatch(message);
    }
    const p = await makeProduct(boss.token);
    expect(
      (
        await pay(`/api/v1/products/${p.id}`, {
          method: "PATCH",
          token: boss.token,
          body: { paymentType: "recurring" },
        })
      ).body.message,
    ).toBe(MSG.levelRequired);
    expect((await pay(`/api/v1/products/${p.id}`, { token: boss.token })).body.paymentType).toBe(
      "one_time",
    );
    expect(await countRows("products")).toBe(before + 1);
    expect((await pay("/api/v1/products?limit=0", { token: buyer.token })).status).toBe(400);
    expect((await pay("/api/v1/products/not%20an%20id", { token: buyer.token })).status).toBe(400);
    expect((await pay("/api/v1/products/missing-one", { token: buyer.token })).body.message).toBe(
      MSG.productNotFound,
    );
  });
});

describe("product checkout", () => {
  it("local test mode: a session row and a URL to the local page", async () => {
    const p = await makeProduct(boss.token);
    await makeBundle(p.id, 100);
    const r = await pay(`/api/v1/products/${p.id}/checkout`, {
      method: "POST",
      token: buyer.token,
    });
    expect(r.status).toBe(201);
    expect(r.body.sessionId).toMatch(/^cs_local_/);
    expect(r.body.url).toBe(`http://hangout.test/checkout/local/${r.body.sessionId}`);
    const row = await db(env)
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, r.body.sessionId))
      .get();
    expect(row).toMatchObject({
      userUuid: buyer.uuid,
      productId: p.id,
      mode: "payment",
      status: "open",
      tokenAmount: 100,
    });
  });

  it("with a Stripe key: a Stripe checkout session for the buyer and product", async () => {
    const sent = stubStripe();
    const p = await makeProduct(boss.token, { price: 999, currency: "usd" });
    await makeBundle(p.id, 1000);
    const r = await payWith(live, `/api/v1/products/${p.id}/checkout`, {
      method: "POST",
      token: buyer.token,
    });
    expect(r.status).toBe(201);
    expect(r.body.url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect(sent).toHaveLength(1);
    const f = sent[0].form;
    expect(sent[0].auth).toBe("Bearer sk_test_stub");
    expect(f.get("mode")).toBe("payment");
    expect(f.get("client_reference_id")).toBe(buyer.uuid);
    expect(f.get("metadata[productId]")).toBe(p.id);
    expect(f.get("metadata[tokenAmount]")).toBe("1000");
    expect(f.get("line_items[0][price_data][unit_amount]")).toBe("999");
    expect(f.get("success_url")).toBe(
      "http://hangout.test/tokens?session_id={CHECKOUT_SESSION_ID}",
    );
    const row = await db(env)
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, r.body.sessionId))
      .get();
    expect(row).toMatchObject({ url: r.body.url, tokenAmount: 1000 });
  });

  it("Stripe refusing is a 502 with Stripe's message, and no session is kept", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(async () =>
      Response.json(
        { error: { type: "invalid_request_error", message: "No such price" } },
        { status: 400 },
      ),
    );
    const p = await makeProduct(boss.token);
    await makeBundle(p.id, 5);
    const before = await countRows("checkout_sessions");
    const r = await payWith(live, `/api/v1/products/${p.id}/checkout`, {
      method: "POST",
      token: buyer.token,
    });
    expect(r.status).toBe(502);
    expect(r.body.message).toMatch(/No such price/);
    expect(await countRows("checkout_sessions")).toBe(before);
  });

  it("refuses plans, products without a bundle, and anonymous buyers", async () => {
    const plan = await makeProduct(boss.token, {
      paymentType: "recurring",
      subscriptionLevel: "pro",
    });
    expect(
      (await pay(`/api/v1/products/${plan.id}/checkout`, { method: "POST", token: buyer.token }))
        .body.message,
    ).toBe(MSG.notOneTime);
    const bare = await makeProduct(boss.token);
    expect(
      (await pay(`/api/v1/products/${bare.id}/checkout`, { method: "POST", token: buyer.token }))
        .body.message,
    ).toBe(MSG.noBundle);
    expect((await pay(`/api/v1/products/${bare.id}/checkout`, { method: "POST" })).status).toBe(
      401,
    );
  });
});
