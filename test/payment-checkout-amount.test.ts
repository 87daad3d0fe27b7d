import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { checkoutSessions } from "../workers/db/schema";
import { admin, call, signUp, type TestAccount } from "./helpers";
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

/**
 * The tokens a bundle checkout sells are fixed when checkout starts: an admin editing the
 * bundle before the payment lands changes nothing for that buyer, and a replayed or
 * disagreeing webhook never credits twice or the wrong amount.
 */

let boss: TestAccount;
beforeAll(async () => {
  boss = await admin();
});
afterEach(() => vi.restoreAllMocks());

async function bundleProduct(tokens: number) {
  const p = await makeProduct(boss.token);
  const bundle = await makeBundle(p.id, tokens);
  return { p, bundle };
}

/** An admin editing the bundle through its route, as the admin page does. */
async function setTokens(bundleId: number, tokenAmount: number) {
  const r = await call("merch-service", `/api/v1/token-bundles/${bundleId}`, {
    method: "PATCH",
    token: boss.token,
    body: { tokenAmount },
  });
  expect(r.status).toBe(200);
}

const sessionRow = (id: string) =>
  db(env).select().from(checkoutSessions).where(eq(checkoutSessions.id, id)).get();

/** The paid event Stripe sends for session `id`, its metadata as given. */
const paid = (buyer: TestAccount, id: string, metadata: Record<string, string>) =>
  stripeEvent("checkout.session.completed", {
    id,
    object: "checkout.session",
    mode: "payment",
    payment_status: "paid",
    status: "complete",
    client_reference_id: buyer.uuid,
    metadata,
  });

/** A Stripe checkout (Stripe stubbed at the fetch boundary): the session id and the metadata sent. */
async function stripeCheckout(buyer: TestAccount, productId: string) {
  const sent = stubStripe();
  const r = await payWith(live, `/api/v1/products/${productId}/checkout`, {
    method: "POST",
    token: buyer.token,
  });
  expect(r.status).toBe(201);
  vi.restoreAllMocks();
  const metadata: Record<string, string> = {};
  for (const [k, v] of sent[0].form) {
    const key = k.match(/^metadata\[(.+)\]$/)?.[1];
    if (key) metadata[key] = v;
  }
  return { sessionId: r.body.sessionId as string, metadata };
}

describe("a bundle's tokens are fixed at checkout", () => {
  it("Stripe: raising the bundle after checkout started does not change what that purchase credits", async () => {
    const buyer = await signUp();
    const { p, bundle } = await bundleProduct(100);
    const { sessionId, metadata } = await stripeCheckout(buyer, p.id);
    expect(metadata).toEqual({ productId: p.id, userUuid: buyer.uuid, tokenAmount: "100" });
    expect((await sessionRow(sessionId))?.tokenAmount).toBe(100);

    await setTokens(bundle.id, 500);
    const e = await signed(paid(buyer, sessionId, metadata));
    const r = await postStripe(e.body, e.header);
    expect(r.body.outcome).toMatchObject({ handled: true, credit: { tokens: 100 } });
    expect(await balanceOf(buyer.uuid)).toBe(100);

    // The next buyer is sold the bundle as it is now.
    const next = await stripeCheckout(buyer, p.id);
    expect(next.metadata.tokenAmount).toBe("500");
    const e2 = await signed(paid(buyer, next.sessionId, next.metadata));
    await postStripe(e2.body, e2.header);
    expect(await balanceOf(buyer.uuid)).toBe(600);
  });

  it("local test mode: the page shows the amount fixed at checkout, and paying credits it", async () => {
    const buyer = await signUp();
    const { p, bundle } = await bundleProduct(100);
    const id = (
      await pay(`/api/v1/products/${p.id}/checkout`, { method: "POST", token: buyer.token })
    ).body.sessionId;
    await setTokens(bundle.id, 500);
    expect((await pay(`/checkout/local/${id}`, { token: buyer.token })).body.session).toMatchObject(
      { id, tokenAmount: 100 },
    );
    const done = await pay(`/checkout/local/${id}/complete`, {
      method: "POST",
      token: buyer.token,
    });
    expect(done.status).toBe(200);
    expect(await balanceOf(buyer.uuid)).toBe(100);
  });

  it("a replayed webhook credits once, at the amount fixed at checkout, whatever the bundle says meanwhile", async () => {
    const buyer = await signUp();
    const { p, bundle } = await bundleProduct(100);
    const { sessionId, metadata } = await stripeCheckout(buyer, p.id);
    await setTokens(bundle.id, 500);
    const event = paid(buyer, sessionId, metadata);
    const { body, header } = await signed(event);
    const racing = await Promise.all(Array.from({ length: 5 }, () => postStripe(body, header)));
    expect(racing.every((a) => a.status === 200)).toBe(true);
    await setTokens(bundle.id, 10);
    for (let i = 0; i < 3; i++) expect((await postStripe(body, header)).body.duplicate).toBe(true);
    // The same session under another event id (Stripe's async_payment_succeeded) too.
    const again = await signed(
      stripeEvent("checkout.session.async_payment_succeeded", event.data.object),
    );
    expect((await postStripe(again.body, again.header)).status).toBe(200);
    expect(await balanceOf(buyer.uuid)).toBe(100);
  });

  it("metadata that disagrees with our session row is refused and logged, and credits nothing", async () => {
    const [buyer, other] = await Promise.all([signUp(), signUp()]);
    const { p } = await bundleProduct(100);
    const { sessionId, metadata } = await stripeCheckout(buyer, p.id);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});

    const inflated = await signed(paid(buyer, sessionId, { ...metadata, tokenAmount: "900" }));
    const r = await postStripe(inflated.body, inflated.header);
    expect(r.status).toBe(200);
    expect(r.body.outcome).toMatchObject({ handled: false });
    expect(r.body.outcome.reason).toMatch(/fixed 100 tokens but its metadata says 900/);
    expect(logged.mock.calls.flat().join(" ")).toContain(sessionId);
    // Refused for good: a replay is a known event, and the session stays unpaid on our side.
    expect((await postStripe(inflated.body, inflated.header)).body.duplicate).toBe(true);
    expect((await sessionRow(sessionId))?.status).toBe("open");

    // Missing amount, another buyer, a session we never started: refused the same way.
    const refusals = [
      paid(buyer, sessionId, { productId: p.id, userUuid: buyer.uuid }),
      paid(other, sessionId, { ...metadata, userUuid: other.uuid }),
      paid(buyer, `cs_test_${uniq("never")}`, metadata),
    ];
    for (const event of refusals) {
      const s = await signed(event);
      expect((await postStripe(s.body, s.header)).body.outcome.handled).toBe(false);
    }
    expect(await balanceOf(buyer.uuid)).toBe(0);
    expect(await balanceOf(other.uuid)).toBe(0);
  });
});
