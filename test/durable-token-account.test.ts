import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TokenAccount } from "../durable/token-account";

/**
 * The message a call fails with, run inside the object. Refusals are checked this way, not
 * through the stub: in this pool every rejecting RPC also leaks an unhandled rejection,
 * even when the test handles it (cloudflare/workers-sdk#14736); runInDurableObject does not.
 */
async function failure(stub: DurableObjectStub<TokenAccount>, call: (o: TokenAccount) => unknown): Promise<string> {
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

describe("TokenAccount", () => {
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
    for (const bad of [0, -5, 1.5, Number.NaN]) expect(await failure(stub, (o) => o.credit(bad, `bad-${bad}`))).toMatch(/positive integer/);
    expect(await failure(stub, (o) => o.credit(1, ""))).toMatch(/Idempotency key/);
    expect((await stub.getAccount()).balance).toBe(10);
  });

  it("refuses credits while disabled but still answers retries of earlier credits", async () => {
    const stub = account();
    const first = await stub.credit(5, "before");
    expect((await stub.setStatus("disabled")).status).toBe("disabled");
    expect(await failure(stub, (o) => o.credit(5, "after"))).toMatch("Token account is disabled.");
    expect(await stub.credit(5, "before")).toEqual({ ...first, duplicate: true });
    expect(await stub.getAccount()).toEqual({ balance: 5, updatedAt: first.updatedAt, status: "disabled" });
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
      state.storage.sql.exec<{ amount: number; idempotency_key: string }>(`SELECT amount, idempotency_key FROM ledger ORDER BY created_at`).toArray(),
    );
    expect(ledger).toEqual([
      { amount: 30, idempotency_key: "a" },
      { amount: 12, idempotency_key: "b" },
    ]);
  });
});
