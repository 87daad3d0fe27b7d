import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { PointsEvent } from "../durable/leaderboard";
import worker from "../workers/app";
import type { Env } from "../workers/env";
import { MSG } from "../workers/merch-service/messages";
import { LIFETIME_BOARD } from "../workers/queues/points";
import { POINTS_DLQ } from "../workers/queues/points-dead-letters";
import { admin, signUp } from "./helpers";
import { deliver, event, merch } from "./points-helpers";

/**
 * Points are never lost (issue 12): an event the consumer cannot apply is retried, its error
 * noted, and after its last retry the dead-letter queue's consumer keeps it in D1, where an
 * admin lists it and replays it (counting once) or discards it. A body that can never be an
 * event is kept as `invalid` at once, never retried.
 */

vi.setConfig({ testTimeout: 60_000 });

const DAY = 86_400_000;
const DL = "/admin/points-dead-letters";
const lifetime = () => env.Leaderboard.getByName(LIFETIME_BOARD);
const balance = async (u: string) => (await lifetime().rankOf(u))?.balance ?? null;

/**
 * The Worker's env with a Leaderboard binding whose boards throw for one user's events: no
 * real event makes a board throw (it refuses, never throws, on every bad event it knows),
 * so the failure is made at the binding, the edge of what the consumer calls.
 */
function boardsFailingFor(poison: string): Env {
  const real = env.Leaderboard;
  const Leaderboard = {
    getByName(name: string) {
      const stub = real.getByName(name);
      return {
        async addPointsBatch(events: PointsEvent[]) {
          if (events.some((e) => e.userUuid === poison))
            throw new Error(`board ${name} is unreachable for ${poison}`);
          return stub.addPointsBatch(events);
        },
      };
    },
  } as unknown as Env["Leaderboard"];
  return { ...env, Leaderboard };
}

/** One delivery of `messages` to the Worker's queue handler: the ids acked and retried. */
async function run(
  queue: string,
  messages: { id: string; body: unknown; attempts?: number }[],
  e: Env = env,
) {
  const batch = createMessageBatch(
    queue,
    messages.map((m) => ({
      id: m.id,
      timestamp: new Date(),
      attempts: m.attempts ?? 1,
      body: m.body,
    })),
  );
  const ctx = createExecutionContext();
  await worker.queue!(batch as MessageBatch, e);
  const r = await getQueueResult(batch, ctx);
  return {
    acked: r.explicitAcks,
    retried: r.retryMessages.map((m: { msgId: string }) => m.msgId),
    ackAll: r.ackAll,
  };
}

/** Puts `body` on the dead-letter queue's consumer, as Queues does after the last retry. */
async function deadLetter(body: unknown, id: string = crypto.randomUUID()) {
  const r = await run(POINTS_DLQ, [{ id, body }]);
  expect(r.ackAll).toBe(true);
}

interface Row {
  id: number;
  eventId: string | null;
  userUuid: string | null;
  nickname: string | null;
  points: number | null;
  status: string;
  attempts: number;
  lastError: string | null;
  deadAt: string;
  deadCount: number;
  replayCount: number;
  body: string;
}

async function listed(token: string, query = "take=100"): Promise<Row[]> {
  const res = await merch(`${DL}?${query}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function rowOf(token: string, eventId: string): Promise<Row> {
  const row = (await listed(token)).find((r) => r.eventId === eventId);
  expect(row, `dead letter for ${eventId}`).toBeDefined();
  return row!;
}

const failureRow = (eventId: string) =>
  env.DB.prepare("SELECT attempts, last_error FROM points_failures WHERE event_id = ?")
    .bind(eventId)
    .first<{ attempts: number; last_error: string }>();

describe("points dead letters", () => {
  it("an event that fails all 11 deliveries is retried each time with its error noted, dies alone, and becomes one dead letter the admin sees", async () => {
    const { token } = await admin();
    const nickname = `dj${Date.now() % 100000}`;
    const dj = await signUp({ nickname });
    const bystander = crypto.randomUUID();
    const poison = event(`poison-${crypto.randomUUID()}`, dj.uuid, 7, Date.now());
    const ok = event(`ok-${crypto.randomUUID()}`, bystander, 3, Date.now());
    const ok2 = event(`ok2-${crypto.randomUUID()}`, bystander, 4, Date.now());
    const failing = boardsFailingFor(dj.uuid);

    // First delivery: the events beside it on the same board are applied (each tried alone
    // once the board failed the group), and only the poison is retried.
    const first = await run(
      "hangout-points",
      [
        { id: "m-ok", body: ok },
        { id: "m-poison", body: poison },
        { id: "m-ok2", body: ok2 },
      ],
      failing,
    );
    expect(first).toMatchObject({ acked: ["m-ok", "m-ok2"], retried: ["m-poison"] });
    expect(await balance(bystander)).toBe(7);
    const mirrored = await env.DB.prepare(
      "SELECT balance, version FROM ranking_status_lifetime WHERE user_uuid = ?",
    )
      .bind(bystander)
      .first();
    expect(mirrored).toEqual({ balance: 7, version: 2 });
    for (let attempt = 2; attempt <= 11; attempt++) {
      const r = await run(
        "hangout-points",
        [{ id: "m-poison", body: poison, attempts: attempt }],
        failing,
      );
      expect(r).toMatchObject({ acked: [], retried: ["m-poison"] });
    }
    expect(await balance(dj.uuid)).toBeNull();
    expect(await failureRow(poison.eventId)).toEqual({
      attempts: 11,
      last_error: `Error: board lifetime is unreachable for ${dj.uuid}`,
    });

    // Queues gives up and moves it to the dead-letter queue; its consumer keeps it.
    await deadLetter(poison, "m-poison");
    expect(await failureRow(poison.eventId)).toBeNull();
    const row = await rowOf(token, poison.eventId);
    expect(row).toMatchObject({
      userUuid: dj.uuid,
      nickname,
      points: 7,
      status: "dead",
      attempts: 11,
      lastError: `Error: board lifetime is unreachable for ${dj.uuid}`,
      deadCount: 1,
    });
    expect(Date.parse(row.deadAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(JSON.parse(row.body)).toEqual({ ...poison, data: {} });

    // The same event dead again (a duplicate message): the one row is updated, not doubled.
    await deadLetter(poison);
    const rows = (await listed(token)).filter((r) => r.eventId === poison.eventId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: row.id, deadCount: 2, status: "dead" });
    // Its error and attempts survive a death the failures table knew nothing about.
    expect(rows[0]).toMatchObject({ attempts: 11, lastError: row.lastError });
    expect((await merch(`${DL}/${row.id}`, { token })).body).toMatchObject({ id: row.id });
  });

  it("a replay applies the points once: replayed twice, or an event that had in fact been applied, still counts once", async () => {
    const { token } = await admin();
    const [a, b, c] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const never = event(`never-${a}`, a, 7, Date.now());
    const applied = event(`applied-${b}`, b, 5, Date.now());
    const sentinel = event(`sentinel-${c}`, c, 1, Date.now());
    // `applied` reached its boards, then died anyway (say, its mirror write failed every time).
    expect(await deliver([applied])).toEqual({ acked: 1, retried: 0 });
    expect(await balance(b)).toBe(5);
    for (const e of [never, applied, sentinel]) await deadLetter(e);
    const id = async (e: { eventId: string }) => (await rowOf(token, e.eventId)).id;
    const [neverId, appliedId, sentinelId] = [
      await id(never),
      await id(applied),
      await id(sentinel),
    ];

    const once = await merch(`${DL}/${neverId}/replay`, { token, body: {} });
    expect(once.status, JSON.stringify(once.body)).toBe(200);
    expect(once.body).toMatchObject({ id: neverId, status: "replayed", replayCount: 1 });
    const twice = await merch(`${DL}/${neverId}/replay`, { token, body: {} });
    expect(twice.body).toMatchObject({ status: "replayed", replayCount: 2 });
    const set = await merch(`${DL}/replay`, { token, body: { ids: [appliedId, appliedId] } });
    expect(set.status).toBe(200);
    expect(set.body.replayed.map((r: Row) => r.id)).toEqual([appliedId]);
    expect(set.body.skipped).toEqual([]);

    // The real queue delivers the replays; the sentinel, sent last, is applied after them.
    await vi.waitFor(async () => expect(await balance(a)).toBe(7), { timeout: 20_000 });
    await merch(`${DL}/replay`, { token, body: { ids: [sentinelId] } });
    await vi.waitFor(async () => expect(await balance(c)).toBe(1), { timeout: 20_000 });
    expect(await balance(a)).toBe(7);
    expect(await balance(b)).toBe(5);
    const mirrored = await env.DB.prepare(
      "SELECT balance FROM ranking_status_lifetime WHERE user_uuid = ?",
    )
      .bind(a)
      .first<{ balance: number }>();
    expect(mirrored?.balance).toBe(7);
  });

  it("an event too old for the boards' dedupe window is not replayed (409 alone, skipped in a set)", async () => {
    const { token } = await admin();
    const u = crypto.randomUUID();
    const old = event(`old-${u}`, u, 2, Date.now() - 40 * DAY);
    await deadLetter(old);
    const { id } = await rowOf(token, old.eventId);
    const one = await merch(`${DL}/${id}/replay`, { token, body: {} });
    expect(one.status).toBe(409);
    expect(one.body.message).toBe(MSG.deadLetterExpired(29));
    const set = await merch(`${DL}/replay`, { token, body: { ids: [id] } });
    expect(set.body).toEqual({
      replayed: [],
      skipped: [{ id, reason: "expired", message: MSG.deadLetterExpired(29) }],
    });
    expect((await rowOf(token, old.eventId)).status).toBe("dead");
  });

  it("a body that is not an event is acked at once, never retried, and kept as invalid; it cannot be replayed, only discarded", async () => {
    const { token } = await admin();
    const tag = crypto.randomUUID();
    const r = await run("hangout-points", [
      { id: `bad-${tag}`, body: { eventId: `bad-${tag}`, points: 1.5 } },
      { id: `text-${tag}`, body: "not an object" },
    ]);
    expect(r).toMatchObject({ acked: [`bad-${tag}`, `text-${tag}`], retried: [] });

    const invalid = await listed(token, "status=invalid&take=100");
    const bad = invalid.find((x) => x.eventId === `bad-${tag}`)!;
    expect(bad).toMatchObject({ status: "invalid", points: null, attempts: 1 });
    expect(bad.lastError).toMatch(/userUuid/);
    expect(bad.lastError).toMatch(/points/);
    expect(JSON.parse(bad.body)).toEqual({ eventId: `bad-${tag}`, points: 1.5 });
    expect(invalid.some((x) => x.body === '"not an object"')).toBe(true);
    expect(await listed(token, "status=dead&take=100")).not.toContainEqual(
      expect.objectContaining({ id: bad.id }),
    );

    // A well-formed event whose points would push a balance past 2^53 (where the boards'
    // arithmetic loses precision) is invalid too, never applied.
    const huge = {
      eventId: `huge-${tag}`,
      userUuid: crypto.randomUUID(),
      points: 2 ** 53,
      occurredAt: Date.now(),
      source: "service",
    };
    const h = await run("hangout-points", [{ id: `huge-${tag}`, body: huge }]);
    expect(h).toMatchObject({ acked: [`huge-${tag}`], retried: [] });
    expect(await rowOf(token, `huge-${tag}`)).toMatchObject({ status: "invalid" });

    // One that reached the dead-letter queue anyway (its recording failed every time) is kept too.
    await deadLetter({ eventId: `late-${tag}` }, `late-${tag}`);
    expect(await rowOf(token, `late-${tag}`)).toMatchObject({ status: "invalid", attempts: 0 });

    const replay = await merch(`${DL}/${bad.id}/replay`, { token, body: {} });
    expect(replay.status).toBe(409);
    expect(replay.body.message).toBe(MSG.deadLetterInvalid);
    for (let i = 0; i < 2; i++) {
      const discard = await merch(`${DL}/${bad.id}/discard`, { token, body: {} });
      expect(discard.status).toBe(200);
      expect(discard.body).toMatchObject({ id: bad.id, status: "discarded" });
    }
  });

  it("lists newest death first, pages with take/skip (take over 100 is 400, as every take/skip list), filters by status and counts each", async () => {
    const { token } = await admin();
    const u = crypto.randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const e = event(`page-${i}-${u}`, u, 1, Date.now());
      ids.push(e.eventId);
      await deadLetter(e);
      await new Promise((r) => setTimeout(r, 5));
    }
    const first = await merch(`${DL}?take=1`, { token });
    expect(first.status).toBe(200);
    expect(first.body.data.map((r: Row) => r.eventId)).toEqual([ids[2]]);
    expect(first.body).toMatchObject({ take: 1, skip: 0 });
    const second = await merch(`${DL}?take=1&skip=1`, { token });
    expect(second.body.data.map((r: Row) => r.eventId)).toEqual([ids[1]]);
    const all = await merch(`${DL}?take=100&status=dead`, { token });
    expect(all.body.total).toBe(all.body.counts.dead);
    expect(all.body.data.every((r: Row) => r.status === "dead")).toBe(true);
    expect(Object.keys(all.body.counts).sort()).toEqual([
      "dead",
      "discarded",
      "invalid",
      "replayed",
    ]);

    for (const q of [
      "take=1000",
      "take=101",
      "take=0",
      "skip=-1",
      "skip=10001",
      "status=lost",
      "take=x",
    ]) {
      const res = await merch(`${DL}?${q}`, { token });
      expect(res.status, q).toBe(400);
      expect(res.body.statusCode).toBe(400);
    }
    expect((await merch(`${DL}?take=100&skip=10000`, { token })).status).toBe(200);
  });

  it("every route refuses a missing token (401) and a plain user (403); bad ids are 400 or 404, never 500", async () => {
    const { token } = await admin();
    const plain = await signUp();
    const u = crypto.randomUUID();
    const e = event(`guard-${u}`, u, 1, Date.now());
    await deadLetter(e);
    const { id } = await rowOf(token, e.eventId);
    const routes: { path: string; body?: unknown }[] = [
      { path: DL },
      { path: `${DL}/${id}` },
      { path: `${DL}/${id}/replay`, body: {} },
      { path: `${DL}/replay`, body: { ids: [id] } },
      { path: `${DL}/${id}/discard`, body: {} },
    ];
    for (const r of routes) {
      expect((await merch(r.path, { body: r.body })).status, r.path).toBe(401);
      expect((await merch(r.path, { body: r.body, token: plain.token })).status, r.path).toBe(403);
    }
    // Nothing a refused caller sent changed the row.
    expect((await rowOf(token, e.eventId)).status).toBe("dead");

    const bad: [string, unknown, number][] = [
      [`${DL}/abc`, undefined, 400],
      [`${DL}/0`, undefined, 400],
      [`${DL}/1.5`, undefined, 400],
      [`${DL}/999999999`, undefined, 404],
      [`${DL}/abc/replay`, {}, 400],
      [`${DL}/999999999/replay`, {}, 404],
      [`${DL}/999999999/discard`, {}, 404],
      [`${DL}/-3/discard`, {}, 400],
      [`${DL}/replay`, {}, 400],
      [`${DL}/replay`, { ids: [] }, 400],
      [`${DL}/replay`, { ids: "1" }, 400],
      [`${DL}/replay`, { ids: ["a"] }, 400],
      [`${DL}/replay`, { ids: Array.from({ length: 101 }, (_, i) => i + 1) }, 400],
      [`${DL}/replay`, "not json", 400],
    ];
    for (const [path, body, status] of bad) {
      const res = await merch(path, { token, body });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(status);
    }
    // A set naming an unknown id is 404 with the id, and sends nothing.
    const mixed = await merch(`${DL}/replay`, { token, body: { ids: [id, 999999999] } });
    expect(mixed.status).toBe(404);
    expect(mixed.body.message).toBe(MSG.deadLettersNotFound([999999999]));
    expect((await rowOf(token, e.eventId)).status).toBe("dead");
  });
});
