import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  APPLE_INTERMEDIATE_OID,
  APPLE_LEAF_OID,
  verifyAppleJws,
} from "../workers/adapters/apple-store";
import { ecdsaRaw, parseCertificate, pemToDer, verifyChain } from "../workers/adapters/x509";
import { db } from "../workers/db/client";
import { subscriptions, users } from "../workers/db/schema";
import type { Env } from "../workers/env";
import { MSG } from "../workers/payment-service/messages";
import { admin, countRows, signUp, type TestAccount } from "./helpers";
import {
  appleApp,
  appleJws,
  appleReady,
  balanceOf,
  makeBundle,
  makeProduct,
  noIntermediateOidChain,
  noLeafOidChain,
  pay,
  payWith,
  rogueChain,
  rogueKey,
  trustedChain,
  uniq,
} from "./payment-helpers";

const der = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const root = () => pemToDer(env.APPLE_ROOT_CA_PEM!);

describe.skipIf(!appleReady)("x509 chain walk", () => {
  it("parses the test chain: curves, CA flags, dates", () => {
    const [leaf, int, rootCert] = trustedChain().map((c) => parseCertificate(der(c)));
    expect(leaf.curve.name).toBe("P-256");
    expect(int.curve.name).toBe("P-384");
    expect([leaf.isCA, int.isCA, rootCert.isCA]).toEqual([false, true, true]);
    expect(leaf.notAfter - leaf.notBefore).toBeGreaterThan(300 * 86_400_000);
    expect(int.hash).toBe("SHA-384");
    expect(leaf.hash).toBe("SHA-256");
  });

  it("a good chain verifies to the leaf, with or without the root copy at its end", async () => {
    const chain = trustedChain().map(der);
    expect(await verifyChain(chain, root())).not.toBeNull();
    expect(await verifyChain(chain.slice(0, 2), root())).not.toBeNull();
  });

  it("refuses a chain under another root, a broken link, a leaf acting as CA, and out-of-date certificates", async () => {
    const [leaf, int] = trustedChain().map(der);
    const [rLeaf, rInt] = rogueChain().map(der);
    expect(await verifyChain(rogueChain().map(der), root())).toBeNull();
    expect(await verifyChain([rLeaf, int], root())).toBeNull();
    expect(await verifyChain([leaf, rInt], root())).toBeNull();
    expect(await verifyChain([leaf], root())).toBeNull(); // the leaf is not signed by the root
    expect(await verifyChain([int, leaf], root())).toBeNull(); // a leaf (not a CA) cannot sign
    expect(await verifyChain([], root())).toBeNull();
    const later = parseCertificate(leaf).notAfter + 1000;
    expect(await verifyChain([leaf, int], root(), later)).toBeNull();
    expect(
      await verifyChain([leaf, int], root(), parseCertificate(leaf).notBefore - 1000),
    ).toBeNull();
  });

  it("a flipped bit anywhere in a certificate, or garbage, never verifies and never throws", async () => {
    const [leaf, int] = trustedChain().map(der);
    for (const at of [10, 100, leaf.length - 5]) {
      const bad = leaf.slice();
      bad[at] ^= 0x01;
      expect(await verifyChain([bad, int], root())).toBeNull();
    }
    expect(await verifyChain([new Uint8Array([0x30, 0x82, 0xff, 0xff]), int], root())).toBeNull();
    expect(await verifyChain([leaf.subarray(0, 50), int], root())).toBeNull();
  });

  it("converts DER ECDSA signatures to raw r||s with padding", () => {
    // SEQUENCE { INTEGER 0x00ff (positive, padded), INTEGER 0x01 }
    const sig = new Uint8Array([0x30, 0x07, 0x02, 0x02, 0x00, 0xff, 0x02, 0x01, 0x01]);
    const raw = ecdsaRaw(sig, 4);
    expect([...raw]).toEqual([0, 0, 0, 0xff, 0, 0, 0, 1]);
  });

  it("verifyAppleJws: the trusted leaf's signature verifies; rogue chain, wrong key or alg do not", async () => {
    const payload = { hello: "world" };
    expect(await verifyAppleJws(env.APPLE_ROOT_CA_PEM!, await appleJws(payload))).toEqual(payload);
    expect(
      await verifyAppleJws(env.APPLE_ROOT_CA_PEM!, await appleJws(payload, { rogue: true })),
    ).toBeNull();
    // The trusted chain in the header, but signed with another key: a forgery.
    expect(
      await verifyAppleJws(
        env.APPLE_ROOT_CA_PEM!,
        await appleJws(payload, { chain: trustedChain(), key: rogueKey() }),
      ),
    ).toBeNull();
    expect(await verifyAppleJws(env.APPLE_ROOT_CA_PEM!, "a.b.c")).toBeNull();
    const good = await appleJws(payload);
    const [h, , s] = good.split(".");
    const swapped = `${h}.${btoa(JSON.stringify({ hello: "mars" })).replace(/=+$/, "")}.${s}`;
    expect(await verifyAppleJws(env.APPLE_ROOT_CA_PEM!, swapped)).toBeNull();
  });

  it("the factory's certificates carry Apple's markers, except where a chain leaves one out", () => {
    const oids = (chain: string[]) => chain.map((c) => parseCertificate(der(c)).extensions);
    const [leaf, int] = oids(trustedChain());
    expect(leaf).toContain(APPLE_LEAF_OID);
    expect(int).toContain(APPLE_INTERMEDIATE_OID);
    expect(oids(noLeafOidChain())[0]).not.toContain(APPLE_LEAF_OID);
    expect(oids(noIntermediateOidChain())[1]).not.toContain(APPLE_INTERMEDIATE_OID);
  });

  it("verifyAppleJws: a leaf or intermediate without Apple's marker, or an x5c that is not leaf, intermediate, root, does not verify", async () => {
    const payload = { hello: "world" };
    const root = env.APPLE_ROOT_CA_PEM!;
    // Each chain verifies to the trusted root; only the marker is missing.
    for (const chain of [noLeafOidChain(), noIntermediateOidChain()]) {
      expect(await verifyChain(chain.slice(0, 2).map(der), pemToDer(root))).not.toBeNull();
      expect(await verifyAppleJws(root, await appleJws(payload, { chain }))).toBeNull();
    }
    const [leaf, int, rootCopy] = trustedChain();
    expect(await verifyAppleJws(root, await appleJws(payload, { chain: [leaf, int] }))).toBeNull();
    expect(
      await verifyAppleJws(
        root,
        await appleJws(payload, { chain: [leaf, int, rootCopy, rootCopy] }),
      ),
    ).toBeNull();
    expect(await verifyAppleJws(root, await appleJws(payload))).toEqual(payload);
  });
});

describe.skipIf(!appleReady)("POST /webhook/apple", () => {
  let boss: TestAccount;
  beforeAll(async () => {
    boss = await admin();
  });

  /**
   * Posts a notification as Apple would: the envelope and the nested JWS signed by the
   * trusted chain, for the suite's app in Production (test/payment-helpers.ts `appleApp`).
   * `data`, the transaction's and the renewal info's own fields override that; `chain`,
   * `txChain`, `renewalChain` sign with another chain; `over` changes the server's env.
   */
  const notify = async (
    type: string,
    tx: Record<string, unknown>,
    o: {
      subtype?: string;
      uuid?: string;
      rogue?: boolean;
      rogueTx?: boolean;
      chain?: string[];
      txChain?: string[];
      data?: Record<string, unknown>;
      renewal?: Record<string, unknown>;
      renewalChain?: string[];
      over?: Partial<Env>;
    } = {},
  ) => {
    const { bundleId, environment } = { ...appleApp(), ...o.data };
    const signedTransactionInfo = await appleJws(
      { bundleId, environment, ...tx },
      { rogue: o.rogueTx, chain: o.txChain },
    );
    const signedRenewalInfo = o.renewal
      ? await appleJws(
          { environment, originalTransactionId: tx.originalTransactionId, ...o.renewal },
          { chain: o.renewalChain },
        )
      : undefined;
    const signedPayload = await appleJws(
      {
        notificationType: type,
        subtype: o.subtype,
        notificationUUID: o.uuid ?? crypto.randomUUID(),
        version: "2.0",
        signedDate: Date.now(),
        data: { ...appleApp(), ...o.data, signedTransactionInfo, signedRenewalInfo },
      },
      { rogue: o.rogue, chain: o.chain },
    );
    const init = { body: { signedPayload } };
    return o.over ? payWith(o.over, "/webhook/apple", init) : pay("/webhook/apple", init);
  };
  const levelOf = async (uuid: string) =>
    (
      await db(env)
        .select({ l: users.subscriptionLevel })
        .from(users)
        .where(eq(users.uuid, uuid))
        .get()
    )?.l ?? null;

  it("ONE_TIME_CHARGE credits the bundle once, however often it is delivered", async () => {
    const buyer = await signUp();
    const id = `com.hangout.${uniq("tokens")}`;
    await makeProduct(boss.token, { id });
    await makeBundle(id, 900);
    const tx = {
      transactionId: uniq("t"),
      originalTransactionId: uniq("o"),
      productId: id,
      purchaseDate: Date.now(),
      appAccountToken: buyer.uuid,
      storefront: "USA",
    };
    const uuid = crypto.randomUUID();
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => notify("ONE_TIME_CHARGE", tx, { uuid })),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // A different notification about the same transaction still credits once.
    await notify("ONE_TIME_CHARGE", tx);
    expect(await balanceOf(buyer.uuid)).toBe(900);
  });

  it("SUBSCRIBED and DID_RENEW set the level; DID_FAIL_TO_RENEW in grace keeps it; EXPIRED clears it", async () => {
    const subscriber = await signUp();
    const id = `com.hangout.${uniq("plan")}`;
    await makeProduct(boss.token, { id, paymentType: "recurring", subscriptionLevel: "vip" });
    const original = uniq("orig");
    const tx = {
      transactionId: uniq("t"),
      originalTransactionId: original,
      productId: id,
      purchaseDate: Date.now(),
      originalPurchaseDate: Date.now(),
      expiresDate: Date.now() + 30 * 86_400_000,
      appAccountToken: subscriber.uuid,
      storefront: "esp",
    };
    expect((await notify("SUBSCRIBED", tx, { subtype: "INITIAL_BUY" })).status).toBe(200);
    expect(await levelOf(subscriber.uuid)).toBe("vip");
    const row = await db(env)
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.externalId, original))
      .get();
    expect(row).toMatchObject({ source: "apple", status: "active", region: "ESP", level: "vip" });

    await notify("DID_FAIL_TO_RENEW", tx, { subtype: "GRACE_PERIOD" });
    expect(await levelOf(subscriber.uuid)).toBe("vip");
    await notify("DID_RENEW", { ...tx, transactionId: uniq("t2") });
    expect(await levelOf(subscriber.uuid)).toBe("vip");
    await notify("EXPIRED", tx, { subtype: "VOLUNTARY" });
    expect(await levelOf(subscriber.uuid)).toBeNull();
    expect(
      await db(env)
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.externalId, original))
        .all(),
    ).toHaveLength(1);
    // A real renewal (a billing recovery) is a new transaction for a later period.
    const renewed = {
      ...tx,
      transactionId: uniq("t3"),
      expiresDate: tx.expiresDate + 30 * 86_400_000,
    };
    await notify("DID_RENEW", renewed, { subtype: "BILLING_RECOVERY" });
    expect(await levelOf(subscriber.uuid)).toBe("vip");
    await notify("DID_FAIL_TO_RENEW", renewed);
    expect(await levelOf(subscriber.uuid)).toBeNull();
  });

  it("billing grace: the level lasts until the renewal info's gracePeriodExpiresDate, past the ended period; GRACE_PERIOD_EXPIRED or a refund ends it", async () => {
    const subscriber = await signUp();
    const id = `com.hangout.${uniq("plan")}`;
    await makeProduct(boss.token, { id, paymentType: "recurring", subscriptionLevel: "vip" });
    // As Apple sends it: the renewal failed when the period ended (an hour ago).
    const tx = {
      transactionId: uniq("t"),
      originalTransactionId: uniq("orig"),
      productId: id,
      originalPurchaseDate: Date.now() - 30 * 86_400_000,
      purchaseDate: Date.now() - 30 * 86_400_000,
      expiresDate: Date.now() - 3_600_000,
      appAccountToken: subscriber.uuid,
    };
    await notify("SUBSCRIBED", tx, { subtype: "INITIAL_BUY" });
    expect(await levelOf(subscriber.uuid)).toBeNull();
    const graceEnd = Date.now() + 16 * 86_400_000;
    const inGrace = await notify("DID_FAIL_TO_RENEW", tx, {
      subtype: "GRACE_PERIOD",
      renewal: { gracePeriodExpiresDate: graceEnd, isInBillingRetryPeriod: true },
    });
    expect(inGrace.body.outcome).toMatchObject({ handled: true, effect: "subscription_past_due" });
    expect(await levelOf(subscriber.uuid)).toBe("vip");
    const mine = await pay("/subscription", { token: subscriber.token });
    expect(mine.body.data[0]).toMatchObject({ status: "past_due", running: true });

    // Grace over: the level goes, and a replayed grace notification cannot bring it back.
    await notify("GRACE_PERIOD_EXPIRED", tx, { renewal: { isInBillingRetryPeriod: true } });
    expect(await levelOf(subscriber.uuid)).toBeNull();
    await notify("DID_FAIL_TO_RENEW", tx, {
      subtype: "GRACE_PERIOD",
      renewal: { gracePeriodExpiresDate: graceEnd },
    });
    expect(await levelOf(subscriber.uuid)).toBeNull();

    // A second subscriber in grace is refunded: the level goes at once.
    const other = await signUp();
    const tx2 = { ...tx, originalTransactionId: uniq("orig"), appAccountToken: other.uuid };
    await notify("SUBSCRIBED", tx2, { subtype: "INITIAL_BUY" });
    await notify("DID_FAIL_TO_RENEW", tx2, {
      subtype: "GRACE_PERIOD",
      renewal: { gracePeriodExpiresDate: graceEnd },
    });
    expect(await levelOf(other.uuid)).toBe("vip");
    await notify("REFUND", { ...tx2, revocationDate: Date.now() });
    expect(await levelOf(other.uuid)).toBeNull();
    // Without a grace end in the renewal info, a failed renewal past its period grants nothing.
    const third = await signUp();
    const tx3 = { ...tx, originalTransactionId: uniq("orig"), appAccountToken: third.uuid };
    await notify("DID_FAIL_TO_RENEW", tx3, { subtype: "GRACE_PERIOD" });
    expect(await levelOf(third.uuid)).toBeNull();
  });

  it("after EXPIRED, a DID_RENEW not later than the recorded expiry changes nothing; a later one renews; an older EXPIRED cannot undo it", async () => {
    const subscriber = await signUp();
    const id = `com.hangout.${uniq("plan")}`;
    await makeProduct(boss.token, { id, paymentType: "recurring", subscriptionLevel: "vip" });
    const original = uniq("orig");
    const first = {
      transactionId: uniq("t"),
      originalTransactionId: original,
      productId: id,
      originalPurchaseDate: Date.now() - 20 * 86_400_000,
      purchaseDate: Date.now() - 20 * 86_400_000,
      expiresDate: Date.now() + 10 * 86_400_000,
      appAccountToken: subscriber.uuid,
    };
    await notify("SUBSCRIBED", first, { subtype: "INITIAL_BUY" });
    await notify("EXPIRED", first, { subtype: "VOLUNTARY" });
    expect(await levelOf(subscriber.uuid)).toBeNull();

    // Renewals delivered late or replayed: about this period, or an earlier one.
    await notify("DID_RENEW", { ...first, transactionId: uniq("late") });
    await notify("DID_RENEW", {
      ...first,
      transactionId: uniq("older"),
      expiresDate: first.expiresDate - 30 * 86_400_000,
    });
    expect(await levelOf(subscriber.uuid)).toBeNull();
    const mine = await pay("/subscription", { token: subscriber.token });
    expect(mine.body.data[0]).toMatchObject({ status: "expired", running: false });

    // A real renewal: a later expiresDate.
    const next = {
      ...first,
      transactionId: uniq("next"),
      purchaseDate: Date.now(),
      expiresDate: first.expiresDate + 30 * 86_400_000,
    };
    await notify("DID_RENEW", next);
    expect(await levelOf(subscriber.uuid)).toBe("vip");
    const row = await db(env)
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.externalId, original))
      .get();
    expect(row).toMatchObject({ status: "active", endDate: next.expiresDate });
    // The EXPIRED of the earlier period, delivered again, is older than what we know.
    await notify("EXPIRED", first, { subtype: "VOLUNTARY" });
    expect(await levelOf(subscriber.uuid)).toBe("vip");

    // A refund revokes the current transaction: no level, and no replay revives it.
    await notify("REFUND", { ...next, revocationDate: Date.now() });
    expect(await levelOf(subscriber.uuid)).toBeNull();
    await notify("DID_RENEW", next);
    expect(await levelOf(subscriber.uuid)).toBeNull();
  });

  it("a forged payload, a rogue chain or a forged transaction is 400 and changes nothing", async () => {
    const buyer = await signUp();
    const id = `com.hangout.${uniq("tokens")}`;
    await makeProduct(boss.token, { id });
    await makeBundle(id, 50);
    const tx = {
      transactionId: uniq("t"),
      originalTransactionId: uniq("o"),
      productId: id,
      appAccountToken: buyer.uuid,
    };
    const events = await countRows("payment_events");
    for (const o of [{ rogue: true }, { rogueTx: true }]) {
      const r = await notify("ONE_TIME_CHARGE", tx, o);
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(MSG.appleBadPayload);
    }
    const forged = await appleJws(
      { notificationType: "ONE_TIME_CHARGE", notificationUUID: crypto.randomUUID() },
      { chain: trustedChain(), key: rogueKey() },
    );
    expect((await pay("/webhook/apple", { body: { signedPayload: forged } })).status).toBe(400);
    expect((await pay("/webhook/apple", { body: { signedPayload: "not.a.jws" } })).status).toBe(
      400,
    );
    expect((await pay("/webhook/apple", { body: {} })).status).toBe(400);
    expect((await pay("/webhook/apple", { body: "[]" })).status).toBe(400);
    expect(await balanceOf(buyer.uuid)).toBe(0);
    expect(await countRows("payment_events")).toBe(events);
  });

  it("a notification for an unknown user or product is acknowledged and changes nothing", async () => {
    const r = await notify("ONE_TIME_CHARGE", {
      transactionId: uniq("t"),
      originalTransactionId: uniq("o"),
      productId: "com.nothing",
      appAccountToken: crypto.randomUUID(),
    });
    expect(r.status).toBe(200);
    expect(r.body.outcome.handled).toBe(false);
  });

  // Apple's SignedDataVerifier checks: markers, app, environment, nested JWS. Each attack is
  // refused with a 4xx and leaves no trace: the genuine notification, sent afterwards with the
  // same notificationUUID, still credits exactly once.

  /** A buyer, a 900-token bundle, its ONE_TIME_CHARGE transaction and a notificationUUID. */
  const purchase = async () => {
    const buyer = await signUp();
    const id = `com.hangout.${uniq("tokens")}`;
    await makeProduct(boss.token, { id });
    await makeBundle(id, 900);
    const tx = {
      transactionId: uniq("t"),
      originalTransactionId: uniq("o"),
      productId: id,
      purchaseDate: Date.now(),
      appAccountToken: buyer.uuid,
    };
    return { buyer, tx, uuid: crypto.randomUUID(), events: await countRows("payment_events") };
  };
  const refused = async (
    sent: Promise<{ status: number; body: { message: unknown } }>,
    status: number,
    message: string,
  ) => {
    const r = await sent;
    expect(r.status).toBe(status);
    expect(r.body.message).toBe(message);
  };
  const genuineCreditsOnce = async (
    p: Awaited<ReturnType<typeof purchase>>,
    o: Parameters<typeof notify>[2] = {},
  ) => {
    expect(await balanceOf(p.buyer.uuid)).toBe(0);
    expect(await countRows("payment_events")).toBe(p.events);
    const first = await notify("ONE_TIME_CHARGE", p.tx, { uuid: p.uuid, ...o });
    expect(first.status).toBe(200);
    expect(first.body.duplicate).toBe(false);
    expect((await notify("ONE_TIME_CHARGE", p.tx, { uuid: p.uuid, ...o })).body.duplicate).toBe(
      true,
    );
    expect(await balanceOf(p.buyer.uuid)).toBe(900);
  };

  it("a notification whose leaf lacks Apple's App Store marker is 400 and credits nothing (envelope or transaction)", async () => {
    const p = await purchase();
    for (const o of [{ chain: noLeafOidChain() }, { txChain: noLeafOidChain() }])
      await refused(
        notify("ONE_TIME_CHARGE", p.tx, { uuid: p.uuid, ...o }),
        400,
        MSG.appleBadPayload,
      );
    await genuineCreditsOnce(p);
  });

  it("a notification whose intermediate lacks Apple's WWDR marker is 400 and credits nothing (envelope or transaction)", async () => {
    const p = await purchase();
    for (const o of [{ chain: noIntermediateOidChain() }, { txChain: noIntermediateOidChain() }])
      await refused(
        notify("ONE_TIME_CHARGE", p.tx, { uuid: p.uuid, ...o }),
        400,
        MSG.appleBadPayload,
      );
    await genuineCreditsOnce(p);
  });

  it("a Sandbox (or TestFlight) purchase is 400 when configured for Production and credits nothing", async () => {
    const p = await purchase();
    // As Apple sends it from Sandbox: no appAppleId, Sandbox in the envelope and the transaction.
    const sandbox = { environment: "Sandbox", appAppleId: undefined };
    await refused(
      notify("ONE_TIME_CHARGE", p.tx, { uuid: p.uuid, data: sandbox }),
      400,
      MSG.appleWrongEnvironment,
    );
    // A Production envelope around a Sandbox transaction.
    await refused(
      notify("ONE_TIME_CHARGE", { ...p.tx, environment: "Sandbox" }, { uuid: p.uuid }),
      400,
      MSG.appleWrongEnvironment,
    );
    await genuineCreditsOnce(p);
  });

  it("another app's notification (bundleId) is 400 and credits nothing (envelope or transaction)", async () => {
    const p = await purchase();
    await refused(
      notify(
        "ONE_TIME_CHARGE",
        { ...p.tx, bundleId: appleApp().bundleId },
        { uuid: p.uuid, data: { bundleId: "com.other.app" } },
      ),
      400,
      MSG.appleOtherApp,
    );
    await refused(
      notify("ONE_TIME_CHARGE", { ...p.tx, bundleId: "com.other.app" }, { uuid: p.uuid }),
      400,
      MSG.appleOtherApp,
    );
    await genuineCreditsOnce(p);
  });

  it("a wrong or missing appAppleId is 400 in Production and credits nothing", async () => {
    const p = await purchase();
    for (const appAppleId of [987654321, undefined])
      await refused(
        notify("ONE_TIME_CHARGE", p.tx, { uuid: p.uuid, data: { appAppleId } }),
        400,
        MSG.appleOtherApp,
      );
    await genuineCreditsOnce(p);
  });

  it("configured for Sandbox (no app id needed): Production data is 400; Sandbox data credits once", async () => {
    const p = await purchase();
    const over = { APPLE_ENVIRONMENT: "Sandbox", APPLE_APP_APPLE_ID: undefined };
    await refused(
      notify("ONE_TIME_CHARGE", p.tx, { uuid: p.uuid, over }),
      400,
      MSG.appleWrongEnvironment,
    );
    await genuineCreditsOnce(p, { over, data: { environment: "Sandbox", appAppleId: undefined } });
  });

  it("the nested renewal info is verified like the envelope: a missing marker or another environment is 400 and changes nothing", async () => {
    const subscriber = await signUp();
    const id = `com.hangout.${uniq("plan")}`;
    await makeProduct(boss.token, { id, paymentType: "recurring", subscriptionLevel: "vip" });
    const tx = {
      transactionId: uniq("t"),
      originalTransactionId: uniq("orig"),
      productId: id,
      expiresDate: Date.now() + 30 * 86_400_000,
      appAccountToken: subscriber.uuid,
    };
    const uuid = crypto.randomUUID();
    const renewal = { autoRenewStatus: 1, autoRenewProductId: id };
    for (const [o, message] of [
      [{ renewal, renewalChain: noLeafOidChain() }, MSG.appleBadPayload],
      [{ renewal, renewalChain: noIntermediateOidChain() }, MSG.appleBadPayload],
      [{ renewal: { ...renewal, environment: "Sandbox" } }, MSG.appleWrongEnvironment],
    ] as const)
      await refused(notify("SUBSCRIBED", tx, { uuid, subtype: "INITIAL_BUY", ...o }), 400, message);
    expect(await levelOf(subscriber.uuid)).toBeNull();
    const good = await notify("SUBSCRIBED", tx, { uuid, subtype: "INITIAL_BUY", renewal });
    expect(good.status).toBe(200);
    expect(await levelOf(subscriber.uuid)).toBe("vip");
  });

  it("an incomplete App Store configuration turns the webhook off (503) and changes nothing", async () => {
    const p = await purchase();
    for (const over of [
      { APPLE_APP_APPLE_ID: undefined }, // Production needs our app id
      { APPLE_APP_APPLE_ID: "not-a-number" },
      { APPLE_BUNDLE_ID: undefined },
      { APPLE_ENVIRONMENT: "sandbox" }, // Apple's values are "Production" and "Sandbox"
    ])
      await refused(
        notify("ONE_TIME_CHARGE", p.tx, { uuid: p.uuid, over }),
        503,
        MSG.appleNotConfigured,
      );
    await genuineCreditsOnce(p);
  });
});
