import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";

/**
 * The TokenAccount's take-backs (durable/token-account-debt.ts) by RPC: exactly once under
 * concurrency, never below zero while holds race, kept across an eviction, and an object made
 * before refunds upgraded in place. The webhooks that call them: test/payment-refunds.test.ts.
 */

const objectOf = (accountId: string) => env.TokenAccount.getByName(accountId);

describe("TokenAccount take-backs", () => {
  const fresh = () => {
    const accountId = crypto.randomUUID();
    return { accountId, stub: objectOf(accountId) };
  };
  const take = (accountId: string, key: string, part = 1, whole = 1) => ({
    accountId,
    ref: "checkout:cs_1",
    key,
    part,
    whole,
  });

  it("20 concurrent take-backs with one key take once; unknown credits are refused, not thrown", async () => {
    const { accountId, stub } = fresh();
    await stub.credit(100, "checkout:cs_1");
    const results = await Promise.all(
      Array.from({ length: 20 }, () => stub.takeBack(take(accountId, "refund:ch_1:100"))),
    );
    expect(results.filter((r) => r.ok && !r.duplicate)).toHaveLength(1);
    expect(await stub.getAccount()).toMatchObject({ balance: 0, debt: 0 });
    const missing = await stub.takeBack({ ...take(accountId, "k"), ref: "checkout:none" });
    expect(missing).toMatchObject({ ok: false, code: "credit_not_found" });
  });

  it("take-backs racing holds never take held tokens nor leave a negative balance; a void pays the debt", async () => {
    const { accountId, stub } = fresh();
    await stub.credit(100, "checkout:cs_1");
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) ops.push(stub.hold(5, `hold-${i}`));
    ops.push(stub.takeBack(take(accountId, "refund:ch_1:50", 50, 100)));
    ops.push(stub.takeBack(take(accountId, "refund:ch_1:100", 100, 100)));
    await Promise.all(ops);
    const view = await stub.getAccount();
    expect(view.balance).toBe(0);
    // Whatever the order, what was held plus what became debt is what the refund could not take.
    expect(view.heldBalance).toBe(view.debt);
    const holds = await stub.transactions(100, 0, ["hold"]);
    for (const h of holds.data) await stub.void(h.id, `void-${h.id}`);
    expect(await stub.getAccount()).toMatchObject({ balance: 0, heldBalance: 0, debt: 0 });
  });

  it("an evicted account keeps its debt, its take-backs and the holds it refuses", async () => {
    const { accountId, stub } = fresh();
    await stub.credit(40, "checkout:cs_1");
    const h = await stub.hold(25, "spend");
    if (!h.ok) throw new Error("hold refused");
    await stub.commit(h.holdId!, "spend-commit");
    await stub.takeBack(take(accountId, "refund:ch_1:40"));
    await abortAllDurableObjects();
    const again = objectOf(accountId);
    expect(await again.getAccount()).toMatchObject({ balance: 0, debt: 25 });
    expect(await again.takeBack(take(accountId, "refund:ch_1:40"))).toMatchObject({
      duplicate: true,
      moved: 40,
    });
    expect(await again.hold(1, "after")).toMatchObject({ ok: false, code: "in_debt" });
    expect((await again.credit(30, "bundle-2")).balance).toBe(5);
    expect(await again.getAccount()).toMatchObject({ balance: 5, debt: 0 });
  });

  it("an account made before refunds keeps its ledger: the old table is rebuilt with the new types", async () => {
    const { accountId, stub } = fresh();
    await runInDurableObject(stub as unknown as DurableObjectStub, (_o, state) => {
      const sql = state.storage.sql;
      // The ledger and totals as they were: four types, no ref or debt columns.
      sql.exec(`DROP TABLE ledger`);
      sql.exec(`CREATE TABLE ledger (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL CHECK (type IN ('credit', 'hold', 'commit', 'voided')),
        amount INTEGER NOT NULL CHECK (amount > 0),
        idempotency_key TEXT NOT NULL UNIQUE,
        hold_id TEXT UNIQUE,
        hold_status TEXT CHECK (hold_status IN ('open', 'committed', 'voided')),
        expires_at INTEGER,
        memo TEXT,
        available_after INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      )`);
      sql.exec(
        `INSERT INTO ledger (id, type, amount, idempotency_key, available_after, created_at) VALUES ('old-1', 'credit', 12, 'checkout:cs_1', 12, 1)`,
      );
      sql.exec(`DROP TABLE account_meta`);
      sql.exec(`CREATE TABLE account_meta (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        balance INTEGER NOT NULL CHECK (balance >= 0),
        held INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0 AND held <= balance),
        updated_at INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'disabled'))
      )`);
      sql.exec(`INSERT INTO account_meta VALUES (1, 12, 0, 1, 'active')`);
    });
    // The next instance upgrades what it finds.
    await abortAllDurableObjects();
    const again = objectOf(accountId);
    expect(await again.getAccount()).toMatchObject({ balance: 12, debt: 0 });
    expect((await again.transactions()).data).toMatchObject([
      { id: "old-1", type: "credit", amount: 12, debt: 0 },
    ]);
    expect(await again.takeBack(take(accountId, "refund:ch_1:12"))).toMatchObject({
      ok: true,
      moved: 12,
    });
    expect((await again.transactions(10, 0, ["clawback"])).total).toBe(1);
  });
});
