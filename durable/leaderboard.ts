/**
 * Leaderboard: one durable object per season (and one named "lifetime"), holding every
 * user's points and answering ranks. Points arrive by RPC with an event id (from the
 * points queue consumer, a later issue); ranks are read with take/skip.
 *
 * This first version stores points and ranks. Season boundaries, avatar awards and the
 * ranking-status endpoints come in later issues.
 *
 * Invariants:
 * - An event id is applied at most once: the `applied_events` row and the balance change
 *   are written in one transaction, so a retried or duplicated event changes nothing, in
 *   any order. An event id names one event: reusing it for another user or amount is refused.
 * - A balance is exactly the sum of the points of the events applied to that user.
 * - Order is balance descending, then user uuid ascending, so ties always list the same
 *   way. Rank is competition ranking: 1 + the number of users with strictly more points
 *   (two users on 50 points are both 2nd if one user has more; the next is 4th).
 * - Every method body is synchronous, so concurrent calls never interleave.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../workers/env";

export interface AddPointsResult {
  /** False when this event id had been applied before (nothing changed). */
  applied: boolean;
  /** The user's balance after the call. */
  balance: number;
}

export interface RankedUser {
  userUuid: string;
  balance: number;
  rank: number;
}

type EventRow = { user_uuid: string; points: number };

/** The most rows one `top` call returns. */
export const MAX_TAKE = 1000;
const MAX_ID_LENGTH = 200;

function checkId(name: string, value: unknown): asserts value is string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw new Error(`${name} must be a string of 1 to ${MAX_ID_LENGTH} characters.`);
  }
}

export class Leaderboard extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Schema before any call is served: the gate holds every request until this finishes.
    ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      sql.exec(`CREATE TABLE IF NOT EXISTS points (
        user_uuid TEXT PRIMARY KEY,
        balance INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`);
      // Serves both the ordered page (top) and the "strictly more points" count (rank).
      sql.exec(`CREATE INDEX IF NOT EXISTS points_by_rank ON points (balance DESC, user_uuid)`);
      // user_uuid and points are kept so a reused event id with other content is caught.
      sql.exec(`CREATE TABLE IF NOT EXISTS applied_events (
        event_id TEXT PRIMARY KEY,
        user_uuid TEXT NOT NULL,
        points INTEGER NOT NULL,
        applied_at INTEGER NOT NULL
      )`);
    });
  }

  /**
   * Adds `points` (an integer; negative for a correction) to a user, once per `eventId`.
   *
   * @example
   * await env.Leaderboard.getByName(seasonId).addPoints(`vote:${voteId}`, userUuid, 1)
   */
  addPoints(eventId: string, userUuid: string, points: number): AddPointsResult {
    checkId("eventId", eventId);
    checkId("userUuid", userUuid);
    if (!Number.isSafeInteger(points)) throw new Error("Points must be an integer.");
    const sql = this.ctx.storage.sql;
    return this.ctx.storage.transactionSync(() => {
      const now = Date.now();
      const inserted = sql
        .exec(`INSERT INTO applied_events (event_id, user_uuid, points, applied_at) VALUES (?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING RETURNING event_id`, eventId, userUuid, points, now)
        .toArray();
      if (inserted.length === 0) {
        const first = sql.exec<EventRow>(`SELECT user_uuid, points FROM applied_events WHERE event_id = ?`, eventId).one();
        if (first.user_uuid !== userUuid || first.points !== points) throw new Error("Event id was already used for a different user or amount.");
        return { applied: false, balance: this.#balance(userUuid) ?? 0 };
      }
      const { balance } = sql
        .exec<{ balance: number }>(
          `INSERT INTO points (user_uuid, balance, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (user_uuid) DO UPDATE SET balance = balance + excluded.balance, updated_at = excluded.updated_at
           RETURNING balance`,
          userUuid,
          points,
          now,
        )
        .one();
      return { applied: true, balance };
    });
  }

  /** One page of the ranking, best first. */
  top(take: number, skip = 0): RankedUser[] {
    if (!Number.isSafeInteger(take) || take < 0 || take > MAX_TAKE) throw new Error(`take must be an integer from 0 to ${MAX_TAKE}.`);
    if (!Number.isSafeInteger(skip) || skip < 0) throw new Error("skip must be a non-negative integer.");
    const rows = this.ctx.storage.sql
      .exec<{ user_uuid: string; balance: number }>(`SELECT user_uuid, balance FROM points ORDER BY balance DESC, user_uuid ASC LIMIT ? OFFSET ?`, take, skip)
      .toArray();
    // Only the first row needs a count; after it, a row's rank is its position unless it
    // ties with the row before (everyone above a new balance has strictly more).
    const out: RankedUser[] = [];
    rows.forEach((r, i) => {
      const prev = out[i - 1];
      const rank = i === 0 ? this.#rankOfBalance(r.balance) : prev.balance === r.balance ? prev.rank : skip + i + 1;
      out.push({ userUuid: r.user_uuid, balance: r.balance, rank });
    });
    return out;
  }

  /** A user's balance and rank, or null if they have no points here. */
  rankOf(userUuid: string): RankedUser | null {
    checkId("userUuid", userUuid);
    const balance = this.#balance(userUuid);
    return balance === null ? null : { userUuid, balance, rank: this.#rankOfBalance(balance) };
  }

  #balance(userUuid: string): number | null {
    const row = this.ctx.storage.sql.exec<{ balance: number }>(`SELECT balance FROM points WHERE user_uuid = ?`, userUuid).toArray()[0];
    return row ? row.balance : null;
  }

  #rankOfBalance(balance: number): number {
    return 1 + this.ctx.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM points WHERE balance > ?`, balance).one().n;
  }
}
