import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { LIFETIME_BOARD, seasonBoard } from "../workers/queues/points";
import { admin, signUp, type TestAccount } from "./helpers";
import { MSG } from "../workers/merch-service/messages";
import { RANKING_CACHE_MS } from "../workers/merch-service/points/ranking-cache";
import { createSeason, deliver, event, freshWindow, merch, seedSeason } from "./points-helpers";

vi.setConfig({ testTimeout: 60_000 });

/** Points calls, rankings, ranking status and the avatar backfill (issue 6). */

const DAY = 86_400_000;
const KEY = { "X-Service-Key": "test-service-key" };
let adminToken: string;
let current: { id: number; name: string; startDate: string };

/** Waits until the lifetime board shows `balance` for `uuid` (the real queue delivered). */
const settled = (uuid: string, balance: number) =>
  vi.waitFor(
    async () =>
      expect((await env.Leaderboard.getByName(LIFETIME_BOARD).rankOf(uuid))?.balance).toBe(balance),
    { timeout: 10_000, interval: 50 },
  );

const grant = (userUuid: string, points: number, eventId: string = crypto.randomUUID()) =>
  merch("/points/service", { headers: KEY, body: { eventId, userUuid, points } });

beforeAll(async () => {
  adminToken = (await admin()).token;
  const now = Date.now();
  current = await seedSeason(`Current ${now}`, now - DAY, now + 30 * DAY);
});

describe("points calls", () => {
  it("POST /points/service queues an event that counts once, however often it is sent", async () => {
    const a = await signUp();
    const first = await grant(a.uuid, 5, "svc-once");
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      eventId: "svc-once",
      userUuid: a.uuid,
      points: 5,
      queued: true,
    });
    await grant(a.uuid, 5, "svc-once");
    await grant(a.uuid, 2, "svc-other");
    await settled(a.uuid, 7);
    await vi.waitFor(async () =>
      expect((await merch(`/points/ranking-status/${a.uuid}`)).body).toMatchObject({
        userUuid: a.uuid,
        balance: 7,
        rank: expect.any(Number),
        season: { id: current.id },
      }),
    );
  });

  it("POST /points/season/admin/handle-points: an adjustment (negative too) with a generated id that a retry can reuse", async () => {
    const a = await signUp();
    await grant(a.uuid, 10);
    const adj = await merch("/points/season/admin/handle-points", {
      token: adminToken,
      body: { userUuid: a.uuid, points: -4, reason: "duplicate likes" },
    });
    expect(adj.status).toBe(202);
    expect(adj.body.eventId).toMatch(/^[0-9a-f-]{36}$/);
    const again = await merch("/points/season/admin/handle-points", {
      token: adminToken,
      body: { userUuid: a.uuid, points: -4, eventId: adj.body.eventId },
    });
    expect(again.status).toBe(202);
    await settled(a.uuid, 6);
    // The same id from the service is another event: ids are namespaced by source.
    await grant(a.uuid, 1, adj.body.eventId);
    await settled(a.uuid, 7);
  });

  it("refuses bad input with 400, an unknown user with 404 and a time inside an ended season with 409; nothing is queued", async () => {
    const a = await signUp();
    const bad = [
      {},
      { userUuid: a.uuid, points: 1 },
      { eventId: "e", userUuid: "not-a-uuid", points: 1 },
      { eventId: "e", userUuid: a.uuid, points: 0 },
      { eventId: "e", userUuid: a.uuid, points: 1.5 },
      { eventId: "e", userUuid: a.uuid, points: "1" },
      { eventId: "e", userUuid: a.uuid, points: 2_000_000 },
      { eventId: "e", userUuid: a.uuid, points: 1, occurredAt: Date.now() + DAY },
      { eventId: "e", userUuid: a.uuid, points: 1, occurredAt: "soon" },
      { eventId: "", userUuid: a.uuid, points: 1 },
    ];
    for (const body of bad) {
      const r = await merch("/points/service", { headers: KEY, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toBeTruthy();
    }
    expect(
      (
        await merch("/points/service", {
          headers: KEY,
          body: { eventId: "e", userUuid: crypto.randomUUID(), points: 1 },
        })
      ).status,
    ).toBe(404);
    // A season that ended yesterday, before the current one began.
    const now = Date.now();
    const ended = await seedSeason(`ended-${now}`, now - 10 * DAY, now - 2 * DAY);
    const frozen = await merch("/points/service", {
      headers: KEY,
      body: { eventId: "e", userUuid: a.uuid, points: 1, occurredAt: now - 3 * DAY },
    });
    expect(frozen.status).toBe(409);
    expect(frozen.body.message).toBe(MSG.occurredInEndedSeason(ended.name));
    // Over 14 days back is refused: such an event could outlive the boards' 30-day memory
    // of its id while waiting in the queue (up to 14 days).
    for (const [path, auth] of [
      ["/points/service", { headers: KEY }],
      ["/points/season/admin/handle-points", { token: adminToken }],
    ] as const) {
      const old = await merch(path, {
        ...auth,
        body: { eventId: "e", userUuid: a.uuid, points: 1, occurredAt: now - 15 * DAY },
      });
      expect(old.status, path).toBe(400);
      expect(old.body.message).toBe(MSG.occurredTooLongAgo(14));
    }
    // A real event afterwards proves the refused ones never reached a board.
    await grant(a.uuid, 3);
    await settled(a.uuid, 3);
  });

  it("POST /points/service is 401 without a key or with a wrong one, 403 for a plain user; handle-points 401/403", async () => {
    const plain = await signUp();
    const body = { eventId: "e", userUuid: plain.uuid, points: 1 };
    expect((await merch("/points/service", { body })).status).toBe(401);
    expect(
      (await merch("/points/service", { body, headers: { "X-Service-Key": "wrong" } })).status,
    ).toBe(401);
    expect((await merch("/points/service", { body, token: plain.token })).status).toBe(403);
    expect((await merch("/points/season/admin/handle-points", { body })).status).toBe(401);
    expect(
      (await merch("/points/season/admin/handle-points", { body, token: plain.token })).status,
    ).toBe(403);
  });
});

describe("rankings", () => {
  let people: TestAccount[];
  beforeAll(async () => {
    // Balances with ties, granted in an order unlike the ranking.
    people = [];
    for (let i = 0; i < 5; i++) people.push(await signUp({ nickname: `Ranker ${i}` }));
    const points = [30, 50, 30, 80, 10];
    await Promise.all(people.map((p, i) => grant(p.uuid, points[i], `rank-${p.uuid}`)));
    for (const [i, p] of people.entries()) await settled(p.uuid, points[i]);
  });

  it("pages the current season best first; ties share a rank and list by uuid, the same on every page", async () => {
    const mine = new Set(people.map((p) => p.uuid));
    const all = await merch("/points/season-ranking?take=100");
    expect(all.status).toBe(200);
    const rows = all.body.data.filter((r: { userUuid: string }) => mine.has(r.userUuid));
    expect(rows.map((r: { balance: number }) => r.balance)).toEqual([80, 50, 30, 30, 10]);
    const tied = rows.filter((r: { balance: number }) => r.balance === 30);
    expect(tied[0].rank).toBe(tied[1].rank);
    expect(tied[0].userUuid < tied[1].userUuid).toBe(true);
    expect(rows[0]).toMatchObject({ nickname: "Ranker 3", balance: 80 });
    expect(rows[0]).toHaveProperty("avatarId");
    for (const r of all.body.data)
      expect(r.rank).toBe(
        1 + all.body.data.filter((o: { balance: number }) => o.balance > r.balance).length,
      );
    // Pages agree with the whole list.
    for (let skip = 0; skip < all.body.total; skip++) {
      const page = await merch(`/points/season-ranking?take=2&skip=${skip}`);
      expect(page.body.data).toEqual(all.body.data.slice(skip, skip + 2));
    }
    expect(all.body.season).toMatchObject({ id: current.id });
    expect((await merch("/points/season-ranking-current?take=100")).body.data).toEqual(
      all.body.data,
    );
  });

  it("shows a signed-in caller their own row even off the page; 'me' is null for someone with no points", async () => {
    const low = people[4];
    const page = await merch("/points/season-ranking?take=1", { token: low.token });
    expect(page.body.data).toHaveLength(1);
    expect(page.body.me).toMatchObject({ userUuid: low.uuid, balance: 10, nickname: "Ranker 4" });
    const stranger = await signUp();
    expect(
      (await merch("/points/season-ranking?take=1", { token: stranger.token })).body.me,
    ).toBeNull();
    expect((await merch("/points/season-ranking?take=1")).body.me).toBeUndefined();
  });

  it("answers a season by name, the next and previous season, and the lifetime ranking", async () => {
    const byName = await merch(
      `/points/season-ranking/${encodeURIComponent(current.name)}?take=100`,
    );
    expect(byName.status).toBe(200);
    expect(byName.body.season.id).toBe(current.id);
    expect((await merch("/points/season-ranking/no-such-season")).status).toBe(404);

    const w = freshWindow(5);
    const later = await createSeason(adminToken, `Later ${w.start}`, w.start, w.end);
    const next = await merch(
      `/points/season-ranking/next-season/${encodeURIComponent(current.startDate)}`,
    );
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ season: { id: later.id }, data: [], total: 0 });
    const prev = await merch(`/points/season-ranking/prev-season/${w.start}`);
    expect(prev.body.season.id).toBe(current.id);
    expect((await merch(`/points/season-ranking/next-season/${w.start}`)).status).toBe(404);
    expect((await merch("/points/season-ranking/prev-season/2000-01-01T00:00:00Z")).status).toBe(
      404,
    );
    expect((await merch("/points/season-ranking/next-season/tomorrow")).status).toBe(400);

    const life = await merch("/points/all-seasons-ranking?take=100");
    expect(life.body.season).toBeNull();
    expect(
      life.body.data.find((r: { userUuid: string }) => r.userUuid === people[3].uuid),
    ).toMatchObject({ balance: 80 });
    for (const q of ["take=0", "take=101", "skip=-1", "take=abc"])
      expect((await merch(`/points/season-ranking?${q}`)).status, q).toBe(400);
  });

  it("answers ranking status: current season, lifetime sum, both for me and for anyone", async () => {
    const top = people[3];
    expect((await merch(`/points/ranking-status/${top.uuid}`)).body).toMatchObject({
      userUuid: top.uuid,
      nickname: "Ranker 3",
      balance: 80,
      season: { id: current.id },
    });
    expect((await merch(`/points/ranking-status/sum/${top.uuid}`)).body).toMatchObject({
      balance: 80,
      season: null,
      rank: expect.any(Number),
    });
    const nobody = crypto.randomUUID();
    expect((await merch(`/points/ranking-status/${nobody}`)).body).toMatchObject({
      balance: 0,
      rank: null,
      nickname: null,
    });
    const mine = await merch("/points/current-ranking-status", { token: top.token });
    expect(mine.body).toMatchObject({
      userUuid: top.uuid,
      season: { id: current.id },
      current: { balance: 80 },
      lifetime: { balance: 80 },
    });
    expect((await merch(`/points/current-ranking-status/${top.uuid}`)).body).toEqual(mine.body);
    expect((await merch("/points/current-ranking-status")).status).toBe(401);
    expect((await merch("/points/ranking-status/not-a-uuid")).status).toBe(400);
  });

  it("lists the mirrors for admins with userUuid, seasonId and balance filters, and gets rows by id", async () => {
    const top = people[3];
    const list = await merch(`/admin/ranking-status?seasonId=${current.id}&userUuid=${top.uuid}`, {
      token: adminToken,
    });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      count: 1,
      total: 1,
      page: 1,
      pageCount: 1,
      data: [{ userUuid: top.uuid, seasonId: current.id, balance: 80, nickname: "Ranker 3" }],
    });
    const byBalance = await merch(
      `/admin/ranking-status?seasonId=${current.id}&balance=30&sort=userUuid,ASC`,
      { token: adminToken },
    );
    expect(byBalance.body.data.map((r: { userUuid: string }) => r.userUuid)).toEqual(
      [people[0].uuid, people[2].uuid].sort(),
    );
    const sorted = await merch(`/admin/ranking-status?seasonId=${current.id}&limit=2&page=1`, {
      token: adminToken,
    });
    expect(sorted.body.data.map((r: { balance: number }) => r.balance)).toEqual([80, 50]);
    expect(sorted.body.pageCount).toBeGreaterThanOrEqual(3);
    const one = await merch(`/admin/ranking-status/${list.body.data[0].id}`, { token: adminToken });
    expect(one.body).toMatchObject({ userUuid: top.uuid, balance: 80 });

    const life = await merch(`/admin/ranking-status-lifetime?userUuid=${top.uuid}`, {
      token: adminToken,
    });
    expect(life.body.data).toMatchObject([{ userUuid: top.uuid, balance: 80 }]);
    expect(
      (await merch(`/admin/ranking-status-lifetime/${life.body.data[0].id}`, { token: adminToken }))
        .body,
    ).toMatchObject({ balance: 80 });
    expect((await merch("/admin/ranking-status/99999999", { token: adminToken })).status).toBe(404);
    for (const q of ["seasonId=abc", "userUuid=x", "sort=password,ASC", "limit=0", "balance=1.5"])
      expect((await merch(`/admin/ranking-status?${q}`, { token: adminToken })).status, q).toBe(
        400,
      );
  });

  it("reads at most 100 rows a page and 10,000 rows deep on every ranking route: beyond is 400 with the message", async () => {
    const routes = [
      "/points/season-ranking",
      "/points/season-ranking-current",
      "/points/all-seasons-ranking",
      `/points/season-ranking/${encodeURIComponent(current.name)}`,
      `/points/season-ranking/prev-season/${Date.now() + 400 * DAY}`,
    ];
    for (const path of routes) {
      for (const [q, message] of [
        ["take=101", "take must be at most 100"],
        ["skip=10001", "skip must be at most 10000"],
        ["take=100&skip=1000000", "skip must be at most 10000"],
      ]) {
        const r = await merch(`${path}?${q}`);
        expect(r.status, `${path}?${q}`).toBe(400);
        expect(r.body).toEqual({ statusCode: 400, message, error: "Bad Request" });
      }
      const deepest = await merch(`${path}?take=100&skip=10000`);
      expect(deepest.status, path).toBe(200);
      expect(deepest.body).toMatchObject({ data: [], take: 100, skip: 10_000 });
    }
  });

  it("shares a ranking page among readers for at most 2 seconds: after a change the first page is right once that has passed, and your own row and page are never stale", async () => {
    const climber = await signUp({ nickname: "Cache Climber" });
    const url = "/points/all-seasons-ranking?take=3";
    const t = Date.now();
    vi.setSystemTime(t);
    try {
      const before = await merch(url);
      expect(before.body.data.map((r: { userUuid: string }) => r.userUuid)).not.toContain(
        climber.uuid,
      );
      await env.Leaderboard.getByName(LIFETIME_BOARD).addPoints(
        `climb-${climber.uuid}`,
        climber.uuid,
        1_000_000,
      );
      // Inside the page's lifetime, readers share the page read before the change...
      vi.setSystemTime(t + RANKING_CACHE_MS - 1);
      const shared = await merch(url);
      expect(shared.body.data).toEqual(before.body.data);
      // ...but the reader's own row is read afresh, and a page that disagrees with it (the
      // climber ranks first and is not on it) is read afresh for them: never "your rank #1"
      // above a list without them.
      const own = await merch(url, { token: climber.token });
      expect(own.body.me).toMatchObject({
        userUuid: climber.uuid,
        nickname: "Cache Climber",
        balance: 1_000_000,
        rank: 1,
      });
      expect(own.body.data[0]).toMatchObject({ userUuid: climber.uuid, rank: 1 });
      // Once the lifetime has passed, the first page shows the change.
      vi.setSystemTime(t + RANKING_CACHE_MS);
      const fresh = await merch(url);
      expect(fresh.body.data[0]).toMatchObject({
        userUuid: climber.uuid,
        nickname: "Cache Climber",
        balance: 1_000_000,
        rank: 1,
      });
      expect(fresh.body.total).toBe(before.body.total + 1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("every admin ranking call is 401 without a token and 403 for a plain user", async () => {
    const plain = await signUp();
    for (const path of [
      "/admin/ranking-status",
      "/admin/ranking-status/1",
      "/admin/ranking-status-lifetime",
      "/admin/ranking-status-lifetime/1",
    ]) {
      expect((await merch(path)).status, path).toBe(401);
      expect((await merch(path, { token: plain.token })).status, path).toBe(403);
    }
    expect(
      (await merch(`/points/backfill-achieved-avatars/${current.id}`, { method: "POST" })).status,
    ).toBe(401);
    expect(
      (
        await merch(`/points/backfill-achieved-avatars/${current.id}`, {
          method: "POST",
          token: plain.token,
        })
      ).status,
    ).toBe(403);
  });
});

describe("avatar backfill", () => {
  it("awards a season's avatars to everyone at or above the threshold, once however often it runs", async () => {
    const w = freshWindow(3);
    const s = await createSeason(adminToken, `Awards ${w.start}`, w.start, w.end);
    const users = Array.from({ length: 30 }, (_, i) => ({
      uuid: crypto.randomUUID(),
      points: i * 10,
    })); // 0..290
    await deliver(
      users.map((u, i) => event(`aw-${i}-${u.uuid}`, u.uuid, u.points || 1, w.start + i)),
    );
    const gold = `gold-${w.start}`;
    const silver = `silver-${w.start}`;
    const other = `other-${w.start}`;
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO avatars (slug, name, status, season_id, points_threshold) VALUES (?, 'Gold', 'SEASON_AWARD', ?, 200)",
      ).bind(gold, s.id),
      env.DB.prepare(
        "INSERT INTO avatars (slug, name, status, season_id, points_threshold) VALUES (?, 'Silver', 'SEASON_AWARD', ?, 100)",
      ).bind(silver, s.id),
      // Not a season award, or another season's: never given here.
      env.DB.prepare(
        "INSERT INTO avatars (slug, name, status, season_id, points_threshold) VALUES (?, 'Other', 'PUBLIC', ?, 1)",
      ).bind(other, s.id),
    ]);
    const run = (q = "") =>
      merch(`/points/backfill-achieved-avatars/${s.id}${q}`, { method: "POST", token: adminToken });

    const capped = await run("?limit=5");
    expect(capped.body).toMatchObject({ awarded: 5, complete: false });
    const first = await run();
    expect(first.status).toBe(200);
    // gold: 200..290 (10 users); silver: 100..290 (20 users); 5 were already given.
    expect(first.body).toMatchObject({ seasonId: s.id, awarded: 30 - 5, complete: true });
    expect((await run()).body).toMatchObject({ awarded: 0, complete: true });
    const [again1, again2] = await Promise.all([run(), run()]);
    expect(again1.body.awarded + again2.body.awarded).toBe(0);

    const { results } = await env.DB.prepare(
      "SELECT avatar_slug AS slug, user_uuid AS u, type, season_id AS sid FROM avatar_assignments WHERE avatar_slug IN (?, ?, ?)",
    )
      .bind(gold, silver, other)
      .all<{ slug: string; u: string; type: string; sid: number }>();
    expect(results).toHaveLength(30);
    expect(new Set(results.filter((r) => r.slug === gold).map((r) => r.u))).toEqual(
      new Set(users.filter((u) => u.points >= 200).map((u) => u.uuid)),
    );
    expect(new Set(results.filter((r) => r.slug === silver).map((r) => r.u))).toEqual(
      new Set(users.filter((u) => u.points >= 100).map((u) => u.uuid)),
    );
    expect(results.every((r) => r.type === "SEASON_AWARD" && r.sid === s.id)).toBe(true);

    expect(
      (
        await merch("/points/backfill-achieved-avatars/99999999", {
          method: "POST",
          token: adminToken,
        })
      ).status,
    ).toBe(404);
    for (const q of ["?limit=0", "?limit=abc", "?limit=10001"])
      expect((await run(q)).status, q).toBe(400);
    expect(
      (await merch("/points/backfill-achieved-avatars/abc", { method: "POST", token: adminToken }))
        .status,
    ).toBe(400);
    expect(await env.Leaderboard.getByName(seasonBoard(s.id)).count()).toBe(30);
  });

  it("goes through a big backfill in bounded calls: each examines at most `limit` users and hands back a cursor that goes on from the next one", async () => {
    const w = freshWindow(3);
    const s = await createSeason(adminToken, `Steps ${w.start}`, w.start, w.end);
    const users = Array.from({ length: 12 }, () => crypto.randomUUID()).sort();
    await deliver(users.map((u, i) => event(`st-${u}`, u, 100 + i, w.start + i)));
    const [a, b] = [`a-step-${w.start}`, `b-step-${w.start}`];
    await env.DB.batch(
      [a, b].map((slug) =>
        env.DB.prepare(
          "INSERT INTO avatars (slug, name, status, season_id, points_threshold) VALUES (?, 'Step', 'SEASON_AWARD', ?, 100)",
        ).bind(slug, s.id),
      ),
    );
    const run = (q: string) =>
      merch(`/points/backfill-achieved-avatars/${s.id}?${q}`, {
        method: "POST",
        token: adminToken,
      });
    const has = async (slug: string, user: string) =>
      (await env.DB.prepare(
        "SELECT 1 FROM avatar_assignments WHERE avatar_slug = ? AND user_uuid = ?",
      )
        .bind(slug, user)
        .first()) !== null;

    // 24 awards (12 users, 2 avatars), 5 users examined a call: 5 calls, each going on.
    const steps: number[] = [];
    let cursor: string | undefined;
    do {
      const r = await run(`limit=5${cursor ? `&cursor=${cursor}` : ""}`);
      expect(r.status).toBe(200);
      steps.push(r.body.awarded);
      cursor = r.body.cursor;
      expect(r.body.complete).toBe(cursor === undefined);
      // After the first call, take one early award back: the cursor never returns to it.
      if (steps.length === 1) {
        await env.DB.prepare(
          "DELETE FROM avatar_assignments WHERE avatar_slug = ? AND user_uuid = ?",
        )
          .bind(a, users[0])
          .run();
      }
    } while (cursor && steps.length < 10);
    expect(steps).toEqual([5, 5, 5, 5, 4]);
    expect(await has(a, users[0])).toBe(false);
    expect(await has(b, users[11])).toBe(true);
    // A call without a cursor starts over and finds it.
    expect((await run("limit=100")).body).toMatchObject({ awarded: 1, complete: true });
    expect(await has(a, users[0])).toBe(true);

    for (const bad of ["garbage", encodeURIComponent(btoa("{}")), "x".repeat(700)]) {
      const r = await run(`cursor=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.message).toBe("cursor is not one this route gave");
    }
  });
});
