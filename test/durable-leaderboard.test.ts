import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Leaderboard } from "../durable/leaderboard";

/**
 * The message a call fails with, run inside the object. Refusals are checked this way, not
 * through the stub: in this pool every rejecting RPC also leaks an unhandled rejection,
 * even when the test handles it (cloudflare/workers-sdk#14736); runInDurableObject does not.
 */
async function failure(
  stub: DurableObjectStub<Leaderboard>,
  call: (o: Leaderboard) => unknown,
): Promise<string> {
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
  const rand = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
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
    const unique = Array.from({ length: 1500 }, (_, i) => ({
      eventId: `e${i}`,
      user: users[i % users.length],
      points: (i % 7) - 1,
    }));
    const events = shuffle([...unique, ...unique.slice(0, 500)], 42); // 2,000 deliveries
    const expected = new Map<string, number>();
    for (const e of unique) expected.set(e.user, (expected.get(e.user) ?? 0) + e.points);

    const results = await Promise.all(
      events.map((e) => stub.addPoints(e.eventId, e.user, e.points)),
    );
    expect(results.filter((r) => r.applied)).toHaveLength(1500);

    const all = await stub.top(1000, 0);
    expect(all).toHaveLength(users.length);
    expect(new Map(all.map((r) => [r.userUuid, r.balance]))).toEqual(expected);
  });

  it("answers a repeated event with applied: false and the unchanged balance", async () => {
    const stub = board();
    expect(await stub.addPoints("ev", "u", 5)).toEqual({ applied: true, balance: 5, version: 1 });
    expect(await stub.addPoints("ev", "u", 5)).toEqual({ applied: false, balance: 5, version: 1 });
    // A reused id is a returned refusal (a consumer acks it), and changes nobody.
    expect(await stub.addPoints("ev", "someone-else", 5)).toEqual({
      applied: false,
      balance: 0,
      version: 0,
      refused: "idReused",
    });
    expect(await stub.addPoints("ev", "u", 6)).toEqual({
      applied: false,
      balance: 5,
      version: 1,
      refused: "idReused",
    });
    expect(await stub.rankOf("someone-else")).toBeNull();
    expect(await failure(stub, (o) => o.addPoints("x", "u", 1.5))).toMatch(/integer/);
    expect(await stub.rankOf("u")).toEqual({ userUuid: "u", balance: 5, rank: 1 });
  });

  it("orders ties by user uuid and ranks them equally (1 + users with strictly more)", async () => {
    const stub = board();
    const balances: Record<string, number> = {
      dora: 50,
      carl: 50,
      bea: 80,
      abe: 10,
      eve: 50,
      fay: 10,
    };
    // Inserted in an order unlike the expected one, so the order cannot come from insertion.
    for (const [user, points] of Object.entries(balances))
      await stub.addPoints(`seed-${user}`, user, points);
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
    const events = Array.from({ length: 300 }, (_, i) => ({
      id: `r${i}`,
      user: `u${(i * 7919) % 60}`,
      points: (i * 31) % 11,
    }));
    await Promise.all(events.map((e) => stub.addPoints(e.id, e.user, e.points)));
    const all = await stub.top(1000, 0);
    for (let i = 0; i < all.length; i++) {
      const above = all.filter((r) => r.balance > all[i].balance).length;
      expect(all[i].rank).toBe(above + 1);
      if (i > 0)
        expect(
          all[i - 1].balance > all[i].balance ||
            (all[i - 1].balance === all[i].balance && all[i - 1].userUuid < all[i].userUuid),
        ).toBe(true);
      expect(await stub.rankOf(all[i].userUuid)).toEqual(all[i]);
    }
  });

  it("keeps ranks exact when balances fall, through batches, duplicates and a reset (the per-balance counts stay in step)", async () => {
    const name = crypto.randomUUID();
    const stub = env.Leaderboard.getByName(name);
    // Corrections below zero, zeros, repeats of the same id: every kind of change a balance sees.
    const events = Array.from({ length: 400 }, (_, i) => ({
      eventId: `m${i % 350}`,
      userUuid: `u${(i * 13) % 40}`,
      points: ((i * 37) % 15) - 7,
      occurredAt: Date.now(),
    }));
    await stub.addPointsBatch(events.slice(0, 200));
    await Promise.all(
      events.slice(200).map((e) => stub.addPoints(e.eventId, e.userUuid, e.points, e.occurredAt)),
    );
    await abortAllDurableObjects();
    const again = env.Leaderboard.getByName(name);
    const all = await again.top(1000, 0);
    expect(all.length).toBe(40);
    for (const r of all) {
      expect(r.rank).toBe(1 + all.filter((o) => o.balance > r.balance).length);
      expect((await again.rankOf(r.userUuid))?.rank).toBe(r.rank);
    }
    const [counts, truth] = await runInDurableObject(again as DurableObjectStub, (_o, state) => [
      state.storage.sql.exec(`SELECT balance, n FROM balance_counts ORDER BY balance`).toArray(),
      state.storage.sql
        .exec(`SELECT balance, COUNT(*) AS n FROM points GROUP BY balance ORDER BY balance`)
        .toArray(),
    ]);
    expect(counts).toEqual(truth);
  });

  it("keeps points and applied events across a reset of every object", async () => {
    const name = crypto.randomUUID();
    await env.Leaderboard.getByName(name).setWindow(1000, 2000);
    await env.Leaderboard.getByName(name).addPoints("p1", "u", 3, 1500);
    await abortAllDurableObjects();
    const stub = env.Leaderboard.getByName(name);
    expect(await stub.addPoints("p1", "u", 3, 1500)).toEqual({
      applied: false,
      balance: 3,
      version: 1,
    });
    expect(await stub.window()).toEqual({ startDate: 1000, endDate: 2000 });
    expect(await stub.addPoints("p2", "u", 1, 2000)).toMatchObject({
      applied: false,
      refused: "outsideWindow",
    });
    expect(await stub.rankOf("u")).toEqual({ userUuid: "u", balance: 3, rank: 1 });
  });

  it("a season board refuses events outside its window [start, end): an event at the end belongs to the next season", async () => {
    const stub = board();
    await stub.setWindow(1000, 2000);
    expect(await stub.addPoints("before", "u", 1, 999)).toEqual({
      applied: false,
      balance: 0,
      version: 0,
      refused: "outsideWindow",
    });
    expect(await stub.addPoints("start", "u", 1, 1000)).toEqual({
      applied: true,
      balance: 1,
      version: 1,
    });
    expect(await stub.addPoints("last", "u", 1, 1999)).toEqual({
      applied: true,
      balance: 2,
      version: 2,
    });
    expect(await stub.addPoints("end", "u", 1, 2000)).toEqual({
      applied: false,
      balance: 2,
      version: 2,
      refused: "outsideWindow",
    });
    // A refused event's id is not spent: it stays refused, it never turns into a duplicate.
    expect(await stub.addPoints("end", "u", 1, 2000)).toMatchObject({ refused: "outsideWindow" });
    expect(await failure(stub, (o) => o.setWindow(5, 5))).toMatch(/endDate after startDate/);
  });

  it("applies a batch in one call: duplicates inside and across batches count once, the answer has each user's final balance and version", async () => {
    const stub = board();
    const ev = (id: string, user: string, points: number) => ({
      eventId: id,
      userUuid: user,
      points,
      occurredAt: 1,
    });
    // Counted before any event: from here the count is kept by the writes, not recounted.
    expect(await stub.count()).toBe(0);
    const first = await stub.addPointsBatch([
      ev("a", "x", 5),
      ev("b", "x", 2),
      ev("a", "x", 5),
      ev("c", "y", 1),
    ]);
    expect(first).toEqual({
      applied: 3,
      duplicates: 1,
      refused: [],
      standings: [
        { userUuid: "x", balance: 7, version: 2 },
        { userUuid: "y", balance: 1, version: 1 },
      ],
    });
    const second = await stub.addPointsBatch([
      ev("b", "x", 2),
      ev("d", "y", -3),
      { eventId: "", userUuid: "y", points: 1, occurredAt: 1 },
      ev("c", "z", 1),
    ]);
    expect(second.applied).toBe(1);
    expect(second.duplicates).toBe(1);
    expect(second.refused).toEqual([
      { eventId: "", reason: "invalid" },
      { eventId: "c", reason: "idReused" },
    ]);
    expect(second.standings).toEqual([
      { userUuid: "x", balance: 7, version: 2 },
      { userUuid: "y", balance: -2, version: 2 },
      { userUuid: "z", balance: 0, version: 0 },
    ]);
    expect(await stub.page(10, 0)).toEqual({
      rows: [
        { userUuid: "x", balance: 7, rank: 1 },
        { userUuid: "y", balance: -2, rank: 2 },
      ],
      total: 2,
    });
  });

  it("a closed board (its season deleted) forgets its points and refuses every later event", async () => {
    const stub = board();
    await stub.addPoints("a", "u", 4);
    await stub.close();
    expect(await stub.count()).toBe(0);
    expect(await stub.addPoints("b", "u", 1)).toMatchObject({ applied: false, refused: "closed" });
    expect(
      await stub.addPointsBatch([{ eventId: "c", userUuid: "u", points: 1, occurredAt: 1 }]),
    ).toEqual({
      applied: 0,
      duplicates: 0,
      refused: [{ eventId: "c", reason: "closed" }],
      standings: [],
    });
  });

  it("lists users at or above a threshold by uuid, a page at a time, and refuses the bench loader outside development", async () => {
    const stub = board();
    for (const [u, p] of [
      ["d", 10],
      ["a", 30],
      ["c", 5],
      ["b", 10],
    ] as const)
      await stub.addPoints(`t-${u}`, u, p);
    expect((await stub.usersAtOrAbove(10, 2)).map((s) => s.userUuid)).toEqual(["a", "b"]);
    expect((await stub.usersAtOrAbove(10, 2, "b")).map((s) => s.userUuid)).toEqual(["d"]);
    expect(await failure(stub, (o) => o.benchLoad(0, 10))).toMatch(/development only/);
  });
});
