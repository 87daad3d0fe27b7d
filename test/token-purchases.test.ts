import {
  abortAllDurableObjects,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import type { ChatMessage } from "../shared/protocol";
import { db } from "../workers/db/client";
import { auditEvents, consumablePurchases } from "../workers/db/schema";
import { purchaseIdentity } from "../workers/merch-service/token-shop/consumable-purchases";
import { MSG as STORE_MSG } from "../workers/merch-service/messages";
import { countRows, signUp } from "./helpers";
import { account as roomAccount, connect } from "./room-helpers";
import {
  balanceOf,
  buy,
  buyerInRoom,
  grant,
  makeConsumable,
  merch,
  storeAdmin,
  tokenAccount,
} from "./token-helpers";

const consumableLines = (messages: ChatMessage[]) =>
  messages.filter((m) => m.type === "consumable");

/** Ledger rows of one type, read inside the account's object. */
const ledgerCount = (accountId: string, type: string) =>
  runInDurableObject(
    env.TokenAccount.getByName(accountId) as unknown as DurableObjectStub,
    (_o, state) =>
      state.storage.sql
        .exec<{ n: number }>(`SELECT count(*) AS n FROM ledger WHERE type = ?`, type)
        .one().n,
  );

describe("POST /api/v1/consumable-purchases", { timeout: 30_000 }, () => {
  it("charges the buyer and shows the consumable to everyone in the room", async () => {
    const b = await buyerInRoom(100);
    const other = await roomAccount();
    const watcher = await connect(b.roomUuid, other);
    const item = await makeConsumable({ tokenCost: 30, displayType: "small" });
    const before = await balanceOf(b.accountId);

    const res = await buy(b, item, {
      balanceUnmodifiedSince: before.updatedAt,
      lastTokenBalance: 100,
    });
    expect(res.status).toBe(201);
    expect(res.body.purchase).toMatchObject({
      status: "committed",
      tokenCost: 30,
      roomUuid: b.roomUuid,
      consumableId: item.id,
    });
    expect(res.body.account).toMatchObject({ id: b.accountId, balance: 70, heldBalance: 0 });
    expect(await balanceOf(b.accountId)).toMatchObject({ balance: 70, heldBalance: 0 });

    // The second socket sees it as a chat line of type consumable with the item's face.
    const state = await watcher.until(
      (s) => consumableLines(s.chat).length === 1,
      "consumable in chat",
    );
    expect(consumableLines(state.chat)[0]).toMatchObject({
      userUuid: b.uuid,
      consumable: {
        purchaseId: res.body.purchase.id,
        consumableId: item.id,
        name: item.name,
        displayType: "small",
        tokenCost: 30,
      },
    });
    await b.socket.until((s) => consumableLines(s.chat).length === 1, "buyer sees it too");

    // One audit event, topic purchase.
    await vi.waitFor(
      async () => {
        const rows = await db(env)
          .select()
          .from(auditEvents)
          .where(eq(auditEvents.eventId, `purchase:${res.body.purchase.id}:committed`))
          .all();
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ topic: "purchase", userUuid: b.uuid });
      },
      { timeout: 5000, interval: 50 },
    );
  });

  // The whole route (auth, D1, hold, room delivery, commit) 200 times at once, more than three
  // times what the balance covers: enough to interleave every step (a few seconds in this pool on
  // two cores, hence the long limit; 1,000 took 100 s and proved nothing more).
  it("lets exactly 60 of 200 concurrent purchases through on a balance of 60, and never overdraws", async () => {
    const b = await buyerInRoom(60);
    const item = await makeConsumable({ tokenCost: 1 });
    const results = await Promise.all(Array.from({ length: 200 }, () => buy(b, item)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(60);
    expect(statuses.filter((s) => s === 422)).toHaveLength(140);
    expect(results.find((r) => r.status === 422)!.body.message).toMatch(
      /Not enough tokens: this costs 1 and you have 0/,
    );
    expect(await balanceOf(b.accountId)).toMatchObject({ balance: 0, heldBalance: 0 });
    expect(await ledgerCount(b.accountId, "commit")).toBe(60);
    expect(await ledgerCount(b.accountId, "voided")).toBe(0);
    // No answer ever showed a negative balance.
    expect(results.filter((r) => r.status === 201).every((r) => r.body.account.balance >= 0)).toBe(
      true,
    );
  }, 420_000);

  it("charges once for a request retried with its Idempotency-Key, concurrently and later", async () => {
    const b = await buyerInRoom(100);
    const item = await makeConsumable({ tokenCost: 7 });
    const key = { "Idempotency-Key": crypto.randomUUID() };
    const burst = await Promise.all(Array.from({ length: 20 }, () => buy(b, item, {}, key)));
    expect(burst.every((r) => r.status === 201)).toBe(true);
    expect(new Set(burst.map((r) => r.body.purchase.id)).size).toBe(1);
    const later = await buy(b, item, {}, key);
    expect(later.status).toBe(201);
    expect(later.headers.get("Idempotent-Replayed")).toBe("true");
    expect(later.body.purchase.id).toBe(burst[0].body.purchase.id);
    expect((await balanceOf(b.accountId)).balance).toBe(93);
    expect(await ledgerCount(b.accountId, "commit")).toBe(1);
    const state = await b.socket.until((s) => consumableLines(s.chat).length >= 1, "delivered");
    expect(consumableLines(state.chat)).toHaveLength(1);

    // The same key for another purchase is refused and charges nothing.
    const other = await makeConsumable({ tokenCost: 7 });
    const reused = await buy(b, other, {}, key);
    expect(reused.status).toBe(409);
    expect(reused.body.message).toBe(STORE_MSG.keyReused);
    expect((await balanceOf(b.accountId)).balance).toBe(93);
  });

  it("derives the key from balanceUnmodifiedSince when no header is sent", async () => {
    const b = await buyerInRoom(50);
    const item = await makeConsumable({ tokenCost: 5 });
    const since = (await balanceOf(b.accountId)).updatedAt;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => buy(b, item, { balanceUnmodifiedSince: since })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect((await balanceOf(b.accountId)).balance).toBe(45);
    // A new purchase needs the new version: the old one is now stale only for a new key.
    const next = await buy(b, item, { balanceUnmodifiedSince: results[0].body.account.updatedAt });
    expect(next.status).toBe(201);
    expect((await balanceOf(b.accountId)).balance).toBe(40);
  });

  it("answers 409 for a stale balance or an outdated cost, and changes nothing", async () => {
    const b = await buyerInRoom(100);
    const item = await makeConsumable({ tokenCost: 10 });
    const view = await balanceOf(b.accountId);
    const rows = await countRows("consumable_purchases");
    const stale = await buy(b, item, {
      balanceUnmodifiedSince: new Date(Date.parse(view.updatedAt) - 1000).toISOString(),
    });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toBe(STORE_MSG.stale);
    const wrongBalance = await buy(b, item, { lastTokenBalance: 99 });
    expect(wrongBalance.status).toBe(409);
    const cost = await buy(b, item, { tokenCost: 9 });
    expect(cost.status).toBe(409);
    expect(cost.body.message).toBe(STORE_MSG.costChanged(10));
    expect(await balanceOf(b.accountId)).toMatchObject({
      balance: 100,
      heldBalance: 0,
      updatedAt: view.updatedAt,
    });
    expect(await countRows("consumable_purchases")).toBe(rows);
  });

  it("refuses too few tokens with 422 and a message naming the cost", async () => {
    const b = await buyerInRoom(5);
    const item = await makeConsumable({ tokenCost: 6 });
    const res = await buy(b, item);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe("Not enough tokens: this costs 6 and you have 5.");
    expect((await balanceOf(b.accountId)).balance).toBe(5);
  });

  it("voids the hold when the buyer is not in the room, and charges nothing", async () => {
    const b = await buyerInRoom(40);
    b.socket.close();
    const stranger = await roomAccount();
    const acc = await tokenAccount(stranger);
    await grant(acc.id, 40);
    const item = await makeConsumable({ tokenCost: 10 });
    // Someone never in the room: refused after the hold, which is voided.
    const res = await buy({ ...b, ...stranger, accountId: acc.id }, item);
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/need to be in the room/);
    expect(await balanceOf(acc.id)).toMatchObject({ balance: 40, heldBalance: 0 });
    expect(await ledgerCount(acc.id, "voided")).toBe(1);
    const row = await db(env)
      .select()
      .from(consumablePurchases)
      .where(eq(consumablePurchases.accountId, acc.id))
      .get();
    expect(row?.status).toBe("voided");
  });

  it("refuses someone else's account (403), unknown things (404) and a disabled account (403)", async () => {
    const b = await buyerInRoom(20);
    const item = await makeConsumable({ tokenCost: 1 });
    const thief = await signUp();
    const stolen = await merch("/consumable-purchases", {
      token: thief.token,
      body: { roomUuid: b.roomUuid, consumableId: item.id, accountId: b.accountId, tokenCost: 1 },
    });
    expect(stolen.status).toBe(403);
    expect((await buy(b, item, { accountId: crypto.randomUUID() })).body).toMatchObject({
      statusCode: 404,
      message: STORE_MSG.accountNotFound,
    });
    expect((await buy(b, { id: 999_999, tokenCost: 1 })).body).toMatchObject({
      statusCode: 404,
      message: STORE_MSG.consumableNotFound,
    });
    expect((await buy(b, item, { roomUuid: crypto.randomUUID() })).body).toMatchObject({
      statusCode: 404,
      message: STORE_MSG.roomNotFound,
    });

    const adminToken = (await storeAdmin()).token;
    expect(
      (
        await merch(`/token-accounts/${b.accountId}/status`, {
          method: "PATCH",
          token: adminToken,
          body: { status: "disabled" },
        })
      ).status,
    ).toBe(200);
    const disabled = await buy(b, item);
    expect(disabled.status).toBe(403);
    expect(disabled.body.message).toBe(STORE_MSG.accountDisabled);
    expect((await balanceOf(b.accountId)).balance).toBe(20);
    expect(await merch("/consumable-purchases", { body: {} })).toMatchObject({ status: 401 });
  });

  it("answers 400 to bad input and writes nothing", async () => {
    const b = await buyerInRoom(20);
    const item = await makeConsumable({ tokenCost: 2 });
    const rows = await countRows("consumable_purchases");
    for (const over of [
      { roomUuid: "nope" },
      { consumableId: "1" },
      { consumableId: 0 },
      { tokenCost: -1 },
      { tokenCost: 1.5 },
      { accountId: 5 },
      { balanceUnmodifiedSince: "yesterday" },
      { lastTokenBalance: -3 },
    ]) {
      const res = await buy(b, item, over);
      expect(res.status, JSON.stringify(over)).toBe(400);
    }
    expect((await buy(b, item, {}, { "Idempotency-Key": "x".repeat(201) })).status).toBe(400);
    const raw = await merch("/consumable-purchases", { token: b.token, body: "{not json" });
    expect(raw.status).toBe(400);
    expect(await countRows("consumable_purchases")).toBe(rows);
    expect((await balanceOf(b.accountId)).balance).toBe(20);
  });

  it("resumes a purchase whose request died after the hold, across an eviction, charging once", async () => {
    const b = await buyerInRoom(50);
    const item = await makeConsumable({ tokenCost: 20 });
    const key = crypto.randomUUID();
    const body = {
      roomUuid: b.roomUuid,
      consumableId: item.id,
      accountId: b.accountId,
      tokenCost: 20,
    };
    // What the first request did before it died: the hold, under the purchase's own key.
    const { id } = await purchaseIdentity(b.uuid, body, key);
    const hold = await env.TokenAccount.getByName(b.accountId).hold(20, `purchase:${id}`);
    expect(hold.ok).toBe(true);
    await abortAllDurableObjects();
    expect(await balanceOf(b.accountId)).toMatchObject({ balance: 30, heldBalance: 20 });

    // The retry finds the hold, delivers (the buyer is within the room's grace) and commits.
    const retry = await buy(b, item, {}, { "Idempotency-Key": key });
    expect(retry.status).toBe(201);
    expect(retry.body.purchase.id).toBe(id);
    expect(await balanceOf(b.accountId)).toMatchObject({ balance: 30, heldBalance: 0 });
    expect(await ledgerCount(b.accountId, "commit")).toBe(1);
    expect((await buy(b, item, {}, { "Idempotency-Key": key })).status).toBe(201);
    expect(await ledgerCount(b.accountId, "commit")).toBe(1);
  });

  it("does not deliver a purchase whose hold expired; its retry answers cancelled", async () => {
    const b = await buyerInRoom(50);
    const item = await makeConsumable({ tokenCost: 15 });
    const key = crypto.randomUUID();
    const { id } = await purchaseIdentity(
      b.uuid,
      { roomUuid: b.roomUuid, consumableId: item.id, accountId: b.accountId, tokenCost: 15 },
      key,
    );
    const stub = env.TokenAccount.getByName(b.accountId);
    await stub.hold(15, `purchase:${id}`);
    // Time passes: the hold is due, and the alarm voids it.
    await runInDurableObject(stub as unknown as DurableObjectStub, (_o, state) =>
      state.storage.sql.exec(
        `UPDATE ledger SET expires_at = ? WHERE type = 'hold'`,
        Date.now() - 1,
      ),
    );
    expect(await runDurableObjectAlarm(stub as unknown as DurableObjectStub)).toBe(true);
    expect(await balanceOf(b.accountId)).toMatchObject({ balance: 50, heldBalance: 0 });

    const retry = await buy(b, item, {}, { "Idempotency-Key": key });
    expect(retry.status).toBe(409);
    expect(retry.body.message).toBe(STORE_MSG.cancelled);
    expect((await balanceOf(b.accountId)).balance).toBe(50);
    expect(consumableLines((await b.socket.until(() => true)).chat)).toHaveLength(0);
  });
});
