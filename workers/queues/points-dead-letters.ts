import { sql } from "drizzle-orm";
import type { z } from "zod";
import { batchOf, db, type DB } from "../db/client";
import { pointsDeadLetters, pointsFailures } from "../db/schema";
import type { Env } from "../env";
import { pointsMessage } from "./points-message";

/**
 * Points are never lost silently (issue 12). The points queue's consumer retries a failing
 * event 10 times (wrangler.toml); then Queues moves the message to `hangout-points-dlq`,
 * whose consumer (below) keeps it in D1's `points_dead_letters` with the last error the
 * points consumer noted (points-failures.ts). A body that can never be an event is not
 * retried at all: the points consumer records it here as `invalid` and acks it. Admins list,
 * replay and discard dead letters (workers/merch-service/points/admin-dead-letters.ts).
 */

/** The dead-letter queue of `hangout-points` (wrangler.toml). */
export const POINTS_DLQ = "hangout-points-dlq";

/**
 * The longest body kept. A Queues message may hold 128 KB, but an event's own fields are a
 * few hundred bytes; only `data` (free-form context) can be large.
 */
export const DEAD_BODY_MAX = 8_192;
/** Resolved and invalid rows are kept this long after they died; `dead` rows until an admin acts. */
const KEEP_RESOLVED_MS = 30 * 86_400_000;
const PRUNE_PER_WRITE = 100;

type PointsEventBody = z.output<typeof pointsMessage>;
type DeadLetterInsert = typeof pointsDeadLetters.$inferInsert;

/**
 * The body a replay sends: the event as parsed. Should `data` make it too big to keep, `data`
 * is replaced by a marker: the boards use only the id, user, points and time.
 */
export function storedBody(e: PointsEventBody): string {
  const full = JSON.stringify(e);
  return full.length <= DEAD_BODY_MAX ? full : JSON.stringify({ ...e, data: { truncated: true } });
}

/** Any other body as text for the admin to read: JSON where it can be, cut to the cap. */
export function rawBody(body: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(body) ?? String(body);
  } catch {
    try {
      text = String(body);
    } catch {
      text = "[a body that cannot be shown as text]";
    }
  }
  return text.slice(0, DEAD_BODY_MAX);
}

/** What the failures table knew about an event. */
interface Known {
  attempts: number;
  lastError: string;
  firstFailedAt: number;
}

function eventRow(e: PointsEventBody, known: Known | undefined, now: number): DeadLetterInsert {
  return {
    dedupeKey: e.eventId,
    eventId: e.eventId,
    userUuid: e.userUuid,
    points: e.points,
    occurredAt: e.occurredAt,
    source: e.source,
    body: storedBody(e),
    status: "dead",
    attempts: known?.attempts ?? 0,
    lastError: known?.lastError ?? null,
    firstFailedAt: known?.firstFailedAt ?? now,
    deadAt: now,
  };
}

/** A field of a body that is not an event, when it looks like what it should be. */
const looseText = (v: unknown) => (typeof v === "string" && v ? v.slice(0, 200) : null);
const looseInt = (v: unknown) => (Number.isSafeInteger(v) ? (v as number) : null);

export interface InvalidMessage {
  /** The queue message id: the row's key, since the body's own id cannot be trusted. */
  id: string;
  body: unknown;
  error: string;
  attempts: number;
}

function invalidRow(m: InvalidMessage, now: number): DeadLetterInsert {
  const b = (m.body && typeof m.body === "object" ? m.body : {}) as Record<string, unknown>;
  return {
    dedupeKey: `invalid:${m.id}`,
    eventId: looseText(b.eventId),
    userUuid: looseText(b.userUuid),
    points: looseInt(b.points),
    occurredAt: looseInt(b.occurredAt),
    source: looseText(b.source)?.slice(0, 20) ?? null,
    body: rawBody(m.body),
    status: "invalid",
    attempts: m.attempts,
    lastError: m.error,
    firstFailedAt: now,
    deadAt: now,
  };
}

/**
 * One dead letter, inserted or, for an event already here (it died before, was replayed and
 * died again), updated: the new body, error and time, one more death, status dead again.
 */
function upsert(d: DB, row: DeadLetterInsert) {
  const t = pointsDeadLetters;
  return d
    .insert(t)
    .values(row)
    .onConflictDoUpdate({
      target: t.dedupeKey,
      set: {
        body: sql`excluded.body`,
        status: sql`excluded.status`,
        // 0 is "not known" (no failure was noted): keep what an earlier death knew.
        attempts: sql`coalesce(nullif(excluded.attempts, 0), ${t.attempts})`,
        lastError: sql`coalesce(excluded.last_error, ${t.lastError})`,
        firstFailedAt: sql`min(${t.firstFailedAt}, excluded.first_failed_at)`,
        deadAt: sql`excluded.dead_at`,
        deadCount: sql`${t.deadCount} + 1`,
        updatedAt: sql`excluded.updated_at`,
      },
    });
}

/** Forgets a few resolved or invalid rows that died over KEEP_RESOLVED_MS ago (index range). */
const prune = (d: DB, now: number) =>
  d
    .delete(pointsDeadLetters)
    .where(
      sql`${pointsDeadLetters.id} in (select id from points_dead_letters where status in ('invalid', 'replayed', 'discarded') and dead_at < ${now - KEEP_RESOLVED_MS} order by dead_at limit ${PRUNE_PER_WRITE})`,
    );

/**
 * Records bodies that are not points events as `invalid` dead letters, in one transaction.
 * Throws when D1 fails: the caller then retries them rather than acking them unrecorded.
 */
export async function recordInvalid(env: Env, messages: InvalidMessage[], now = Date.now()) {
  if (messages.length === 0) return;
  const d = db(env);
  await d.batch(batchOf([...messages.map((m) => upsert(d, invalidRow(m, now))), prune(d, now)]));
}

/** A zod failure as one line for the admin. */
export const issuesText = (issues: z.core.$ZodIssue[]) =>
  issues
    .map((i) => `${i.path.join(".") || "body"}: ${i.message}`)
    .join("; ")
    .slice(0, 1_000);

/**
 * The dead-letter queue's consumer: every message becomes a dead letter (with its last error
 * and attempts from points_failures, whose rows it takes), in one D1 transaction, then the
 * batch is acked. If D1 fails the batch is retried (max_retries in wrangler.toml).
 */
export async function consumePointsDeadLetters(batch: MessageBatch<unknown>, env: Env) {
  const now = Date.now();
  const events: PointsEventBody[] = [];
  const invalid: InvalidMessage[] = [];
  for (const m of batch.messages) {
    const r = pointsMessage.safeParse(m.body);
    if (r.success) events.push(r.data);
    else invalid.push({ id: m.id, body: m.body, error: issuesText(r.error.issues), attempts: 0 });
  }
  const d = db(env);
  try {
    const ids = JSON.stringify(events.map((e) => e.eventId));
    const inIds = sql`${pointsFailures.eventId} in (select value from json_each(${ids}))`;
    const known = events.length ? await d.select().from(pointsFailures).where(inIds).all() : [];
    const byId = new Map(known.map((f) => [f.eventId, f]));
    await d.batch(
      batchOf([
        ...events.map((e) => upsert(d, eventRow(e, byId.get(e.eventId), now))),
        ...invalid.map((m) => upsert(d, invalidRow(m, now))),
        d.delete(pointsFailures).where(inIds),
        prune(d, now),
      ]),
    );
    for (const e of events)
      console.warn(
        `points: event ${e.eventId} dead-lettered (${byId.get(e.eventId)?.lastError ?? "no error noted"})`,
      );
    batch.ackAll();
  } catch (e) {
    console.error("points dead letters: storing failed; retrying the batch", e);
    batch.retryAll();
  }
}
