import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Leaderboard, PointsEvent } from "../durable/leaderboard";
import { BUCKET_LEVELS, usersAboveSql } from "../durable/leaderboard-ranks";

/**
 * Ranks read from the bucketed counts (durable/leaderboard-ranks.ts) against the brute
 * force (1 + users with strictly more), on balances chosen to hit every edge of the
 * buckets: negative, zero, ties, bucket boundaries, and balances near the largest integers
 * a JS number holds exactly. Each check also compares the count tables with a recount from
 * `points`, so a write path that left them out of step fails here even where no rank shows it.
 */

type Stub = DurableObjectStub<Leaderboard>;
const inBoard = <T>(stub: Stub, fn: (o: Leaderboard, state: DurableObjectState) => T) =>
  // The casts: test/env.d.ts widens Cloudflare.Env, so our classes miss the helper's constraint.
  runInDurableObject(stub as DurableObjectStub, (o, state) =>
    fn(o as unknown as Leaderboard, state),
  );

/** A seeded generator, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const BIG = Number.MAX_SAFE_INTEGER; // 2^53 - 1

/** Points that land on the edges: zero, small, bucket boundaries of several levels, huge. */
function pointsFor(rand: () => number): number {
  const pick = rand();
  const sign = rand() < 0.5 ? -1 : 1;
  if (pick < 0.15) return 0;
  if (pick < 0.45) return sign * Math.floor(rand() * 6);
  if (pick < 0.7) return sign * 16 ** (1 + Math.floor(rand() * 4)) + Math.floor(rand() * 3) - 1;
  if (pick < 0.9) return sign * Math.floor(rand() * 2 ** 40);
  return sign * (2 ** 52 + Math.floor(rand() * 1000));
}

/**
 * Every user's rank from the board equals 1 + the users with more points, counted here from
 * the balances the test expects; and the count tables equal a recount from `points`.
 */
async function expectExactRanks(stub: Stub, expected: Map<string, number>) {
  const { ranks, counts, countsTruth, buckets, bucketsTruth } = await inBoard(stub, (o, state) => {
    const sql = state.storage.sql;
    const bucketsTruth = [];
    for (let level = 1; level <= BUCKET_LEVELS; level++)
      bucketsTruth.push(
        ...sql
          .exec(
            `SELECT ? AS level, balance >> ? AS bucket, COUNT(*) AS n FROM points GROUP BY 2 ORDER BY 2`,
            level,
            4 * level,
          )
          .toArray(),
      );
    return {
      ranks: [...expected.keys()].map((u) => o.rankOf(u)),
      counts: sql.exec(`SELECT balance, n FROM balance_counts ORDER BY balance`).toArray(),
      countsTruth: sql
        .exec(`SELECT balance, COUNT(*) AS n FROM points GROUP BY balance ORDER BY balance`)
        .toArray(),
      buckets: sql
        .exec(`SELECT level, bucket, n FROM balance_buckets ORDER BY level, bucket`)
        .toArray(),
      bucketsTruth,
    };
  });
  const all = [...expected.values()];
  const want = [...expected].map(([userUuid, balance]) => ({
    userUuid,
    balance,
    rank: 1 + all.filter((b) => b > balance).length,
  }));
  expect(ranks).toEqual(want);
  expect(counts).toEqual(countsTruth);
  expect(buckets).toEqual(bucketsTruth);
}

/** Applies events through both write paths (a batch, then one call each). */
async function apply(stub: Stub, events: PointsEvent[], expected: Map<string, number>) {
  const half = Math.floor(events.length / 2);
  await stub.addPointsBatch(events.slice(0, half));
  for (const e of events.slice(half))
    await stub.addPoints(e.eventId, e.userUuid, e.points, e.occurredAt);
  for (const e of events) expected.set(e.userUuid, (expected.get(e.userUuid) ?? 0) + e.points);
}

describe("Leaderboard ranks from bucketed counts", () => {
  it("equal the brute-force rank on random negative, zero, tied and huge balances, after moves across buckets and after an eviction", async () => {
    const name = crypto.randomUUID();
    let stub: Stub = env.Leaderboard.getByName(name);
    const rand = rng(12);
    const expected = new Map<string, number>();
    const now = Date.now();
    // 200 users, one event each: many ties (0 and small values), far-apart huge ones.
    const first = Array.from({ length: 200 }, (_, i) => ({
      eventId: `a${i}`,
      userUuid: `u${String(i).padStart(3, "0")}`,
      points: pointsFor(rand),
      occurredAt: now,
    }));
    // The extremes a balance can hold here, and their neighbours across a bucket edge.
    first.push(
      ...[BIG, -BIG, BIG - 1, -BIG + 1, 2 ** 52, -(2 ** 52), 15, 16, -16, -17, 0, -1].map(
        (points, i) => ({ eventId: `x${i}`, userUuid: `x${i}`, points, occurredAt: now }),
      ),
    );
    await apply(stub, first, expected);
    await expectExactRanks(stub, expected);

    // Moves: small steps, steps across one or several levels, sign flips, back to zero; the
    // huge users move by at most what keeps them safe integers.
    const moves: PointsEvent[] = [];
    for (let k = 0; k < 400; k++) {
      const user = `u${String(Math.floor(rand() * 200)).padStart(3, "0")}`;
      const balance = expected.get(user) ?? 0;
      const step = rand() < 0.2 ? -balance : pointsFor(rand);
      const points = Math.abs(balance + step) <= BIG ? step : -balance;
      moves.push({ eventId: `m${k}`, userUuid: user, points, occurredAt: now });
      expected.set(user, balance + points); // so the next move sees it
    }
    for (const m of moves) expected.set(m.userUuid, expected.get(m.userUuid)! - m.points);
    moves.push(
      { eventId: "mx0", userUuid: "x0", points: -BIG, occurredAt: now }, // top to 0
      { eventId: "mx1", userUuid: "x1", points: BIG, occurredAt: now }, // bottom to 0
      { eventId: "mx10", userUuid: "x10", points: BIG, occurredAt: now }, // 0 to the top
      { eventId: "mx6", userUuid: "x6", points: 1, occurredAt: now }, // 15 -> 16
      { eventId: "mx9", userUuid: "x9", points: 1, occurredAt: now }, // -17 -> -16
    );
    await apply(stub, moves, expected);
    await expectExactRanks(stub, expected);

    // A fresh start reads the stored counts (nothing is kept only in memory), and writes
    // after it keep them in step.
    await abortAllDurableObjects();
    stub = env.Leaderboard.getByName(name);
    await expectExactRanks(stub, expected);
    await apply(
      stub,
      Array.from({ length: 60 }, (_, k) => ({
        eventId: `after${k}`,
        userUuid: `u${String(k * 3).padStart(3, "0")}`,
        points: (k % 2 ? -1 : 1) * 16 ** (k % 5),
        occurredAt: now,
      })),
      expected,
    );
    await expectExactRanks(stub, expected);
  });

  it("fills the buckets of a board made before they existed, once, and empties them when the board closes", async () => {
    const name = crypto.randomUUID();
    const expected = new Map<string, number>();
    const rand = rng(7);
    await apply(
      env.Leaderboard.getByName(name),
      Array.from({ length: 120 }, (_, i) => ({
        eventId: `b${i}`,
        userUuid: `u${i % 90}`,
        points: pointsFor(rand),
        occurredAt: Date.now(),
      })),
      expected,
    );
    // Back to the shapes of older boards: no buckets (before this change), then no counts
    // at all (before per-balance counts).
    for (const drop of [["balance_buckets"], ["balance_buckets", "balance_counts"]]) {
      await inBoard(env.Leaderboard.getByName(name), (_o, state) => {
        for (const table of drop) state.storage.sql.exec(`DROP TABLE ${table}`);
      });
      await abortAllDurableObjects();
      await expectExactRanks(env.Leaderboard.getByName(name), expected);
      // A second start finds the tables and leaves them as they are (no double count).
      await abortAllDurableObjects();
      await expectExactRanks(env.Leaderboard.getByName(name), expected);
    }
    const stub = env.Leaderboard.getByName(name);
    await stub.close();
    expect(
      await inBoard(stub, (_o, state) => [
        state.storage.sql.exec(`SELECT COUNT(*) AS n FROM balance_counts`).one().n,
        state.storage.sql.exec(`SELECT COUNT(*) AS n FROM balance_buckets`).one().n,
      ]),
    ).toEqual([0, 0]);
  });

  it("reads at most 240 rows for a rank among 5,000 distinct balances, where a per-balance sum reads thousands", async () => {
    const stub = env.Leaderboard.getByName(crypto.randomUUID());
    const users = 5000;
    // Every user on a balance of their own, spread over negative and positive values.
    await stub.addPointsBatch(
      Array.from({ length: users }, (_, i) => ({
        eventId: `d${i}`,
        userUuid: `d${i}`,
        points: ((i * 7919) % 10007) * 37 - 185_000,
        occurredAt: Date.now(),
      })),
    );
    const read = await inBoard(stub, (o, state) => {
      const sql = state.storage.sql;
      const lowest = sql.exec<{ b: number }>(`SELECT MIN(balance) AS b FROM points`).one().b;
      const ranks = sql.exec(usersAboveSql("?"), lowest);
      const above = ranks.one().above;
      const old = sql.exec(`SELECT SUM(n) AS n FROM balance_counts WHERE balance > ?`, lowest);
      old.toArray();
      return { above, rank: o.rankOf("d0")?.rank, buckets: ranks.rowsRead, old: old.rowsRead };
    });
    expect(read.above).toBe(users - 1);
    expect(read.rank).toBe(users); // d0 holds the lowest balance
    expect(read.buckets).toBeLessThanOrEqual(240 + 16);
    expect(read.old).toBeGreaterThanOrEqual(users - 1);
  });
});
