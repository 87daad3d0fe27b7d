import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Leaderboard } from "../durable/leaderboard";

/**
 * The message a call fails with, run inside the object. Refusals are checked this way, not
 * through the stub: in this pool every rejecting RPC also leaks an unhandled rejection,
 * even when the test handles it (cloudflare/workers-sdk#14736); runInDurableObject does not.
 */
async function failure(stub: DurableObjectStub<Leaderboard>, call: (o: Leaderboard) => unknown): Promise<string> {
  // The casts: test/env.d.ts widens Cloudflare.Env, so our classes miss the helper's constraint.
  return runInDurableObject(stub as DurableObjectStub, (o) => {
    try {
      call(o as unknown as Leaderboard);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error("expected the call to fail");
  });
}

const board = () => env.Leaderboard.getByName(crypto.randomUUID());

/** A seeded shuffle, so a failure can be replayed. */
function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describe("Leaderboard", () => {
  it("sums 2,000 shuffled events with duplicates to exact totals, applying each event once", async () => {
    const stub = board();
    const users = Array.from({ length: 40 }, (_, i) => `user-${String(i).padStart(2, "0")}`);
    const unique = Array.from({ length: 1500 }, (_, i) => ({ eventId: `e${i}`, user: users[i % users.length], points: (i % 7) - 1 }));
    const events = shuffle([...unique, ...unique.slice(0, 500)], 42); // 2,000 deliveries
    const expected = new Map<string, number>();
    for (const e of unique) expected.set(e.user, (expected.get(e.user) ?? 0) + e.points);

    const results = await Promise.all(events.map((e) => stub.addPoints(e.eventId, e.user, e.points)));
    expect(results.filter((r) => r.applied)).toHaveLength(1500);

    const all = await stub.top(1000, 0);
    expect(all).toHaveLength(users.length);
    expect(new Map(all.map((r) => [r.userUuid, r.balance]))).toEqual(expected);
  });

  it("answers a repeated event with applied: false and the unchanged balance", async () => {
    const stub = board();
    expect(await stub.addPoints("ev", "u", 5)).toEqual({ applied: true, balance: 5 });
    expect(await stub.addPoints("ev", "u", 5)).toEqual({ applied: false, balance: 5 });
    expect(await failure(stub, (o) => o.addPoints("ev", "someone-else", 5))).toMatch(/already used/);
    expect(await failure(stub, (o) => o.addPoints("x", "u", 1.5))).toMatch(/integer/);
    expect(await stub.rankOf("u")).toEqual({ userUuid: "u", balance: 5, rank: 1 });
  });

  it("orders ties by user uuid and ranks them equally (1 + users with strictly more)", async () => {
    const stub = board();
    const balances: Record<string, number> = { dora: 50, carl: 50, bea: 80, abe: 10, eve: 50, fay: 10 };
    // Inserted in an order unlike the expected one, so the order cannot come from insertion.
    for (const [user, points] of Object.entries(balances)) await stub.addPoints(`seed-${user}`, user, points);
    const expected = [
      { userUuid: "bea", balance: 80, rank: 1 },
      { userUuid: "carl", balance: 50, rank: 2 },
      { userUuid: "dora", balance: 50, rank: 2 },
      { userUuid: "eve", balance: 50, rank: 2 },
      { userUuid: "abe", balance: 10, rank: 5 },
      { userUuid: "fay", balance: 10, rank: 5 },
    ];
    expect(await stub.top(10, 0)).toEqual(expected);
    // Pages agree with the whole list, including a page that starts inside a tie.
    for (let skip = 0; skip < expected.length; skip++) {
      expect(await stub.top(2, skip)).toEqual(expected.slice(skip, skip + 2));
    }
    for (const row of expected) expect(await stub.rankOf(row.userUuid)).toEqual(row);
    expect(await stub.rankOf("nobody")).toBeNull();
    expect(await stub.top(0, 0)).toEqual([]);
    expect(await failure(stub, (o) => o.top(-1, 0))).toMatch(/take/);
  });

  it("matches rankOf with the position in top for every user after random points", async () => {
    const stub = board();
    const events = Array.from({ length: 300 }, (_, i) => ({ id: `r${i}`, user: `u${(i * 7919) % 60}`, points: (i * 31) % 11 }));
    await Promise.all(events.map((e) => stub.addPoints(e.id, e.user, e.points)));
    const all = await stub.top(1000, 0);
    for (let i = 0; i < all.length; i++) {
      const above = all.filter((r) => r.balance > all[i].balance).length;
      expect(all[i].rank).toBe(above + 1);
      if (i > 0) expect(all[i - 1].balance > all[i].balance || (all[i - 1].balance === all[i].balance && all[i - 1].userUuid < all[i].userUuid)).toBe(true);
      expect(await stub.rankOf(all[i].userUuid)).toEqual(all[i]);
    }
  });

  it("keeps points and applied events across a reset of every object", async () => {
    const name = crypto.randomUUID();
    await env.Leaderboard.getByName(name).addPoints("p1", "u", 3);
    await abortAllDurableObjects();
    const stub = env.Leaderboard.getByName(name);
    expect(await stub.addPoints("p1", "u", 3)).toEqual({ applied: false, balance: 3 });
    expect(await stub.rankOf("u")).toEqual({ userUuid: "u", balance: 3, rank: 1 });
  });
});
