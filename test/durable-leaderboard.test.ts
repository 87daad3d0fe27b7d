import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEDUPE_WINDOW_MS, type Leaderboard } from "../durable/leaderboard";

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
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

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
    const [start, end] = [Date.now() - HOUR, Date.now() + HOUR];
    await env.Leaderboard.getByName(name).setWindow(start, end);
    await env.Leaderboard.getByName(name).addPoints("p1", "u", 3, start + 5);
    await abortAllDurableObjects();
    const stub = env.Leaderboard.getByName(name);
    expect(await stub.addPoints("p1", "u", 3, start + 5)).toEqual({
      applied: false,
      balance: 3,
      version: 1,
    });
    expect(await stub.window()).toEqual({ startDate: start, endDate: end });
    expect(await stub.addPoints("p2", "u", 1, end)).toMatchObject({
      applied: false,
      refused: "outsideWindow",
    });
    expect(await stub.rankOf("u")).toEqual({ userUuid: "u", balance: 3, rank: 1 });
  });

  it("a season board refuses events outside its window [start, end): an event at the end belongs to the next season", async () => {
    const stub = board();
    const [start, end] = [Date.now() - HOUR, Date.now() + HOUR];
    await stub.setWindow(start, end);
    expect(await stub.addPoints("before", "u", 1, start - 1)).toEqual({
      applied: false,
      balance: 0,
      version: 0,
      refused: "outsideWindow",
    });
    expect(await stub.addPoints("start", "u", 1, start)).toEqual({
      applied: true,
      balance: 1,
      version: 1,
    });
    expect(await stub.addPoints("last", "u", 1, end - 1)).toEqual({
      applied: true,
      balance: 2,
      version: 2,
    });
    expect(await stub.addPoints("end", "u", 1, end)).toEqual({
      applied: false,
      balance: 2,
      version: 2,
      refused: "outsideWindow",
    });
    // A refused event's id is not spent: it stays refused, it never turns into a duplicate.
    expect(await stub.addPoints("end", "u", 1, end)).toMatchObject({ refused: "outsideWindow" });
    expect(await failure(stub, (o) => o.setWindow(5, 5))).toMatch(/endDate after startDate/);
  });

  it("applies a batch in one call: duplicates inside and across batches count once, the answer has each user's final balance and version", async () => {
    const stub = board();
    const ev = (id: string, user: string, points: number) => ({
      eventId: id,
      userUuid: user,
      points,
      occurredAt: Date.now(),
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
      { eventId: "", userUuid: "y", points: 1, occurredAt: Date.now() },
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

describe("Leaderboard: frozen seasons, a bounded dedupe window, bounded pages", () => {
  const sqlOf =
    (stub: DurableObjectStub<Leaderboard>) =>
    (query: string, ...args: unknown[]) =>
      runInDurableObject(stub as DurableObjectStub, (_o, state) =>
        state.storage.sql.exec(query, ...args).toArray(),
      );

  it("a season board freezes at its end: an event from inside its window that arrives after the end changes nothing", async () => {
    const stub = board();
    const [start, end] = [Date.now() - 2 * HOUR, Date.now() - HOUR];
    await stub.setWindow(start, end);
    expect(await stub.addPoints("late", "u", 5, end - 1)).toEqual({
      applied: false,
      balance: 0,
      version: 0,
      refused: "ended",
    });
    expect(
      await stub.addPointsBatch([
        { eventId: "late-too", userUuid: "u", points: 1, occurredAt: start },
      ]),
    ).toMatchObject({ applied: 0, refused: [{ eventId: "late-too", reason: "ended" }] });
    expect(await stub.rankOf("u")).toBeNull();
    expect(await stub.count()).toBe(0);
  });

  it("remembers ids for the dedupe window: a replay inside it counts once, an older event is refused, and ids past it are pruned a few per write", async () => {
    const stub = board();
    const sql = sqlOf(stub);
    const now = Date.now();
    const recent = now - 29 * DAY; // inside the 30-day window
    expect(await stub.addPoints("recent", "u", 5, recent)).toMatchObject({
      applied: true,
      balance: 5,
    });
    expect(await stub.addPoints("recent", "u", 5, recent)).toMatchObject({
      applied: false,
      balance: 5,
    });
    // Older than the window: refused, so it can never need an id the board has forgotten.
    expect(await stub.addPoints("ancient", "u", 7, now - DEDUPE_WINDOW_MS - HOUR)).toEqual({
      applied: false,
      balance: 5,
      version: 1,
      refused: "expired",
    });
    // 250 ids of events 40 days old, as weeks of traffic leave them.
    await sql(
      `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 249)
       INSERT INTO applied_events (event_id, user_uuid, points, applied_at, occurred_at)
       SELECT 'old-' || i, 'old', 1, ?1 + i, ?1 + i FROM s`,
      now - 40 * DAY,
    );
    const oldIds = async () =>
      (await sql(`SELECT event_id FROM applied_events WHERE event_id LIKE 'old-%'`)).length;
    // One write prunes at most 100 old ids, the oldest first: never the whole backlog at once.
    await stub.addPoints("w1", "u", 1);
    expect(await oldIds()).toBe(150);
    expect(await sql(`SELECT MIN(occurred_at) AS t FROM applied_events`)).toEqual([
      { t: now - 40 * DAY + 100 },
    ]);
    await stub.addPointsBatch([{ eventId: "w2", userUuid: "u", points: 1, occurredAt: now }]);
    await stub.addPoints("w3", "u", 1);
    expect(await oldIds()).toBe(0);
    // The ids inside the window stay, still refusing their replays; a forgotten id's event
    // is refused for its age, so it cannot count twice.
    expect(await stub.addPoints("recent", "u", 5, recent)).toMatchObject({
      applied: false,
      balance: 8,
    });
    expect(await stub.addPoints("old-0", "old", 1, now - 40 * DAY)).toMatchObject({
      refused: "expired",
    });
    expect(await stub.rankOf("old")).toBeNull();
    expect(
      (await sql(`SELECT event_id FROM applied_events ORDER BY event_id`)).map((r) => r.event_id),
    ).toEqual(["recent", "w1", "w2", "w3"]);
  });

  it("a board made before ids carried their event's time keeps them, dated by when they were applied", async () => {
    const name = crypto.randomUUID();
    const now = Date.now();
    await env.Leaderboard.getByName(name).addPoints("kept", "u", 2, now - DAY);
    // Back to the old shape: no occurred_at; one id from a day ago, one from 40 days ago.
    const old = sqlOf(env.Leaderboard.getByName(name));
    await old(`DROP INDEX applied_events_by_age`);
    await old(`ALTER TABLE applied_events DROP COLUMN occurred_at`);
    await old(`UPDATE applied_events SET applied_at = ?`, now - DAY);
    await old(
      `INSERT INTO applied_events (event_id, user_uuid, points, applied_at) VALUES ('legacy', 'x', 1, ?)`,
      now - 40 * DAY,
    );
    await abortAllDurableObjects();
    const stub = env.Leaderboard.getByName(name);
    expect(await stub.addPoints("kept", "u", 2, now - DAY)).toMatchObject({
      applied: false,
      balance: 2,
    });
    // That write pruned the 40-day-old id and kept the recent one, with applied_at as its time.
    expect(await sqlOf(stub)(`SELECT event_id, occurred_at FROM applied_events`)).toEqual([
      { event_id: "kept", occurred_at: now - DAY },
    ]);
  });

  it("serves a page from memory until the next write, which it then shows; pages go at most 10,000 deep", async () => {
    const stub = board();
    await stub.addPoints("a", "ann", 5);
    await stub.addPoints("b", "bob", 3);
    const first = {
      rows: [
        { userUuid: "ann", balance: 5, rank: 1 },
        { userUuid: "bob", balance: 3, rank: 2 },
      ],
      total: 2,
    };
    expect(await stub.page(2, 0)).toEqual(first);
    // A storm of reads of one page between two writes costs one query: the same answer.
    expect(
      await runInDurableObject(stub as DurableObjectStub, (o) => {
        const b = o as unknown as Leaderboard;
        return b.page(2, 0) === b.page(2, 0);
      }),
    ).toBe(true);
    await stub.addPoints("c", "bob", 4);
    expect(await stub.page(2, 0)).toEqual({
      rows: [
        { userUuid: "bob", balance: 7, rank: 1 },
        { userUuid: "ann", balance: 5, rank: 2 },
      ],
      total: 2,
    });
    await stub.addPointsBatch([
      { eventId: "d", userUuid: "cy", points: 9, occurredAt: Date.now() },
    ]);
    expect((await stub.page(2, 0)).rows[0]).toEqual({ userUuid: "cy", balance: 9, rank: 1 });
    expect(await stub.page(1, 10_000)).toEqual({ rows: [], total: 3 });
    expect(await failure(stub, (o) => o.page(1, 10_001))).toMatch(/skip/);
    expect(await failure(stub, (o) => o.top(1, 10_001))).toMatch(/skip/);
  });
});
