import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { Leaderboard } from "../durable/leaderboard";
import type { Env } from "../workers/env";
import { GUARD_DELAY_SECONDS, type BoardsMessage } from "../workers/queues/board-visibility";
import { LIFETIME_BOARD, seasonBoard } from "../workers/queues/points";
import { callWith, signUp, user } from "./helpers";
import { adminAccount, mod } from "./moderation-helpers";
import { consume } from "./notify-helpers";
import { merch, seedSeason } from "./points-helpers";

/**
 * Issue 15: a deactivated account leaves the season rankings and the lifetime ranking, the
 * others' ranks close up, and reactivation puts it back at its balance, points earned
 * meanwhile included. The deactivate and reactivate routes queue a job (the notifications
 * queue, channel "boards") that copies D1's flag as it is when the job runs to every board.
 */

const lifetime = () => env.Leaderboard.getByName(LIFETIME_BOARD);
const job = (userUuid: string): BoardsMessage => ({
  channel: "boards",
  id: crypto.randomUUID(),
  userUuid,
});

/**
 * Points onto a season's board and the lifetime board, as the points consumer applies them.
 * Directly: every test's season runs now, so the consumer would route them all to one.
 */
async function earn(seasonId: number, eventId: string, userUuid: string, points: number) {
  const e = { eventId, userUuid, points, occurredAt: Date.now() };
  for (const b of [env.Leaderboard.getByName(seasonBoard(seasonId)), lifetime()])
    expect((await b.addPointsBatch([e])).applied).toBe(1);
}

/** A season running now with three accounts on 60, 40 and 20 points. */
async function seasonOfThree(tag: string) {
  const now = Date.now();
  const season = await seedSeason(
    `${tag} ${crypto.randomUUID()}`,
    now - 3_600_000,
    now + 10 * 86_400_000,
  );
  const [x, y, z] = [await signUp(), await signUp(), await signUp()];
  await earn(season.id, `${tag}-x`, x.uuid, 60);
  await earn(season.id, `${tag}-y`, y.uuid, 40);
  await earn(season.id, `${tag}-z`, z.uuid, 20);
  return { season, x, y, z };
}

/** The season's ranking as GET /points/season-ranking/{name} answers it: [uuid, balance, rank]. */
async function rankingPage(seasonName: string) {
  const res = await merch(`/points/season-ranking/${encodeURIComponent(seasonName)}?take=100`);
  expect(res.status).toBe(200);
  return {
    rows: (res.body.data as { userUuid: string; balance: number; rank: number }[]).map((r) => [
      r.userUuid,
      r.balance,
      r.rank,
    ]),
    total: res.body.total as number,
  };
}

const settle = { timeout: 20_000, interval: 200 };

describe("deactivation and the rankings", () => {
  it("a deactivated account leaves the season and lifetime rankings (ranks close up, the count drops); reactivated, it is back with the points it earned meanwhile", async () => {
    const a = await adminAccount();
    const { season, x, y, z } = await seasonOfThree("close-up");
    const board = env.Leaderboard.getByName(seasonBoard(season.id));
    expect(await rankingPage(season.name)).toEqual({
      rows: [
        [x.uuid, 60, 1],
        [y.uuid, 40, 2],
        [z.uuid, 20, 3],
      ],
      total: 3,
    });
    const lifeBefore = await lifetime().count();

    const off = await user(`/users/deactivate/${y.uuid}`, { method: "DELETE", token: a.token });
    expect(off.status).toBe(200);
    // The real queue carries the job; the ranking page (shared for 2 s) follows.
    await vi.waitFor(async () => {
      expect(await rankingPage(season.name)).toEqual({
        rows: [
          [x.uuid, 60, 1],
          [z.uuid, 20, 2],
        ],
        total: 2,
      });
    }, settle);
    expect(await board.rankOf(y.uuid)).toBeNull();
    expect(await lifetime().rankOf(y.uuid)).toBeNull();
    expect(await lifetime().count()).toBe(lifeBefore - 1);
    // Their standing answers as for someone not on the board.
    const standing = await merch(`/points/ranking-status/sum/${y.uuid}`);
    expect(standing.status).toBe(200);
    expect(standing.body).toMatchObject({ balance: 0, rank: null });

    // Points earned while deactivated (a late vote, an admin grant) are kept, hidden.
    await earn(season.id, "close-up-late", y.uuid, 30);
    expect(await board.rankOf(y.uuid)).toBeNull();
    expect((await rankingPage(season.name)).total).toBe(2);

    const on = await user(`/users/reactivate/${y.uuid}`, { method: "POST", token: a.token });
    expect(on.status).toBe(201);
    await vi.waitFor(async () => {
      expect(await rankingPage(season.name)).toEqual({
        rows: [
          [y.uuid, 70, 1],
          [x.uuid, 60, 2],
          [z.uuid, 20, 3],
        ],
        total: 3,
      });
    }, settle);
    expect(await lifetime().rankOf(y.uuid)).toMatchObject({ balance: 70 });
    expect(await lifetime().count()).toBe(lifeBefore);
    const back = await merch(`/points/ranking-status/sum/${y.uuid}`);
    expect(back.body).toMatchObject({ balance: 70, rank: expect.any(Number) });
  });

  it("deactivate then reactivate at once, with the jobs delivered late and out of order, ends visible", async () => {
    const a = await adminAccount();
    const { season, y } = await seasonOfThree("race");
    const board = env.Leaderboard.getByName(seasonBoard(season.id));
    const deactivatedJob = job(y.uuid);
    const reactivatedJob = job(y.uuid);

    expect(
      (await user(`/users/deactivate/${y.uuid}`, { method: "DELETE", token: a.token })).status,
    ).toBe(200);
    // The deactivation's job runs while the account is deactivated: hidden.
    expect((await consume([deactivatedJob])).acked).toHaveLength(1);
    expect(await board.rankOf(y.uuid)).toBeNull();
    expect(
      (await user(`/users/reactivate/${y.uuid}`, { method: "POST", token: a.token })).status,
    ).toBe(201);
    // The reactivation's job first, then a redelivery of the deactivation's, then both at once.
    await consume([reactivatedJob]);
    await consume([deactivatedJob], {}, 2);
    await consume([deactivatedJob, reactivatedJob, deactivatedJob], {}, 3);
    expect(await board.rankOf(y.uuid)).toMatchObject({ balance: 40, rank: 2 });
    expect(await lifetime().rankOf(y.uuid)).toMatchObject({ balance: 40 });
    // And whatever the real queue delivered meanwhile agrees.
    await vi.waitFor(async () => {
      expect((await rankingPage(season.name)).total).toBe(3);
    }, settle);
  });

  it("a request that dies after its D1 write, before queueing the job, is still followed by one: the delayed guard it sent first", async () => {
    const a = await adminAccount();
    const { season, y } = await seasonOfThree("dies");
    const board = env.Leaderboard.getByName(seasonBoard(season.id));
    // The notifications queue takes the first send and then fails, as a request dying
    // between its D1 write and its second send would leave things.
    const sent: { body: unknown; delaySeconds?: number }[] = [];
    const dying = {
      send: async (body: unknown, opts?: { delaySeconds?: number }) => {
        if (sent.length > 0) throw new Error("the request died here");
        sent.push({ body, delaySeconds: opts?.delaySeconds });
      },
    };
    const res = await callWith(
      { NOTIFICATIONS: dying } as unknown as Partial<Env>,
      "user-service",
      `/users/deactivate/${y.uuid}`,
      { method: "DELETE", token: a.token },
    ).catch(() => null);
    expect(res?.status ?? 500).toBeGreaterThanOrEqual(500);
    const row = await env.DB.prepare(`SELECT deactivated FROM users WHERE uuid = ?`)
      .bind(y.uuid)
      .first<{ deactivated: number }>();
    expect(row?.deactivated).toBe(1);
    expect(await board.rankOf(y.uuid)).not.toBeNull();
    // The guard, sent before the write with a delay, runs later and hides the account.
    expect(sent).toEqual([
      {
        body: expect.objectContaining({ channel: "boards", userUuid: y.uuid }),
        delaySeconds: GUARD_DELAY_SECONDS,
      },
    ]);
    expect((await consume([sent[0].body])).acked).toHaveLength(1);
    expect(await board.rankOf(y.uuid)).toBeNull();
    expect(await lifetime().rankOf(y.uuid)).toBeNull();
  });

  it("when every try of a job failed, repeating the admin's action (a 409) queues the job again", async () => {
    const a = await adminAccount();
    const { season, y } = await seasonOfThree("repeat");
    const board = env.Leaderboard.getByName(seasonBoard(season.id));
    await env.DB.prepare(`UPDATE users SET deactivated = 1 WHERE uuid = ?`).bind(y.uuid).run();
    // Deactivated, but no job reached the boards (all its tries failed).
    expect(await board.rankOf(y.uuid)).not.toBeNull();
    const sent: unknown[] = [];
    const recording = { send: async (body: unknown) => void sent.push(body) };
    const res = await callWith(
      { NOTIFICATIONS: recording } as unknown as Partial<Env>,
      "user-service",
      `/users/deactivate/${y.uuid}`,
      { method: "DELETE", token: a.token },
    );
    expect(res.status).toBe(409);
    expect(sent).toEqual([expect.objectContaining({ channel: "boards", userUuid: y.uuid })]);
    await consume(sent);
    expect(await board.rankOf(y.uuid)).toBeNull();
    expect(await lifetime().rankOf(y.uuid)).toBeNull();
  });

  it("a job that sees the account change while it sets the boards is retried, and the retry sets the new state", async () => {
    const { season, y } = await seasonOfThree("mid-job");
    const board = env.Leaderboard.getByName(seasonBoard(season.id));
    const flag = env.DB.prepare(`UPDATE users SET deactivated = ? WHERE uuid = ?`);
    await flag.bind(1, y.uuid).run();
    // A reactivation lands while the deactivation's job is between its boards: every board
    // call first runs the real one, then the D1 write happens (real D1, real objects).
    let flipped = false;
    const racing = {
      getByName: (name: string) => ({
        setHidden: async (u: string, hidden: boolean) => {
          const r = await env.Leaderboard.getByName(name).setHidden(u, hidden);
          if (!flipped) {
            flipped = true;
            await flag.bind(0, y.uuid).run();
          }
          return r;
        },
      }),
    } as unknown as DurableObjectNamespace<Leaderboard>;
    const msg = job(y.uuid);
    const first = await consume([msg], { Leaderboard: racing } as Partial<Env>);
    expect(first.retried).toHaveLength(1);
    expect(first.acked).toHaveLength(0);
    // Left alone, the boards would now show a visible account as hidden; the retry fixes it.
    expect(await board.rankOf(y.uuid)).toBeNull();
    const again = await consume([msg], {}, 2);
    expect(again.acked).toHaveLength(1);
    expect(await board.rankOf(y.uuid)).toMatchObject({ balance: 40, rank: 2 });
  });

  it("a job for an account that does not exist, or a malformed one, is acked and changes nothing", async () => {
    const { season } = await seasonOfThree("missing");
    const board = env.Leaderboard.getByName(seasonBoard(season.id));
    const before = await board.page(100, 0);
    const r = await consume([
      job(crypto.randomUUID()),
      { channel: "boards", id: "x" },
      { channel: "boards", id: "x", userUuid: "u".repeat(65) },
    ]);
    expect(r.acked).toHaveLength(3);
    expect(r.retried).toHaveLength(0);
    expect(await board.page(100, 0)).toEqual(before);
  });

  it("a banned account stays on the rankings: a ban is not a deactivation", async () => {
    const m = await mod();
    const { season, y } = await seasonOfThree("banned");
    const res = await user("/users/ban", {
      token: m.token,
      body: { userUuid: y.uuid, reason: "x" },
    });
    expect(res.status).toBe(201);
    // Even a boards job for them (should one run) leaves them where they are.
    await consume([job(y.uuid)]);
    expect(await env.Leaderboard.getByName(seasonBoard(season.id)).rankOf(y.uuid)).toMatchObject({
      balance: 40,
      rank: 2,
    });
    expect((await rankingPage(season.name)).total).toBe(3);
  });
});
