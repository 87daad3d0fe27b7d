import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { LIFETIME_BOARD, mirror, seasonBoard } from "../workers/queues/points";
import { admin } from "./helpers";
import { createSeason, deliver, event, freshWindow, seedSeason, shuffle } from "./points-helpers";

const DAY = 86_400_000;

vi.setConfig({ testTimeout: 120_000 });

/** Points through the real queue consumer (issue 6): exact totals, seasons, mirrors. */

const lifetime = () => env.Leaderboard.getByName(LIFETIME_BOARD);
const board = (seasonId: number) => env.Leaderboard.getByName(seasonBoard(seasonId));

async function mirrored(
  table: "ranking_status" | "ranking_status_lifetime",
  users: string[],
  seasonId?: number,
) {
  const where = seasonId === undefined ? "" : ` AND season_id = ${seasonId}`;
  const { results } = await env.DB.prepare(
    `SELECT user_uuid, balance, version FROM ${table} WHERE user_uuid IN (SELECT value FROM json_each(?))${where}`,
  )
    .bind(JSON.stringify(users))
    .all<{ user_uuid: string; balance: number; version: number }>();
  return new Map(results.map((r) => [r.user_uuid, r.balance]));
}

const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

describe("points consumer", () => {
  it("10,000 deliveries (8,000 events, 2,000 duplicates, shuffled, 4 consumers at once) give exact totals on the season, lifetime boards and mirrors", async () => {
    const { token } = await admin();
    const w = freshWindow(20);
    const mid = w.start + 10 * 86_400_000;
    const a = await createSeason(token, `A-${crypto.randomUUID()}`, w.start, mid);
    const b = await createSeason(token, `B-${crypto.randomUUID()}`, mid, w.end);
    const users = Array.from({ length: 200 }, () => crypto.randomUUID());
    // Times: before any season (lifetime only), inside A, exactly at A's end (B's start), inside B.
    const times = [w.start - 1, w.start, w.start + 5000, mid - 1, mid, mid + 7, w.end - 1];
    const unique = Array.from({ length: 8000 }, (_, i) =>
      event(
        `bulk-${i}-${crypto.randomUUID()}`,
        users[(i * 7) % users.length],
        (i % 9) - 2,
        times[i % times.length],
      ),
    );
    const expected = {
      a: new Map<string, number>(),
      b: new Map<string, number>(),
      life: new Map<string, number>(),
    };
    for (const e of unique) {
      add(expected.life, e.userUuid, e.points);
      if (e.occurredAt >= w.start && e.occurredAt < mid) add(expected.a, e.userUuid, e.points);
      if (e.occurredAt >= mid && e.occurredAt < w.end) add(expected.b, e.userUuid, e.points);
    }
    const deliveries = shuffle([...unique, ...shuffle(unique, 7).slice(0, 2000)], 2026);
    expect(deliveries).toHaveLength(10_000);

    const t0 = performance.now();
    const lanes = [0, 1, 2, 3].map((k) =>
      deliveries.filter((_, i) => Math.floor(i / 100) % 4 === k),
    );
    const results = await Promise.all(lanes.map((lane) => deliver(lane)));
    const ms = performance.now() - t0;
    console.log(
      `points consumer: 10,000 deliveries in ${Math.round(ms)} ms (${Math.round(10_000 / (ms / 1000))}/s)`,
    );
    expect(results.reduce((n, r) => n + r.acked, 0)).toBe(10_000);
    expect(results.reduce((n, r) => n + r.retried, 0)).toBe(0);

    const onBoard = async (stub: ReturnType<typeof board>) =>
      new Map((await stub.top(1000, 0)).map((r) => [r.userUuid, r.balance]));
    expect(await onBoard(board(a.id))).toEqual(expected.a);
    expect(await onBoard(board(b.id))).toEqual(expected.b);
    const life = new Map<string, number>();
    for (const u of users) life.set(u, (await lifetime().rankOf(u))?.balance ?? NaN);
    expect(life).toEqual(expected.life);

    expect(await mirrored("ranking_status", users, a.id)).toEqual(expected.a);
    expect(await mirrored("ranking_status", users, b.id)).toEqual(expected.b);
    expect(await mirrored("ranking_status_lifetime", users)).toEqual(expected.life);

    // Delivering everything again changes nothing anywhere.
    await deliver(shuffle(unique, 3).slice(0, 1000));
    expect(await onBoard(board(a.id))).toEqual(expected.a);
    expect(await mirrored("ranking_status_lifetime", users)).toEqual(expected.life);
  });

  it("an event at a season's end lands in the next season; before any season it is lifetime only", async () => {
    const { token } = await admin();
    const w = freshWindow(2);
    const s = await createSeason(token, `edge-${crypto.randomUUID()}`, w.start, w.end);
    const u = crypto.randomUUID();
    await deliver([
      event(`edge-in-${u}`, u, 3, w.end - 1),
      event(`edge-at-${u}`, u, 5, w.end),
      event(`edge-before-${u}`, u, 7, w.start - 1),
    ]);
    expect(await board(s.id).rankOf(u)).toEqual({ userUuid: u, balance: 3, rank: 1 });
    expect((await lifetime().rankOf(u))?.balance).toBe(15);
    expect(await mirrored("ranking_status", [u])).toEqual(new Map([[u, 3]]));
  });

  it("an event inside a running season's window counts there; the board refuses anything from outside its window", async () => {
    const { token } = await admin();
    const w = freshWindow(1);
    const s = await createSeason(token, `late-${crypto.randomUUID()}`, w.start, w.end);
    const u = crypto.randomUUID();
    await deliver([event(`late-${u}`, u, 4, w.end - 10)]);
    expect((await board(s.id).rankOf(u))?.balance).toBe(4);
    // The board's own check (a consumer that read the season list before a change).
    const refused = await board(s.id).addPointsBatch([
      { eventId: `after-${u}`, userUuid: u, points: 100, occurredAt: w.end + 1 },
    ]);
    expect(refused.refused).toEqual([{ eventId: `after-${u}`, reason: "outsideWindow" }]);
    expect((await board(s.id).rankOf(u))?.balance).toBe(4);
  });

  it("an event that arrives after its season ended goes to the lifetime board only: the season's ranking and mirror stay as they were at the end", async () => {
    const now = Date.now();
    const s = await seedSeason(`over-${crypto.randomUUID()}`, now - 3 * DAY, now - DAY);
    const u = crypto.randomUUID();
    expect(await deliver([event(`over-${u}`, u, 6, now - 2 * DAY)])).toEqual({
      acked: 1,
      retried: 0,
    });
    expect((await lifetime().rankOf(u))?.balance).toBe(6);
    expect(await mirrored("ranking_status_lifetime", [u])).toEqual(new Map([[u, 6]]));
    expect(await board(s.id).rankOf(u)).toBeNull();
    expect(await mirrored("ranking_status", [u], s.id)).toEqual(new Map());
  });

  it("acks malformed messages and still applies the good ones beside them", async () => {
    const u = crypto.randomUUID();
    const r = await deliver([
      { eventId: "x" },
      "not an object",
      event(`ok-${u}`, u, 2, Date.now()),
      { ...event(`frac-${u}`, u, 1.5, Date.now()) },
    ]);
    expect(r).toEqual({ acked: 4, retried: 0 });
    expect((await lifetime().rankOf(u))?.balance).toBe(2);
  });

  it("a mirror write only moves forward: an older version arriving late never replaces a newer balance", async () => {
    const u = crypto.randomUUID();
    await mirror(env, null, [{ userUuid: u, balance: 10, version: 3 }]);
    await mirror(env, null, [{ userUuid: u, balance: 7, version: 2 }]);
    expect(await mirrored("ranking_status_lifetime", [u])).toEqual(new Map([[u, 10]]));
    await mirror(env, null, [{ userUuid: u, balance: 12, version: 4 }]);
    expect(await mirrored("ranking_status_lifetime", [u])).toEqual(new Map([[u, 12]]));
    // A season's rows are written only while the season exists.
    await mirror(env, 987_654, [{ userUuid: u, balance: 1, version: 1 }]);
    expect(await mirrored("ranking_status", [u])).toEqual(new Map());
  });
});
