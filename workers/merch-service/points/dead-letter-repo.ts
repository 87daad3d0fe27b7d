import { and, count, desc, eq, lte, sql } from "drizzle-orm";
import { DEDUPE_WINDOW_MS } from "../../../durable/leaderboard";
import { db } from "../../db/client";
import {
  DEAD_LETTER_STATUSES,
  pointsDeadLetters,
  type DeadLetterRow,
  type DeadLetterStatus,
} from "../../db/schema";
import type { Env } from "../../env";
import { notFound } from "../../lib/errors";
import { pointsMessage, type PointsMessage } from "../../queues/points";
import { MSG } from "../messages";
import { withProfiles } from "./ranking-repo";

/**
 * D1 access for the points dead letters (issue 12): the admin's paged list, replays and
 * discards. Rows are written by the queue consumers (workers/queues/points-dead-letters.ts).
 */

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** A dead letter as the admin API answers it, with the user's nickname. */
export function deadLetterDto(r: DeadLetterRow, nickname: string | null = null) {
  return {
    id: r.id,
    eventId: r.eventId,
    userUuid: r.userUuid,
    nickname,
    points: r.points,
    occurredAt: iso(r.occurredAt),
    source: r.source,
    status: r.status,
    attempts: r.attempts,
    lastError: r.lastError,
    firstFailedAt: iso(r.firstFailedAt),
    deadAt: iso(r.deadAt),
    deadCount: r.deadCount,
    replayedAt: iso(r.replayedAt),
    replayCount: r.replayCount,
    resolvedBy: r.resolvedBy,
    body: r.body,
  };
}
export type DeadLetterDto = ReturnType<typeof deadLetterDto>;

/** Rows as DTOs with nicknames (one D1 read for the page). */
async function named(env: Env, rows: DeadLetterRow[]): Promise<DeadLetterDto[]> {
  const p = await withProfiles(
    env,
    rows.map((r) => ({ userUuid: r.userUuid ?? "", balance: 0, rank: 0 })),
  );
  return rows.map((r, i) => deadLetterDto(r, p[i].nickname));
}

/**
 * One page, newest death first (id breaks ties), optionally of one status, with the total
 * for the filter and the count of every status (what the admin page's tabs show).
 */
export async function listDeadLetters(
  env: Env,
  q: { take: number; skip: number; status?: DeadLetterStatus },
) {
  const d = db(env);
  const t = pointsDeadLetters;
  const where = q.status ? eq(t.status, q.status) : undefined;
  const [rows, byStatus] = await d.batch([
    d
      .select()
      .from(t)
      .where(where)
      .orderBy(desc(t.deadAt), desc(t.id))
      .limit(q.take)
      .offset(q.skip),
    d.select({ status: t.status, n: count() }).from(t).groupBy(t.status),
  ]);
  const counts = Object.fromEntries(DEAD_LETTER_STATUSES.map((s) => [s, 0])) as Record<
    DeadLetterStatus,
    number
  >;
  for (const s of byStatus) if (s.status in counts) counts[s.status] = s.n;
  const total = q.status ? counts[q.status] : byStatus.reduce((n, s) => n + s.n, 0);
  return { data: await named(env, rows), total, take: q.take, skip: q.skip, counts };
}

/** `id in ids`, the list bound as one JSON value (D1 binds at most 100 values a statement). */
const idIn = (ids: number[]) =>
  sql`${pointsDeadLetters.id} in (select value from json_each(${JSON.stringify(ids)}))`;

async function rowsOr404(env: Env, ids: number[]): Promise<DeadLetterRow[]> {
  const rows = await db(env).select().from(pointsDeadLetters).where(idIn(ids)).all();
  const missing = ids.filter((id) => !rows.some((r) => r.id === id));
  if (missing.length === 1 && ids.length === 1) throw notFound(MSG.deadLetterNotFound);
  if (missing.length) throw notFound(MSG.deadLettersNotFound(missing));
  return rows;
}

export async function getDeadLetter(env: Env, id: number): Promise<DeadLetterDto> {
  const [row] = await rowsOr404(env, [id]);
  return (await named(env, [row]))[0];
}

/**
 * A replay must end before the boards forget the event's id (durable/leaderboard.ts): an
 * hour of margin for the queue to deliver it. An older event would be refused by age anyway.
 */
const REPLAY_WINDOW_MS = DEDUPE_WINDOW_MS - 3_600_000;

export type SkipReason = "invalid" | "expired";

/** What a replay sends for `row`, or why it cannot be replayed. */
function replayable(row: DeadLetterRow, now: number): PointsMessage | SkipReason {
  if (row.status === "invalid") return "invalid";
  let body: unknown;
  try {
    body = JSON.parse(row.body);
  } catch {
    return "invalid";
  }
  const r = pointsMessage.safeParse(body);
  if (!r.success) return "invalid";
  if (r.data.occurredAt < now - REPLAY_WINDOW_MS) return "expired";
  return r.data;
}

export const skipMessage = (reason: SkipReason) =>
  reason === "invalid"
    ? MSG.deadLetterInvalid
    : MSG.deadLetterExpired(Math.floor(REPLAY_WINDOW_MS / 86_400_000));

/**
 * Sends the original events of `ids` to the points queue again and marks them replayed.
 * Safe to repeat: the boards count an event id once, so a second replay, or a replay of an
 * event that had in fact been applied before it died, changes no balance. Rows that cannot
 * be replayed are answered as skipped, untouched. The status is set after the send, and only
 * on rows that have not died again since (a newer death stays `dead`). 404 when an id is
 * unknown, before anything is sent.
 */
export async function replayDeadLetters(env: Env, ids: number[], by: string) {
  const rows = await rowsOr404(env, ids);
  const now = Date.now();
  const ready: { row: DeadLetterRow; body: PointsMessage }[] = [];
  const skipped: { id: number; reason: SkipReason; message: string }[] = [];
  for (const row of rows) {
    const r = replayable(row, now);
    if (typeof r === "string") skipped.push({ id: row.id, reason: r, message: skipMessage(r) });
    else ready.push({ row, body: r });
  }
  if (ready.length) {
    await env.POINTS.sendBatch(ready.map((r) => ({ body: r.body })));
    const t = pointsDeadLetters;
    await db(env)
      .update(t)
      .set({
        status: "replayed",
        replayedAt: now,
        replayCount: sql`${t.replayCount} + 1`,
        resolvedBy: by,
        updatedAt: now,
      })
      .where(and(idIn(ready.map((r) => r.row.id)), lte(t.deadAt, now)))
      .run();
  }
  const after = ready.length
    ? await rowsOr404(
        env,
        ready.map((r) => r.row.id),
      )
    : [];
  return { replayed: await named(env, after), skipped };
}

/**
 * Marks a dead letter discarded: nothing is sent, and the row stays for the record (pruned
 * with the other resolved rows). Repeating it changes nothing more.
 */
export async function discardDeadLetter(env: Env, id: number, by: string) {
  await rowsOr404(env, [id]);
  await db(env)
    .update(pointsDeadLetters)
    .set({ status: "discarded", resolvedBy: by, updatedAt: Date.now() })
    .where(eq(pointsDeadLetters.id, id))
    .run();
  return getDeadLetter(env, id);
}
