import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../workers/app";
import { seasonBoard, type PointsMessage } from "../workers/queues/points";
import { call, type CallInit } from "./helpers";

/** Points tests' helpers: the merch-service client, fresh season windows, queue delivery. */

export const merch = (path: string, init?: CallInit) => call("merch-service", path, init);

const DAY = 86_400_000;
let slot = 0;
/**
 * A window no other test of the file uses: seasons never overlap, and D1 is shared by the
 * tests of one file, so each test takes its own stretch of 2040s time.
 */
export function freshWindow(days = 10): { start: number; end: number } {
  const start = Date.UTC(2040, 0, 1) + slot++ * 400 * DAY;
  return { start, end: start + days * DAY };
}

export async function createSeason(token: string, name: string, start: number, end: number) {
  const res = await merch("/points/season", {
    token,
    body: { name, startDate: new Date(start).toISOString(), endDate: new Date(end).toISOString() },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; name: string; startDate: string; endDate: string };
}

/**
 * A season as time leaves it: created earlier through the API and now running or over. The
 * API refuses a start in the past, so a test that needs such a season writes its row and
 * its board's window directly, as creating it back then would have.
 */
export async function seedSeason(name: string, start: number, end: number) {
  const row = await env.DB.prepare(
    "INSERT INTO seasons (name, start_date, end_date) VALUES (?, ?, ?) RETURNING id",
  )
    .bind(name, start, end)
    .first<{ id: number }>();
  await env.Leaderboard.getByName(seasonBoard(row!.id)).setWindow(start, end);
  const iso = (t: number) => new Date(t).toISOString();
  return { id: row!.id, name, startDate: iso(start), endDate: iso(end) };
}

export const event = (
  eventId: string,
  userUuid: string,
  points: number,
  occurredAt: number,
): PointsMessage => ({ eventId, userUuid, points, occurredAt, source: "service", data: {} });

/**
 * Runs the real consumer on `bodies`, `size` messages a batch (the configured batch size),
 * and answers the ids it acked and retried.
 */
export async function deliver(
  bodies: unknown[],
  size = 100,
): Promise<{ acked: number; retried: number }> {
  let acked = 0;
  let retried = 0;
  for (let i = 0; i < bodies.length; i += size) {
    const batch = createMessageBatch(
      "hangout-points",
      bodies
        .slice(i, i + size)
        .map((body, k) => ({ id: `m${i + k}`, timestamp: new Date(), attempts: 1, body })),
    );
    const ctx = createExecutionContext();
    await worker.queue!(batch as MessageBatch, env);
    const r = await getQueueResult(batch, ctx);
    acked += r.explicitAcks.length;
    retried += r.retryMessages.length;
  }
  return { acked, retried };
}

/** A seeded shuffle, so a failure can be replayed. */
export function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
