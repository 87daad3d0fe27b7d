import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { merchService } from "../workers/merch-service";
import { MSG as STORE_MSG } from "../workers/merch-service/messages";
import { countRows, guestToken, signUp } from "./helpers";
import { balanceOf, grant, merch, storeAdmin, tokenAccount } from "./token-helpers";

const SERVICE = { "X-Service-Key": "test-service-key" };

describe("token accounts", { timeout: 30_000 }, () => {
  it("makes one account per user: 201 first, 200 after, also under concurrent calls", async () => {
    const a = await signUp();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => merch("/token-accounts", { method: "POST", token: a.token })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results[0].body).toMatchObject({
      userUuid: a.uuid,
      balance: 0,
      heldBalance: 0,
      status: "active",
    });
    const self = await merch("/token-accounts/self", { token: a.token });
    expect(self.status).toBe(200);
    expect(self.body.id).toBe(results[0].body.id);
  });

  it("answers the spec's message when the caller has no account, and 401 without a token", async () => {
    const a = await signUp();
    expect(await merch("/token-accounts/self", { token: a.token })).toMatchObject({
      status: 404,
      body: { message: STORE_MSG.accountNotFound },
    });
    expect((await merch("/token-accounts/self")).status).toBe(401);
    expect((await merch("/token-accounts", { method: "POST" })).status).toBe(401);
    expect(
      (await merch("/token-accounts", { method: "POST", token: await guestToken() })).status,
    ).toBe(403);
  });

  it("shows an account to its owner and admins only", async () => {
    const owner = await signUp();
    const acc = await tokenAccount(owner);
    await grant(acc.id, 25);
    expect(await merch(`/token-accounts/${acc.id}`, { token: owner.token })).toMatchObject({
      status: 200,
      body: { id: acc.id, balance: 25 },
    });
    expect(
      (await merch(`/token-accounts/${acc.id}`, { token: (await storeAdmin()).token })).body
        .balance,
    ).toBe(25);
    expect(
      await merch(`/token-accounts/${acc.id}`, { token: (await signUp()).token }),
    ).toMatchObject({ status: 403, body: { message: STORE_MSG.notYourAccount } });
    expect(
      await merch(`/token-accounts/${crypto.randomUUID()}`, { token: owner.token }),
    ).toMatchObject({ status: 404, body: { message: STORE_MSG.accountNotFound } });
    expect((await merch(`/token-accounts/not-a-uuid`, { token: owner.token })).status).toBe(400);
  });

  it("pages the ledger newest first, for the owner", async () => {
    const owner = await signUp();
    const acc = await tokenAccount(owner);
    for (const n of [1, 2, 3]) await grant(acc.id, n);
    const page = await merch(`/token-accounts/${acc.id}/transactions?limit=2&offset=0`, {
      token: owner.token,
    });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.body.data.map((t: { amount: number; type: string }) => [t.type, t.amount])).toEqual(
      [
        ["credit", 3],
        ["credit", 2],
      ],
    );
    expect(
      (await merch(`/token-accounts/${acc.id}/transactions?limit=500`, { token: owner.token }))
        .status,
    ).toBe(400);
    expect(
      (await merch(`/token-accounts/${acc.id}/transactions`, { token: (await signUp()).token }))
        .status,
    ).toBe(403);
  });

  it("lets only admins disable and enable an account; a disabled one refuses grants and holds", async () => {
    const owner = await signUp();
    const acc = await tokenAccount(owner);
    const path = `/token-accounts/${acc.id}/status`;
    expect((await merch(path, { method: "PATCH", body: { status: "disabled" } })).status).toBe(401);
    expect(
      (await merch(path, { method: "PATCH", token: owner.token, body: { status: "disabled" } }))
        .status,
    ).toBe(403);
    const adminToken = (await storeAdmin()).token;
    expect(
      (await merch(path, { method: "PATCH", token: adminToken, body: { status: "closed" } }))
        .status,
    ).toBe(400);
    expect(
      await merch(path, { method: "PATCH", token: adminToken, body: { status: "disabled" } }),
    ).toMatchObject({ status: 200, body: { status: "disabled" } });
    expect(
      await merch(`/token-accounts/${acc.id}/grant`, { token: adminToken, body: { amount: 5 } }),
    ).toMatchObject({ status: 403, body: { message: STORE_MSG.accountDisabled } });
    expect(
      (await merch(path, { method: "PATCH", token: adminToken, body: { status: "active" } })).body
        .status,
    ).toBe("active");
    expect((await grant(acc.id, 5)).balance).toBe(5);
  });

  it("grants only for admins, once per key, and never in production", async () => {
    const owner = await signUp();
    const acc = await tokenAccount(owner);
    const path = `/token-accounts/${acc.id}/grant`;
    const adminToken = (await storeAdmin()).token;
    expect((await merch(path, { body: { amount: 5 } })).status).toBe(401);
    expect((await merch(path, { token: owner.token, body: { amount: 5 } })).status).toBe(403);
    for (const amount of [0, -1, 1.5, "5"])
      expect((await merch(path, { token: adminToken, body: { amount } })).status).toBe(400);
    const first = await merch(path, {
      token: adminToken,
      body: { amount: 9, idempotencyKey: "g1" },
    });
    const again = await merch(path, {
      token: adminToken,
      body: { amount: 9, idempotencyKey: "g1" },
    });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect((await balanceOf(acc.id)).balance).toBe(9);

    // The same app with ENVIRONMENT=production (what wrangler.toml deploys) refuses.
    const res = await merchService.request(
      `/api/v1${path}`,
      {
        method: "POST",
        headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
        body: JSON.stringify({ amount: 5 }),
      },
      { ...env, ENVIRONMENT: "production" },
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toBe(STORE_MSG.grantRefused);
    expect((await balanceOf(acc.id)).balance).toBe(9);
  });
});

describe("POST /api/v1/token-transactions/commit and /void", { timeout: 30_000 }, () => {
  async function heldAccount() {
    const owner = await signUp();
    const acc = await tokenAccount(owner);
    await grant(acc.id, 100);
    const hold = await env.TokenAccount.getByName(acc.id).hold(40, `test:${crypto.randomUUID()}`);
    if (!hold.ok) throw new Error("hold refused");
    return { owner, accountId: acc.id, holdId: hold.holdId! };
  }

  it("commits the owner's own hold once, and refuses a void after it", async () => {
    const { owner, accountId, holdId } = await heldAccount();
    const body = { accountId, holdId, idempotencyKey: "k1" };
    const first = await merch("/token-transactions/commit", { token: owner.token, body });
    expect(first).toMatchObject({
      status: 201,
      body: { ok: true, type: "commit", amount: 40, balance: 60 },
    });
    const retry = await merch("/token-transactions/commit", { token: owner.token, body });
    expect(retry).toMatchObject({
      status: 200,
      body: { transactionId: first.body.transactionId, duplicate: true },
    });
    expect(
      (
        await merch("/token-transactions/void", {
          token: owner.token,
          body: { ...body, idempotencyKey: "k2" },
        })
      ).status,
    ).toBe(409);
    expect(await balanceOf(accountId)).toMatchObject({ balance: 60, heldBalance: 0 });
  });

  it("lets a service void any account's hold with X-Service-Key, and nobody else's token", async () => {
    const { accountId, holdId } = await heldAccount();
    const body = { accountId, holdId, idempotencyKey: "v1" };
    expect((await merch("/token-transactions/void", { body })).status).toBe(401);
    expect(
      (await merch("/token-transactions/void", { headers: { "X-Service-Key": "wrong" }, body }))
        .status,
    ).toBe(401);
    expect(
      (await merch("/token-transactions/void", { token: (await signUp()).token, body })).status,
    ).toBe(403);
    expect(await balanceOf(accountId)).toMatchObject({ balance: 60, heldBalance: 40 });
    expect(await merch("/token-transactions/void", { headers: SERVICE, body })).toMatchObject({
      status: 201,
      body: { type: "voided", balance: 100 },
    });
    expect(await balanceOf(accountId)).toMatchObject({ balance: 100, heldBalance: 0 });
  });

  it("answers 404 for an unknown hold or account and 400 for bad input, changing nothing", async () => {
    const { owner, accountId, holdId } = await heldAccount();
    expect(
      await merch("/token-transactions/commit", {
        token: owner.token,
        body: { accountId, holdId: crypto.randomUUID(), idempotencyKey: "x" },
      }),
    ).toMatchObject({ status: 404, body: { message: STORE_MSG.holdNotFound } });
    expect(
      await merch("/token-transactions/commit", {
        headers: SERVICE,
        body: { accountId: crypto.randomUUID(), holdId, idempotencyKey: "x" },
      }),
    ).toMatchObject({ status: 404, body: { message: STORE_MSG.accountNotFound } });
    for (const bad of [
      {},
      { accountId, holdId },
      { accountId, holdId: "h", idempotencyKey: "x" },
      { accountId, holdId, idempotencyKey: "" },
      { accountId, holdId, idempotencyKey: "x".repeat(101) },
    ]) {
      expect(
        (await merch("/token-transactions/commit", { token: owner.token, body: bad })).status,
      ).toBe(400);
    }
    expect(await balanceOf(accountId)).toMatchObject({ balance: 60, heldBalance: 40 });
    expect(await countRows("token_accounts")).toBeGreaterThan(0);
  });
});
