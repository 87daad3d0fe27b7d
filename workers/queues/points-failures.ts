import { sql } from "drizzle-orm";
import { batchOf, db } from "../db/client";
import { pointsFailures } from "../db/schema";
import type { Env } from "../env";

/**
 * Why a points event is failing (issue 12). The dead-letter queue hands its consumer the
 * body only, so the points consumer writes each failed delivery's error here, keyed by event
 * id; the dead-letter consumer (points-dead-letters.ts) moves it onto the dead letter. These
 * writes happen only on the failure path (and once when a retried event finally succeeds),
 * never on a healthy batch.
 */

/** The longest error text kept: enough for a message and the top of a stack. */
const ERROR_MAX = 1_000;
/**
 * A row older than this is for an event that can no longer be in the queue (a message lives
 * at most 14 days): deleted, a few per write, so the table holds only events failing now.
 */
const STALE_MS = 15 * 86_400_000;
const PRUNE_PER_WRITE = 100;

/** An error as one bounded line for the admin: its name and message. */
export const errorText = (e: unknown): string =>
  (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).slice(0, ERROR_MAX);

export interface Failure {
  eventId: string;
  /** The delivery that failed (the queue's `attempts`, from 1). */
  attempts: number;
  error: string;
}

/**
 * Notes failed deliveries and forgets events that have now succeeded after failing (an acked
 * message whose `attempts` is over 1). Best effort: this runs when something is already
 * wrong (often D1 itself), so a failure here is logged and the queue's retry still happens.
 */
export async function noteOutcomes(
  env: Env,
  failed: Failure[],
  recovered: string[],
  now = Date.now(),
): Promise<void> {
  if (failed.length === 0 && recovered.length === 0) return;
  const d = db(env);
  const stmts = [];
  for (const f of failed)
    stmts.push(
      d
        .insert(pointsFailures)
        .values({
          eventId: f.eventId,
          attempts: f.attempts,
          lastError: f.error.slice(0, ERROR_MAX),
          firstFailedAt: now,
          lastFailedAt: now,
        })
        .onConflictDoUpdate({
          target: pointsFailures.eventId,
          // A later delivery of the same message counts higher; a replay starts again at 1.
          set: {
            attempts: sql`excluded.attempts`,
            lastError: sql`excluded.last_error`,
            lastFailedAt: sql`excluded.last_failed_at`,
          },
        }),
    );
  if (recovered.length)
    stmts.push(
      d
        .delete(pointsFailures)
        .where(
          sql`${pointsFailures.eventId} in (select value from json_each(${JSON.stringify(recovered)}))`,
        ),
    );
  if (failed.length)
    stmts.push(
      d
        .delete(pointsFailures)
        .where(
          sql`${pointsFailures.eventId} in (select event_id from points_failures where last_failed_at < ${now - STALE_MS} order by last_failed_at limit ${PRUNE_PER_WRITE})`,
        ),
    );
  try {
    await d.batch(batchOf(stmts));
  } catch (e) {
    console.error("points: could not note why events failed", e);
  }
}
