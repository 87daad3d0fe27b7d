import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { seasonBoard } from "../workers/queues/points";
import { admin, countRows, signUp } from "./helpers";
import { MSG } from "../workers/merch-service/messages";
import { createSeason, deliver, event, freshWindow, merch, seedSeason } from "./points-helpers";

/** Seasons (issue 6): create, change, delete, list, current; never overlapping. */

const iso = (t: number) => new Date(t).toISOString();
const DAY = 86_400_000;

describe("seasons", () => {
  it("creates a season (ISO or epoch ms), sets its board's window, and refuses an overlap with 409, changing nothing", async () => {
    const { token } = await admin();
    const w = freshWindow(10);
    const res = await merch("/points/season", {
      token,
      body: { name: `Spring ${w.start}`, startDate: iso(w.start), endDate: w.end },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: `Spring ${w.start}`,
      startDate: iso(w.start),
      endDate: iso(w.end),
    });
    expect(await env.Leaderboard.getByName(seasonBoard(res.body.id)).window()).toEqual({
      startDate: w.start,
      endDate: w.end,
    });

    const before = await countRows("seasons");
    for (const [s, e] of [
      [w.start - DAY, w.start + 1], // overlaps the start
      [w.end - 1, w.end + DAY], // overlaps the end
      [w.start + DAY, w.start + 2 * DAY], // inside
      [w.start - DAY, w.end + DAY], // around
    ]) {
      const r = await merch("/points/season", {
        token,
        body: { name: `x-${crypto.randomUUID()}`, startDate: s, endDate: e },
      });
      expect(r.status).toBe(409);
      expect(r.body.message).toMatch(/cannot overlap/);
    }
    // Touching is not overlapping: [end, ...) starts where the other stops.
    const next = await merch("/points/season", {
      token,
      body: { name: `Summer ${w.start}`, startDate: w.end, endDate: w.end + DAY },
    });
    expect(next.status).toBe(201);
    expect(await countRows("seasons")).toBe(before + 1);
    const dup = await merch("/points/season", {
      token,
      body: { name: `Summer ${w.start}`, startDate: w.end + 5 * DAY, endDate: w.end + 6 * DAY },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toMatch(/already exists/);
  });

  it("of 8 concurrent creates over the same dates exactly one wins", async () => {
    const { token } = await admin();
    const w = freshWindow(3);
    const all = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        merch("/points/season", {
          token,
          body: { name: `race-${i}-${w.start}`, startDate: w.start + i * 1000, endDate: w.end },
        }),
      ),
    );
    expect(all.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const { results } = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM seasons WHERE start_date < ? AND end_date > ?",
    )
      .bind(w.end, w.start)
      .all<{ n: number }>();
    expect(results[0].n).toBe(1);
  });

  it("refuses bad input with 400 and a message, writing nothing", async () => {
    const { token } = await admin();
    const before = await countRows("seasons");
    const w = freshWindow(1);
    for (const body of [
      {},
      { name: "x", startDate: w.end, endDate: w.start },
      { name: "x", startDate: w.start, endDate: w.start },
      { name: "", startDate: w.start, endDate: w.end },
      { name: "a/b", startDate: w.start, endDate: w.end },
      { name: "x", startDate: "yesterday", endDate: w.end },
      { name: "x", startDate: w.start, endDate: 1e20 },
      { name: "x".repeat(101), startDate: w.start, endDate: w.end },
    ]) {
      const r = await merch("/points/season", { token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toBeTruthy();
    }
    expect(
      (
        await merch("/points/season", {
          token,
          body: "{not json",
          headers: { "Content-Type": "application/json" },
        })
      ).status,
    ).toBe(400);
    for (const path of ["/admin/seasons/abc", "/admin/seasons/0", "/admin/seasons/1.5"])
      expect((await merch(path, { token })).status).toBe(400);
    expect(
      (await merch("/points/season/abc", { token, method: "PATCH", body: { name: "y" } })).status,
    ).toBe(400);
    expect(await countRows("seasons")).toBe(before);
  });

  it("changes a season: a future one freely, a running one only its end (not into the past), an ended one not at all", async () => {
    const { token } = await admin();
    const w = freshWindow(5);
    const future = await createSeason(token, `future-${w.start}`, w.start, w.end);
    const moved = await merch(`/points/season/${future.id}`, {
      token,
      method: "PATCH",
      body: { name: `renamed-${w.start}`, startDate: w.start + DAY },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      name: `renamed-${w.start}`,
      startDate: iso(w.start + DAY),
      endDate: iso(w.end),
    });
    expect(await env.Leaderboard.getByName(seasonBoard(future.id)).window()).toEqual({
      startDate: w.start + DAY,
      endDate: w.end,
    });
    // Moving onto a neighbour is an overlap.
    const neighbour = await createSeason(token, `neighbour-${w.start}`, w.end, w.end + DAY);
    expect(
      (
        await merch(`/points/season/${future.id}`, {
          token,
          method: "PATCH",
          body: { endDate: w.end + 1 },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await merch(`/points/season/${future.id}`, {
          token,
          method: "PATCH",
          body: { endDate: w.start },
        })
      ).status,
    ).toBe(400);
    expect(
      (await merch(`/points/season/${future.id}`, { token, method: "PATCH", body: {} })).status,
    ).toBe(400);
    expect(
      (
        await merch(`/points/season/${future.id}`, {
          token,
          method: "PATCH",
          body: { name: neighbour.name },
        })
      ).status,
    ).toBe(409);

    // An ended season (D1 times in the past) is frozen.
    const past = Date.UTC(2001, 0, 1) + Math.floor(Math.random() * 1e6) * 1000;
    const ended = await seedSeason(`ended-${past}`, past, past + 1000);
    const frozen = await merch(`/points/season/${ended.id}`, {
      token,
      method: "PATCH",
      body: { endDate: past + 2000 },
    });
    expect(frozen.status).toBe(409);
    expect(frozen.body.message).toMatch(/frozen/);
    expect(
      (
        await merch(`/points/season/${ended.id}`, {
          token,
          method: "PATCH",
          body: { startDate: past - 1000 },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await merch(`/points/season/${ended.id}`, {
          token,
          method: "PATCH",
          body: { name: `ended-renamed-${past}` },
        })
      ).status,
    ).toBe(200);
    expect(
      (await merch(`/points/season/999999`, { token, method: "PATCH", body: { name: "nope" } }))
        .status,
    ).toBe(404);
  });

  it("lists seasons for admins (crud), gets one, and deletes one with its ranking (board and mirror)", async () => {
    const { token } = await admin();
    const w = freshWindow(2);
    const s = await createSeason(token, `del-${w.start}`, w.start, w.end);
    const u = crypto.randomUUID();
    await deliver([event(`del-${u}`, u, 9, w.start + 1)]);
    expect((await env.Leaderboard.getByName(seasonBoard(s.id)).rankOf(u))?.balance).toBe(9);

    const list = await merch(`/admin/seasons?filter=name||$eq||${encodeURIComponent(s.name)}`, {
      token,
    });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      count: 1,
      total: 1,
      page: 1,
      pageCount: 1,
      data: [{ id: s.id, name: s.name }],
    });
    expect((await merch("/admin/seasons?sort=nope,DESC", { token })).status).toBe(400);
    expect((await merch(`/admin/seasons/${s.id}`, { token })).body).toMatchObject({
      id: s.id,
      startDate: iso(w.start),
    });

    const del = await merch(`/admin/seasons/${s.id}`, { token, method: "DELETE" });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: s.id, deleted: true });
    expect((await merch(`/admin/seasons/${s.id}`, { token })).status).toBe(404);
    expect((await merch(`/points/season/${s.id}`, { token, method: "DELETE" })).status).toBe(404);
    expect(await env.Leaderboard.getByName(seasonBoard(s.id)).count()).toBe(0);
    const { results } = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM ranking_status WHERE season_id = ?",
    )
      .bind(s.id)
      .all<{ n: number }>();
    expect(results[0].n).toBe(0);
    // Its dates are free again.
    await createSeason(token, `again-${w.start}`, w.start, w.end);
  });

  it("GET /seasons/current answers the running season, or null when none runs", async () => {
    const { token } = await admin();
    const none = await merch("/seasons/current");
    expect(none.status).toBe(200);
    expect(none.body).toBeNull();
    const now = Date.now();
    const s = await seedSeason(`now-${now}`, now - DAY, now + DAY);
    expect((await merch("/seasons/current")).body).toMatchObject({ id: s.id, name: s.name });
    // A running season: the start is fixed, the end may move, but not into the past.
    expect(
      (
        await merch(`/points/season/${s.id}`, {
          token,
          method: "PATCH",
          body: { startDate: now - 2 * DAY },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await merch(`/points/season/${s.id}`, {
          token,
          method: "PATCH",
          body: { endDate: now - 1000 },
        })
      ).body,
    ).toMatchObject({ statusCode: 400, message: MSG.endInPast });
    expect(
      (
        await merch(`/points/season/${s.id}`, {
          token,
          method: "PATCH",
          body: { endDate: now + 2 * DAY },
        })
      ).status,
    ).toBe(200);
    await merch(`/points/season/${s.id}`, { token, method: "DELETE" });
  });

  it("refuses a season that would start in the past or freeze at once (400 with the message), on create and on change, changing nothing", async () => {
    const { token } = await admin();
    const now = Date.now();
    const board = (id: number) => env.Leaderboard.getByName(seasonBoard(id));
    const before = await countRows("seasons");
    for (const [startDate, endDate, message] of [
      [now - 5 * 60_000, now + DAY, MSG.startInPast], // started five minutes ago
      [now - 2 * DAY, now - DAY, MSG.startInPast], // over before it is made: frozen, empty
      [now - 30_000, now - 10_000, MSG.endInPast], // a start inside the grace, an end gone
    ] as const) {
      const r = await merch("/points/season", {
        token,
        body: { name: `past-${crypto.randomUUID()}`, startDate, endDate },
      });
      expect(r.status, iso(startDate)).toBe(400);
      expect(r.body).toEqual({ statusCode: 400, message, error: "Bad Request" });
    }
    expect(await countRows("seasons")).toBe(before);

    // A minute of grace for clock skew: "now" as the admin's clock saw it is fine.
    const made = await createSeason(token, `starts-now-${now}`, now - 30_000, now + DAY);
    expect(await board(made.id).window()).toEqual({ startDate: now - 30_000, endDate: now + DAY });
    await merch(`/points/season/${made.id}`, { token, method: "DELETE" });

    // A season that has not started cannot be moved to start in the past, or to end.
    const w = freshWindow(3);
    const future = await createSeason(token, `not-yet-${w.start}`, w.start, w.end);
    for (const [body, message] of [
      [{ startDate: now - 5 * 60_000 }, MSG.startInPast],
      [{ startDate: now - 2 * DAY, endDate: now - DAY }, MSG.startInPast],
      [{ startDate: now - 30_000, endDate: now - 10_000 }, MSG.endInPast],
      [{ endDate: now - DAY }, MSG.endBeforeStart],
    ] as const) {
      const r = await merch(`/points/season/${future.id}`, { token, method: "PATCH", body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toBe(message);
    }
    expect((await merch(`/admin/seasons/${future.id}`, { token })).body).toMatchObject({
      startDate: iso(w.start),
      endDate: iso(w.end),
    });
    expect(await board(future.id).window()).toEqual({ startDate: w.start, endDate: w.end });
  });

  it("every season admin call is 401 without a token and 403 for a plain user", async () => {
    const plain = await signUp();
    const w = freshWindow(1);
    const calls: [string, string, unknown?][] = [
      ["POST", "/points/season", { name: "x", startDate: w.start, endDate: w.end }],
      ["PATCH", "/points/season/1", { name: "x" }],
      ["DELETE", "/points/season/1"],
      ["GET", "/admin/seasons"],
      ["GET", "/admin/seasons/1"],
      ["DELETE", "/admin/seasons/1"],
    ];
    for (const [method, path, body] of calls) {
      expect((await merch(path, { method, body })).status, `${method} ${path}`).toBe(401);
      expect(
        (await merch(path, { method, body, token: plain.token })).status,
        `${method} ${path}`,
      ).toBe(403);
    }
  });
});
