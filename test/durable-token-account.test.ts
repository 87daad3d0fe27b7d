import {
  abortAllDurableObjects,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TokenAccount } from "../durable/token-account";

/**
 * The message a call fails with, run inside the object. Refusals are checked this way, not
 * through the stub: in this pool every rejecting RPC also leaks an unhandled rejection,
 * even when the test handles it (cloudflare/workers-sdk#14736); runInDurableObject does not.
 */
async function failure(
  stub: DurableObjectStub<TokenAccount>,
  call: (o: TokenAccount) => unknown,
): Promise<string> {
  // The casts: test/env.d.ts widens Cloudflare.Env, so our classes miss the helper's constraint.
  return runInDurableObject(stub as DurableObjectStub, (o) => {
    try {
      call(o as unknown as TokenAccount);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error("expected the call to fail");
  });
}

const account = () => env.TokenAccount.getByName(crypto.randomUUID());

describe("TokenAccount", { timeout: 30_000 }, () => {
  it("starts empty and active", async () => {
    const view = await account().getAccount();
    expect(view).toMatchObject({ balance: 0, status: "active" });
    expect(new Date(view.updatedAt).toISOString()).toBe(view.updatedAt);
  });

  it("credits 100 concurrent distinct keys to exactly their sum, each with its own transaction", async () => {
    const stub = account();
    const amounts = Array.from({ length: 100 }, (_, i) => i + 1);
    const results = await Promise.all(amounts.map((n) => stub.credit(n, `bundle-${n}`)));
    const total = amounts.reduce((s, n) => s + n, 0);
    expect((await stub.getAccount()).balance).toBe(total);
    expect(results.every((r) => !r.duplicate)).toBe(true);
    expect(new Set(results.map((r) => r.transactionId)).size).toBe(100);
    // Serialised: the balances after each credit are 100 distinct running totals ending at the sum.
    expect(Math.max(...results.map((r) => r.balance))).toBe(total);
    expect(new Set(results.map((r) => r.balance)).size).toBe(100);
    expect(new Set(results.map((r) => r.updatedAt)).size).toBe(100);
  });

  it("credits a key retried 20 times concurrently once, and every retry gets the first answer", async () => {
    const stub = account();
    await stub.credit(7, "earlier");
    const results = await Promise.all(Array.from({ length: 20 }, () => stub.credit(50, "order-1")));
    expect((await stub.getAccount()).balance).toBe(57);
    const first = results.filter((r) => !r.duplicate);
    expect(first).toHaveLength(1);
    for (const r of results) expect({ ...r, duplicate: false }).toEqual(first[0]);
    // And again later, after other credits: still the first answer, still no change.
    await stub.credit(1, "later");
    expect(await stub.credit(50, "order-1")).toEqual({ ...first[0], duplicate: true });
    expect((await stub.getAccount()).balance).toBe(58);
  });

  it("refuses a reused key with another amount, and bad amounts or keys, changing nothing", async () => {
    const stub = account();
    await stub.credit(10, "k");
    expect(await failure(stub, (o) => o.credit(11, "k"))).toMatch(/different amount/);
    for (const bad of [0, -5, 1.5, Number.NaN])
      expect(await failure(stub, (o) => o.credit(bad, `bad-${bad}`))).toMatch(/positive integer/);
    expect(await failure(stub, (o) => o.credit(1, ""))).toMatch(/Idempotency key/);
    expect((await stub.getAccount()).balance).toBe(10);
  });

  it("refuses credits while disabled but still answers retries of earlier credits", async () => {
    const stub = account();
    const first = await stub.credit(5, "before");
    expect((await stub.setStatus("disabled")).status).toBe("disabled");
    expect(await failure(stub, (o) => o.credit(5, "after"))).toMatch("Token account is disabled.");
    expect(await stub.credit(5, "before")).toEqual({ ...first, duplicate: true });
    expect(await stub.getAccount()).toEqual({
      balance: 5,
      heldBalance: 0,
      debt: 0,
      updatedAt: first.updatedAt,
      status: "disabled",
    });
    await stub.setStatus("active");
    expect((await stub.credit(5, "after")).balance).toBe(10);
  });

  it("keeps balance, ledger and keys in SQLite across a reset of every object", async () => {
    const name = crypto.randomUUID();
    const first = await env.TokenAccount.getByName(name).credit(30, "a");
    await env.TokenAccount.getByName(name).credit(12, "b");
    await abortAllDurableObjects();

    const stub = env.TokenAccount.getByName(name);
    expect((await stub.getAccount()).balance).toBe(42);
    expect(await stub.credit(30, "a")).toEqual({ ...first, duplicate: true });
    const ledger = await runInDurableObject(stub as DurableObjectStub, (_instance, state) =>
      state.storage.sql
        .exec<{ amount: number; idempotency_key: string }>(
          `SELECT amount, idempotency_key FROM ledger ORDER BY created_at`,
        )
        .toArray(),
    );
    expect(ledger).toEqual([
      { amount: 30, idempotency_key: "a" },
      { amount: 12, idempotency_key: "b" },
    ]);
  });

  it("lets exactly 300 of 1,000 concurrent holds through on a balance of 300; the rest are refused", async () => {
    const stub = account();
    await stub.credit(300, "funds");
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => stub.hold(1, `h-${i}`)),
    );
    const held = results.filter((r) => r.ok);
    expect(held).toHaveLength(300);
    expect(results.filter((r) => !r.ok && r.code === "insufficient_funds")).toHaveLength(700);
    // Every answer saw a balance of zero or more, and the 300 saw 299 down to 0, each once.
    expect(results.every((r) => r.balance >= 0)).toBe(true);
    expect(new Set(held.map((r) => r.balance)).size).toBe(300);
    expect(await stub.getAccount()).toMatchObject({ balance: 0, heldBalance: 300 });
    // Committing half and voiding half: 150 charged, 150 back.
    await Promise.all(
      held.map((h, i) =>
        i % 2
          ? stub.commit(h.ok ? h.holdId! : "", `c-${i}`)
          : stub.void(h.ok ? h.holdId! : "", `v-${i}`),
      ),
    );
    expect(await stub.getAccount()).toMatchObject({ balance: 150, heldBalance: 0 });
  });

  it("ends a hold once: concurrent commits and voids after an eviction agree on one ending", async () => {
    const name = crypto.randomUUID();
    await env.TokenAccount.getByName(name).credit(50, "funds");
    const hold = await env.TokenAccount.getByName(name).hold(20, "buy-1");
    if (!hold.ok) throw new Error("hold refused");
    await abortAllDurableObjects();

    const stub = env.TokenAccount.getByName(name);
    expect(await stub.getAccount()).toMatchObject({ balance: 30, heldBalance: 20 });
    const endings = await Promise.all([
      ...Array.from({ length: 10 }, () => stub.commit(hold.holdId!, "commit-1")),
      ...Array.from({ length: 10 }, (_, i) => stub.void(hold.holdId!, `void-${i}`)),
    ]);
    const fresh = endings.filter((r) => r.ok && !r.duplicate);
    expect(fresh).toHaveLength(1);
    const committed = fresh[0].ok && fresh[0].type === "commit";
    // The losing kind is refused with the reason; the winning kind answers the first result.
    for (const r of endings) {
      if (r.ok) expect(r.transactionId).toBe(fresh[0].ok && fresh[0].transactionId);
      else expect(r.code).toBe(committed ? "hold_committed" : "hold_voided");
    }
    expect(await stub.getAccount()).toMatchObject({ balance: committed ? 30 : 50, heldBalance: 0 });
    // A retry of the hold itself reports where it stands, so a purchase does not deliver twice.
    const again = await stub.hold(20, "buy-1");
    expect(again).toMatchObject({
      ok: true,
      duplicate: true,
      holdStatus: committed ? "committed" : "voided",
    });
  });

  it("voids an expired hold in the alarm and frees its tokens; a late commit is refused", async () => {
    const stub = account();
    await stub.credit(10, "funds");
    const hold = await stub.hold(8, "slow-buyer");
    const keep = await stub.hold(1, "quick-buyer");
    if (!hold.ok || !keep.ok) throw new Error("hold refused");
    expect((await stub.getAccount()).balance).toBe(1);
    // The alarm before the expiry changes nothing.
    expect(await runDurableObjectAlarm(stub as unknown as DurableObjectStub)).toBe(true);
    expect(await stub.getAccount()).toMatchObject({ balance: 1, heldBalance: 9 });
    // Time passes for the slow hold only.
    await runInDurableObject(stub as unknown as DurableObjectStub, (_o, state) =>
      state.storage.sql.exec(
        `UPDATE ledger SET expires_at = ? WHERE id = ?`,
        Date.now() - 1,
        hold.holdId,
      ),
    );
    expect(await runDurableObjectAlarm(stub as unknown as DurableObjectStub)).toBe(true);
    expect(await stub.getAccount()).toMatchObject({ balance: 9, heldBalance: 1 });
    expect(await stub.commit(hold.holdId!, "late")).toMatchObject({
      ok: false,
      code: "hold_voided",
    });
    expect(await stub.commit(keep.holdId!, "in-time")).toMatchObject({ ok: true, balance: 9 });
    expect(await stub.getAccount()).toMatchObject({ balance: 9, heldBalance: 0 });
    const ledger = await stub.transactions(10, 0);
    expect(ledger.data.map((t) => t.type)).toEqual(["commit", "voided", "hold", "hold", "credit"]);
  });

  it("refuses holds on a disabled account and stale expectations, changing nothing", async () => {
    const stub = account();
    const credit = await stub.credit(10, "funds");
    expect(
      await stub.hold(1, "stale-time", {
        unmodifiedSince: new Date(Date.parse(credit.updatedAt) - 1).toISOString(),
      }),
    ).toMatchObject({ ok: false, code: "stale" });
    expect(await stub.hold(1, "stale-balance", { balance: 9 })).toMatchObject({
      ok: false,
      code: "stale",
    });
    expect(
      await stub.hold(1, "fresh", { unmodifiedSince: credit.updatedAt, balance: 10 }),
    ).toMatchObject({ ok: true, balance: 9 });
    await stub.setStatus("disabled");
    expect(await stub.hold(1, "while-disabled")).toMatchObject({ ok: false, code: "disabled" });
    expect(await stub.getAccount()).toMatchObject({
      balance: 9,
      heldBalance: 1,
      status: "disabled",
    });
  });
});
