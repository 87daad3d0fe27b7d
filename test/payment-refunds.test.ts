import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { debtMessage } from "../durable/token-account-debt";
import { api } from "../workers/api";
import { db } from "../workers/db/client";
import { checkoutSessions, tokenAccounts, tokenBundles } from "../workers/db/schema";
import { MSG } from "../workers/payment-service/messages";
import { call, countRows, signUp, webSessionCookie, type TestAccount } from "./helpers";
import {
  appleApp,
  appleJws,
  appleReady,
  makeBundle,
  makeProduct,
  pay,
  postStripe,
  postStripeLive,
  signed,
  stripeEvent,
  STRIPE_STUB,
  uniq,
} from "./payment-helpers";
import { buy, buyerInRoom, makeConsumable, merch, storeAdmin } from "./token-helpers";

/**
 * Refunds and disputes (issue 12): what a refunded or disputed payment credited is taken back
 * exactly once; tokens already spent become a debt that blocks spending and that the next
 * tokens bought pay first. Every rule below is proved through the real webhooks and pages;
 * the object's own take-backs under concurrency and eviction: durable-token-account-debt.test.ts.
 */

let boss: TestAccount;
beforeAll(async () => {
  boss = await storeAdmin();
});
afterEach(() => vi.restoreAllMocks());

const objectOf = (accountId: string) => env.TokenAccount.getByName(accountId);
const accountView = (accountId: string) => objectOf(accountId).getAccount();
const accountIdOf = async (userUuid: string) =>
  (await db(env).select().from(tokenAccounts).where(eq(tokenAccounts.userUuid, userUuid)).get())!
    .id;

/**
 * A bundle of `tokens` bought through Stripe (local test mode's session row, the signed
 * checkout.session.completed Stripe sends, paid by payment intent `pi`) and credited.
 */
async function boughtWithStripe(buyer: { token: string; uuid: string }, tokens: number) {
  const product = await makeProduct(boss.token);
  await makeBundle(product.id, tokens);
  const start = await pay(`/api/v1/products/${product.id}/checkout`, {
    method: "POST",
    token: buyer.token,
  });
  expect(start.status).toBe(201);
  const pi = `pi_test_${uniq("i")}`;
  const event = stripeEvent("checkout.session.completed", {
    id: start.body.sessionId,
    object: "checkout.session",
    mode: "payment",
    payment_status: "paid",
    status: "complete",
    client_reference_id: buyer.uuid,
    payment_intent: pi,
    metadata: { productId: product.id, userUuid: buyer.uuid, tokenAmount: String(tokens) },
  });
  const { body, header } = await signed(event);
  const res = await postStripe(body, header);
  expect(res.status).toBe(200);
  expect(res.body.outcome).toMatchObject({ handled: true, effect: "credited" });
  return { pi, chargeId: `ch_test_${uniq("c")}`, sessionId: start.body.sessionId as string };
}

/** A charge.refunded for the charge `chargeId` of `amount` cents, `refunded` of it in all. */
const refundEvent = (
  p: { pi: string | null; chargeId: string },
  amount: number,
  refunded: number,
) =>
  stripeEvent("charge.refunded", {
    id: p.chargeId,
    object: "charge",
    amount,
    amount_refunded: refunded,
    refunded: refunded >= amount,
    payment_intent: p.pi,
    status: "succeeded",
  });

const disputeEvent = (
  type: "charge.dispute.created" | "charge.dispute.closed",
  p: { pi: string; chargeId: string },
  id: string,
  status: string,
) =>
  stripeEvent(type, {
    id,
    object: "dispute",
    amount: 500,
    charge: p.chargeId,
    payment_intent: p.pi,
    status,
  });

async function deliver(event: unknown) {
  const { body, header } = await signed(event);
  return postStripe(body, header);
}

describe("Stripe: a refund takes the tokens back", () => {
  it("after part was spent: balance 0, the rest is debt, purchases refused; a bundle pays the debt first", async () => {
    const b = await buyerInRoom(0);
    const paid = await boughtWithStripe(b, 100);
    const item = await makeConsumable({ tokenCost: 30 });
    expect((await buy(b, item)).status).toBe(201);
    expect(await accountView(b.accountId)).toMatchObject({ balance: 70, debt: 0 });

    const refund = await deliver(refundEvent(paid, 999, 999));
    expect(refund.status).toBe(200);
    expect(refund.body.outcome).toMatchObject({ handled: true, effect: "taken_back" });
    expect(await accountView(b.accountId)).toMatchObject({ balance: 0, heldBalance: 0, debt: 30 });

    // The owner sees it: the account says what is owed, the ledger why.
    const self = await merch("/token-accounts/self", { token: b.token });
    expect(self.body).toMatchObject({ balance: 0, debt: 30 });
    const ledger = await merch(`/token-accounts/${b.accountId}/transactions`, { token: b.token });
    expect(ledger.body.data[0]).toMatchObject({
      type: "clawback",
      amount: 100,
      balance: 0,
      debt: 30,
    });
    expect(ledger.body.data[0].memo).toContain(paid.chargeId);

    // Nothing can be spent while the debt stands, with a message that says why.
    const refused = await buy(b, item);
    expect(refused.status).toBe(402);
    expect(refused.body.message).toBe(debtMessage(30));
    expect(refused.body.message).toBe(
      "Your account owes 30 tokens after a refund; buy tokens to settle it.",
    );
    const grantFirst = await merch(`/token-accounts/${b.accountId}/grant`, {
      token: boss.token,
      body: { amount: 10 },
    });
    expect(grantFirst.status).toBe(201);
    expect(grantFirst.body).toMatchObject({ balance: 0, debt: 20 });

    // The admin list of accounts in debt shows it (D1's copy, written before the webhook answered).
    const list = await call("merch-service", "/admin/token-debts?limit=100", { token: boss.token });
    expect(list.status).toBe(200);
    await vi.waitFor(async () => {
      const again = await call("merch-service", "/admin/token-debts?limit=100", {
        token: boss.token,
      });
      expect(again.body.data.find((r: { id: string }) => r.id === b.accountId)).toMatchObject({
        debt: 20,
        userUuid: b.uuid,
        nickname: expect.any(String),
      });
    });

    // A bundle bought now pays the debt first, the rest is spendable.
    await boughtWithStripe(b, 50);
    expect(await accountView(b.accountId)).toMatchObject({ balance: 30, debt: 0 });
    const after = await merch(`/token-accounts/${b.accountId}/transactions`, { token: b.token });
    expect(after.body.data.slice(0, 2)).toMatchObject([
      { type: "repay", amount: 20, balance: 30, debt: 0 },
      { type: "credit", amount: 50, balance: 50, debt: 20 },
    ]);
    expect((await buy(b, item)).status).toBe(201);
    expect(await accountView(b.accountId)).toMatchObject({ balance: 0, debt: 0 });
    await vi.waitFor(async () => {
      const gone = await call("merch-service", "/admin/token-debts?limit=100", {
        token: boss.token,
      });
      expect(gone.body.data.some((r: { id: string }) => r.id === b.accountId)).toBe(false);
    });
    b.socket.close();
  });

  it("the owner's /tokens page and the admin pages show the debt and the refund", async () => {
    const buyer = await signUp();
    const paid = await boughtWithStripe(buyer, 100);
    const id = await accountIdOf(buyer.uuid);
    // 60 spent (a hold charged), then the payment refunded: 40 taken from the balance, 60 owed.
    const spent = await objectOf(id).hold(60, `spend-${id}`);
    if (!spent.ok) throw new Error(spent.message);
    await objectOf(id).commit(spent.holdId!, `spend-commit-${id}`);
    await deliver(refundEvent(paid, 500, 500));
    const page = async (path: string, token: string) => {
      const res = await SELF.fetch(`http://hangout.test${path}`, {
        headers: { Cookie: await webSessionCookie(token) },
      });
      expect(res.status, path).toBe(200);
      return res.text();
    };

    const tokens = await page("/tokens", buyer.token);
    expect(tokens).toContain('data-testid="tokens-debt"');
    expect(tokens).toContain("You owe 60 tokens");
    expect(tokens).toMatch(/refunded or disputed/);

    const user = await page(`/admin/users/${buyer.id}`, boss.token);
    expect(user).toMatch(/data-testid="admin-token-debt"[^>]*>60</);
    expect(user).toContain('data-testid="admin-refund-row"');
    expect(user).toContain(`refund of charge ${paid.chargeId}`);

    const list = await page("/admin/users", boss.token);
    expect(list).toContain('data-testid="admin-debts"');
    expect(list).toContain(`/admin/users/${buyer.id}`);
  });

  it("a replayed refund takes back once: the same event twice, and 20 concurrent deliveries", async () => {
    const buyer = await signUp();
    const paid = await boughtWithStripe(buyer, 400);
    const id = await accountIdOf(buyer.uuid);
    const event = refundEvent(paid, 2000, 1000);
    const { body, header } = await signed(event);
    const first = await postStripe(body, header);
    const second = await postStripe(body, header);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.duplicate).toBe(true);
    expect(await accountView(id)).toMatchObject({ balance: 200, debt: 0 });

    // The full refund, delivered 20 times at once, and once more under another event id.
    const full = await signed(refundEvent(paid, 2000, 2000));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => postStripe(full.body, full.header)),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await deliver(refundEvent(paid, 2000, 2000))).toMatchObject({ status: 200 });
    expect(await accountView(id)).toMatchObject({ balance: 0, debt: 0 });
    const clawbacks = await objectOf(id).transactions(100, 0, ["clawback"]);
    expect(clawbacks.data.map((e) => e.amount).sort()).toEqual([200, 200]);
  });

  it("partial refunds then a full one take back exactly the credit, whatever order they arrive in", async () => {
    const buyer = await signUp();
    const paid = await boughtWithStripe(buyer, 100);
    const id = await accountIdOf(buyer.uuid);
    // 100 tokens for 300 cents: 1 cent is 0.33 tokens (rounded down: none), 150 is 50, 299 is 99.
    expect((await deliver(refundEvent(paid, 300, 1))).status).toBe(200);
    expect((await accountView(id)).balance).toBe(100);
    await deliver(refundEvent(paid, 300, 150));
    expect((await accountView(id)).balance).toBe(50);
    await deliver(refundEvent(paid, 300, 299));
    expect((await accountView(id)).balance).toBe(1);
    // An older partial refund arriving late takes nothing more.
    await deliver(refundEvent(paid, 300, 150));
    expect((await accountView(id)).balance).toBe(1);
    await deliver(refundEvent(paid, 300, 300));
    await deliver(refundEvent(paid, 300, 299));
    expect(await accountView(id)).toMatchObject({ balance: 0, debt: 0 });
    const clawbacks = await objectOf(id).transactions(100, 0, ["clawback"]);
    expect(clawbacks.data.reduce((s, e) => s + e.amount, 0)).toBe(100);
  });

  it("a dispute takes everything back at once; won gives it back, keeping a refund; lost keeps it", async () => {
    const buyer = await signUp();
    const paid = await boughtWithStripe(buyer, 100);
    const id = await accountIdOf(buyer.uuid);
    await deliver(refundEvent(paid, 1000, 300)); // 30 tokens refunded first
    expect((await accountView(id)).balance).toBe(70);
    const dispute = `du_${uniq("d")}`;
    const opened = disputeEvent("charge.dispute.created", paid, dispute, "needs_response");
    await Promise.all(Array.from({ length: 5 }, () => deliver(opened)));
    expect(await accountView(id)).toMatchObject({ balance: 0, debt: 0 });
    const won = await deliver(disputeEvent("charge.dispute.closed", paid, dispute, "won"));
    expect(won.body.outcome).toMatchObject({ handled: true, effect: "given_back" });
    await deliver(disputeEvent("charge.dispute.closed", paid, dispute, "won"));
    // The refund's 30 stay taken back; the dispute's 70 are back.
    expect(await accountView(id)).toMatchObject({ balance: 70, debt: 0 });

    const other = await signUp();
    const lost = await boughtWithStripe(other, 60);
    const otherId = await accountIdOf(other.uuid);
    const d2 = `du_${uniq("d")}`;
    await deliver(disputeEvent("charge.dispute.created", lost, d2, "needs_response"));
    const closed = await deliver(disputeEvent("charge.dispute.closed", lost, d2, "lost"));
    expect(closed.body.outcome).toMatchObject({ handled: false });
    expect(await accountView(otherId)).toMatchObject({ balance: 0, debt: 0 });
  });

  it("a dispute won before its opening arrives cancels the opening: nothing is taken", async () => {
    const buyer = await signUp();
    const paid = await boughtWithStripe(buyer, 80);
    const id = await accountIdOf(buyer.uuid);
    const dispute = `du_${uniq("d")}`;
    await deliver(disputeEvent("charge.dispute.closed", paid, dispute, "won"));
    await deliver(disputeEvent("charge.dispute.created", paid, dispute, "needs_response"));
    expect(await accountView(id)).toMatchObject({ balance: 80, debt: 0 });
  });

  it("a refund of a charge we do not know is acknowledged and changes nothing; so is a malformed one", async () => {
    const buyer = await signUp();
    await boughtWithStripe(buyer, 40);
    const id = await accountIdOf(buyer.uuid);
    const events = [
      refundEvent({ pi: `pi_unknown_${uniq("u")}`, chargeId: "ch_unknown" }, 500, 500),
      refundEvent({ pi: null, chargeId: "ch_no_intent" }, 500, 500),
      stripeEvent("charge.refunded", { id: "ch_broken", object: "charge", amount: "lots" }),
      disputeEvent("charge.dispute.created", { pi: "pi_nobody", chargeId: "ch_x" }, "du_x", "x"),
    ];
    for (const e of events) {
      const r = await deliver(e);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.outcome).toMatchObject({ handled: false });
    }
    expect(await accountView(id)).toMatchObject({ balance: 40, debt: 0 });
  });

  it("a refund whose checkout is not credited yet asks Stripe to retry, then applies", async () => {
    const buyer = await signUp();
    const product = await makeProduct(boss.token);
    await makeBundle(product.id, 90);
    const start = await pay(`/api/v1/products/${product.id}/checkout`, {
      method: "POST",
      token: buyer.token,
    });
    const pi = `pi_test_${uniq("i")}`;
    // The session row knows its payment intent, but the credit has not been applied yet.
    await db(env)
      .update(checkoutSessions)
      .set({ paymentIntentId: pi })
      .where(eq(checkoutSessions.id, start.body.sessionId))
      .run();
    const early = await deliver(refundEvent({ pi, chargeId: "ch_early" }, 500, 500));
    expect(early.status).toBe(503);
    const completed = stripeEvent("checkout.session.completed", {
      id: start.body.sessionId,
      object: "checkout.session",
      mode: "payment",
      payment_status: "paid",
      client_reference_id: buyer.uuid,
      payment_intent: pi,
      metadata: { productId: product.id, userUuid: buyer.uuid, tokenAmount: "90" },
    });
    expect((await deliver(completed)).status).toBe(200);
    expect((await deliver(refundEvent({ pi, chargeId: "ch_early" }, 500, 500))).status).toBe(200);
    expect(await accountView(await accountIdOf(buyer.uuid))).toMatchObject({ balance: 0 });
  });

  it("with a Stripe key, a session credited before payment intents were recorded is found through Stripe's API", async () => {
    const buyer = await signUp();
    const paid = await boughtWithStripe(buyer, 70);
    // As a row from before migration 0011: no payment intent recorded.
    await db(env)
      .update(checkoutSessions)
      .set({ paymentIntentId: null })
      .where(eq(checkoutSessions.id, paid.sessionId))
      .run();
    const asked: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.origin !== STRIPE_STUB) throw new Error(`unrouted fetch: ${url.href}`);
      asked.push(`${url.pathname}?${url.searchParams}`);
      const match = url.searchParams.get("payment_intent") === paid.pi;
      return Response.json({
        object: "list",
        has_more: false,
        url: "/v1/checkout/sessions",
        data: match ? [{ id: paid.sessionId, object: "checkout.session" }] : [],
      });
    });
    const { body, header } = await signed(refundEvent(paid, 100, 100));
    const r = await postStripeLive(body, header);
    expect(r.status).toBe(200);
    expect(asked[0]).toContain(`payment_intent=${paid.pi}`);
    expect(await accountView(await accountIdOf(buyer.uuid))).toMatchObject({ balance: 0 });
    const row = await db(env)
      .select()
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, paid.sessionId))
      .get();
    expect(row?.paymentIntentId).toBe(paid.pi);
  });

  it("a forged or missing signature is 400 and takes nothing back", async () => {
    const buyer = await signUp();
    const paid = await boughtWithStripe(buyer, 60);
    const event = refundEvent(paid, 100, 100);
    const forged = await signed(event, "whsec_not_the_secret");
    const before = await countRows("payment_events");
    for (const header of [forged.header, undefined, "t=1,v1=00"]) {
      const r = await postStripe(forged.body, header);
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(MSG.badSignature);
    }
    expect(await countRows("payment_events")).toBe(before);
    expect(await accountView(await accountIdOf(buyer.uuid))).toMatchObject({ balance: 60 });
  });

  it("local test mode's payment names its payment intent, so its refund finds the credit", async () => {
    const buyer = await signUp();
    const product = await makeProduct(boss.token);
    await makeBundle(product.id, 25);
    const start = await pay(`/api/v1/products/${product.id}/checkout`, {
      method: "POST",
      token: buyer.token,
    });
    const done = await pay(`/checkout/local/${start.body.sessionId}/complete`, {
      method: "POST",
      token: buyer.token,
    });
    expect(done.status).toBe(200);
    const ref = String(start.body.sessionId).slice("cs_local_".length);
    await deliver(refundEvent({ pi: `pi_local_${ref}`, chargeId: `ch_local_${ref}` }, 10, 10));
    expect(await accountView(await accountIdOf(buyer.uuid))).toMatchObject({ balance: 0 });
  });
});

describe.skipIf(!appleReady)("App Store: REFUND and REVOKE take a bundle back", () => {
  const notify = async (type: string, tx: Record<string, unknown>, uuid = crypto.randomUUID()) => {
    const { bundleId, environment } = appleApp();
    const signedTransactionInfo = await appleJws({ bundleId, environment, ...tx });
    const signedPayload = await appleJws({
      notificationType: type,
      notificationUUID: uuid,
      version: "2.0",
      signedDate: Date.now(),
      data: { ...appleApp(), signedTransactionInfo },
    });
    return pay("/webhook/apple", { body: { signedPayload } });
  };

  async function appleBundle(buyer: { uuid: string }, tokens: number) {
    const productId = `com.hangout.${uniq("tokens")}`;
    await makeProduct(boss.token, { id: productId });
    await makeBundle(productId, tokens);
    const transactionId = uniq("t");
    const tx = {
      transactionId,
      originalTransactionId: transactionId,
      productId,
      purchaseDate: Date.now(),
      appAccountToken: buyer.uuid,
      type: "Consumable",
    };
    expect((await notify("ONE_TIME_CHARGE", tx)).status).toBe(200);
    return tx;
  }

  it("REFUND after some was spent: balance 0, the rest is debt; replays take nothing more", async () => {
    const b = await buyerInRoom(0);
    const tx = await appleBundle(b, 50);
    const item = await makeConsumable({ tokenCost: 20 });
    expect((await buy(b, item)).status).toBe(201);
    const refundTx = { ...tx, revocationDate: Date.now(), revocationReason: 1 };
    const uuid = crypto.randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => notify("REFUND", refundTx, uuid)),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // Another notification about the same refund.
    expect((await notify("REFUND", refundTx)).status).toBe(200);
    expect(await accountView(b.accountId)).toMatchObject({ balance: 0, debt: 20 });
    const refused = await buy(b, item);
    expect(refused.status).toBe(402);
    expect(refused.body.message).toBe(debtMessage(20));
    const entries = await objectOf(b.accountId).transactions(100, 0, ["clawback"]);
    expect(entries.data).toHaveLength(1);
    expect(entries.data[0]).toMatchObject({ amount: 50, debt: 20 });
    b.socket.close();
  });

  it("REVOKE takes the bundle back; REFUND_REVERSED gives a refund back", async () => {
    const buyer = await signUp();
    const revoked = await appleBundle(buyer, 30);
    const id = await accountIdOf(buyer.uuid);
    // The bundle deleted since the purchase: the tokens it credited still come back.
    await db(env).delete(tokenBundles).where(eq(tokenBundles.productId, revoked.productId)).run();
    await notify("REVOKE", { ...revoked, revocationDate: Date.now() });
    expect(await accountView(id)).toMatchObject({ balance: 0, debt: 0 });

    const refunded = await appleBundle(buyer, 45);
    await notify("REFUND", { ...refunded, revocationDate: Date.now() });
    expect((await accountView(id)).balance).toBe(0);
    await notify("REFUND_REVERSED", refunded);
    await notify("REFUND_REVERSED", refunded);
    expect(await accountView(id)).toMatchObject({ balance: 45, debt: 0 });
  });

  it("a REFUND for a purchase not credited yet is a 503 (Apple retries); for an unknown user, acknowledged", async () => {
    const buyer = await signUp();
    const productId = `com.hangout.${uniq("tokens")}`;
    await makeProduct(boss.token, { id: productId });
    await makeBundle(productId, 10);
    const tx = {
      transactionId: uniq("t"),
      originalTransactionId: uniq("o"),
      productId,
      appAccountToken: buyer.uuid,
      revocationDate: Date.now(),
    };
    const early = await notify("REFUND", tx);
    expect(early.status).toBe(503);
    expect(early.body.message).toBe(MSG.refundNotCredited);
    const stranger = await notify("REFUND", { ...tx, appAccountToken: crypto.randomUUID() });
    expect(stranger.status).toBe(200);
    expect(stranger.body.outcome).toMatchObject({ handled: false });
  });
});

describe("admin token routes refuse anyone but an admin", () => {
  it("401 without a token, 403 for a plain user, 200 for an admin", async () => {
    const plain = await signUp();
    const someone = await signUp();
    const paths = ["/admin/token-debts", `/admin/token-accounts/user/${someone.uuid}`];
    for (const path of paths) {
      expect((await call("merch-service", path)).status, path).toBe(401);
      expect((await call("merch-service", path, { token: plain.token })).status, path).toBe(403);
      expect((await call("merch-service", path, { token: boss.token })).status, path).toBe(200);
    }
    const none = await call("merch-service", `/admin/token-accounts/user/${someone.uuid}`, {
      token: boss.token,
    });
    expect(none.body).toEqual({ account: null, refunds: [], refundsTotal: 0, recent: [] });
  });

  it("every admin route of every service: 401 without a token, 403 for a plain user", async () => {
    const plain = await signUp();
    const routes = api.routes.filter(
      (r) =>
        /\/(admin|info-admin)(\/|$)/.test(r.path) && !/-status$/.test(r.path) && r.method !== "ALL",
    );
    expect(routes.length).toBeGreaterThan(20);
    const uuid = crypto.randomUUID();
    for (const r of routes) {
      // Parameters get a value of the right shape, so only the guard can refuse.
      const path = r.path
        .replace(/^\/api\/[^/]+/, "")
        .replace(/:[A-Za-z]*(uuid|Uuid|Id)\b/g, uuid)
        .replace(/:[A-Za-z]+/g, "1");
      const service = r.path.split("/")[2];
      const init = r.method === "GET" ? {} : { method: r.method, body: {} };
      const anon = await call(service, path, init);
      expect(anon.status, `${r.method} ${r.path} without a token`).toBe(401);
      const user = await call(service, path, { ...init, token: plain.token });
      expect(user.status, `${r.method} ${r.path} as a plain user`).toBe(403);
    }
  });
});
