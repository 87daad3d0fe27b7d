/**
 * Leaderboard: one durable object per season (named `season:<id>`) and one named
 * `lifetime`, holding every user's points and answering ranks. Points arrive from the
 * points queue consumer (workers/queues/points.ts), one batch per board; ranks are read
 * with take/skip.
 *
 * Invariants:
 * - An event id is applied at most once: the `applied_events` row and the balance change
 *   are written in one transaction, so a retried or duplicated event changes nothing, in
 *   any order. An event id names one event: reusing it for another user or amount is
 *   refused (a returned outcome, never a throw: a queue consumer must not retry it forever).
 * - A balance is exactly the sum of the points of the events applied to that user, and the
 *   user's `version` is the number of those events: it only grows, so a mirror of
 *   (balance, version) written elsewhere can keep the newest and ignore a late older write.
 * - A season board knows its window [start, end) (set when the season is created or
 *   changed) and refuses an event whose occurredAt lies outside it. Once the season has
 *   ended (this object's clock is past its end) the board is frozen: it refuses every event,
 *   even one from inside the window that arrives late, so the final standings are the ones
 *   shown at the end. The lifetime board has no window. A closed board (its season was
 *   deleted) refuses all.
 * - Ids are remembered for a bounded time: an event that happened over DEDUPE_WINDOW_MS
 *   ago is refused (`expired`), and an id is forgotten only when its event is older than
 *   that by a day more (KEEP_IDS_MS). So a forgotten id can never be applied again: any
 *   replay of its event is refused for its age. Each write prunes a few of the oldest ids
 *   (PRUNE_PER_EVENT per event it carries) through an index, never a scan.
 * - Ranking pages are memoised until the next write (any write clears the memo), so a
 *   storm of reads of the same page costs one query between two writes, not one each.
 * - Order is balance descending, then user uuid ascending, so ties always list the same
 *   way. Rank is competition ranking: 1 + the number of users with strictly more points
 *   (two users on 50 points are both 2nd if one user has more; the next is 4th).
 * - A hidden user (a deactivated account: setHidden, leaderboard-hidden.ts) keeps their
 *   balance and goes on earning, but is on no page, not in the count, in no one's rank, and
 *   has no rank of their own; unhiding restores them at their balance as it is then.
 * - Every method body is synchronous (after the start-up migration), so concurrent calls
 *   never interleave.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../workers/env";
import { RANKING_MAX_SKIP } from "../shared/ranking";
import { deactivatedAccounts, HiddenUsers } from "./leaderboard-hidden";
import { BalanceRanks } from "./leaderboard-ranks";
import { migrateBoard } from "./leaderboard-schema";

/** One points event as the board takes it. */
export interface PointsEvent {
  eventId: string;
  userUuid: string;
  points: number;
  /** Epoch ms the points were earned; a season board refuses one outside its window. */
  occurredAt: number;
}

/** Why an event changed nothing (besides being a duplicate). */
export type Refusal = "outsideWindow" | "ended" | "expired" | "idReused" | "closed" | "invalid";

export interface AddPointsResult {
  /** False when this event id had been applied before, or the event was refused. */
  applied: boolean;
  /** The user's balance and version after the call. */
  balance: number;
  version: number;
  refused?: Refusal;
}

/** A user's absolute state on the board: what the ranking_status mirrors copy. */
export interface Standing {
  userUuid: string;
  balance: number;
  version: number;
}

export interface BatchResult {
  applied: number;
  duplicates: number;
  /** Event ids refused, with the reason (the consumer logs and drops them). */
  refused: { eventId: string; reason: Refusal }[];
  /** The final standing of every user the batch named (applied or not). */
  standings: Standing[];
}

export interface RankedUser {
  userUuid: string;
  balance: number;
  rank: number;
}

/** What setHidden left: the flag now, and whether this call changed it. */
export interface HiddenResult {
  hidden: boolean;
  changed: boolean;
}

export interface BoardWindow {
  startDate: number;
  endDate: number;
}

/** A `points` row's user is visible (a WHERE term). */
const VISIBLE = `user_uuid NOT IN (SELECT user_uuid FROM hidden_users)`;

type EventRow = { user_uuid: string; points: number };

/**
 * The bench's synthetic balances, user i: `ties` has ~100,000 distinct balances shared by
 * many users; `distinct` gives every user its own (7919 is invertible modulo the prime
 * 1,000,003, so up to 1,000,003 users never collide), the worst case for a per-balance count.
 */
export const BENCH_BALANCE = {
  ties: "(i * 7919) % 100003",
  distinct: "(i * 7919) % 1000003",
} as const;
export type BenchShape = keyof typeof BENCH_BALANCE;

/** The most rows one `top` call returns. */
export const MAX_TAKE = 1000;
const DAY = 86_400_000;
/**
 * How old an event may be and still apply. Longer than any redelivery can take: a Queues
 * message lives at most 14 days (the platform's longest retention), a room's outbox retries
 * for about 25 minutes, and the points routes refuse an occurredAt over 14 days back.
 */
export const DEDUPE_WINDOW_MS = 30 * DAY;
/** How long an id is kept: a day past the window (see migrateBoard for ids kept before). */
export const KEEP_IDS_MS = DEDUPE_WINDOW_MS + DAY;
/** Old ids one write deletes, per event it carries (at least PRUNE_MIN): the oldest first. */
const PRUNE_PER_EVENT = 2;
const PRUNE_MIN = 100;
/** Distinct pages memoised between two writes (a full memo is emptied, not grown). */
const MEMO_PAGES = 32;
/** The most events one `addPointsBatch` call takes (one transaction). */
export const MAX_BATCH = 10_000;
const MAX_ID_LENGTH = 200;

const validId = (value: unknown): value is string =>
  typeof value === "string" && value.length > 0 && value.length <= MAX_ID_LENGTH;

function checkId(name: string, value: unknown): asserts value is string {
  if (!validId(value))
    throw new Error(`${name} must be a string of 1 to ${MAX_ID_LENGTH} characters.`);
}

export class Leaderboard extends DurableObject<Env> {
  /**
   * How many visible users have points, counted once (a COUNT over a million rows costs tens of
   * ms) and then kept by the writes, which all run in this object. Null: count again.
   */
  #users: number | null = null;
  /** Pages answered since the last write, by `take:skip`; emptied by every write. */
  #pages = new Map<string, { rows: RankedUser[]; total: number }>();
  /** Users per balance and per bucket of balances: what a rank is read from. */
  readonly #ranks: BalanceRanks;
  /** Users left off the board (deactivated accounts). */
  readonly #hidden: HiddenUsers;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#ranks = new BalanceRanks(ctx.storage.sql);
    this.#hidden = new HiddenUsers(ctx.storage.sql);
    // Schema before any call is served: the gate holds every request until this finishes.
    ctx.blockConcurrencyWhile(async () =>
      migrateBoard(ctx.storage, () => deactivatedAccounts(env.DB)),
    );
  }

  /**
   * Hides a user from the board (true) or shows them again (false): a value, not a toggle,
   * so a repeat changes nothing. The flag and the counts move in one transaction; the
   * user's balance is untouched. The flag is kept whether or not they have points here.
   */
  setHidden(userUuid: string, hidden: boolean): HiddenResult {
    checkId("userUuid", userUuid);
    if (typeof hidden !== "boolean") throw new Error("hidden must be true or false.");
    this.#pages.clear();
    try {
      return this.ctx.storage.transactionSync(() => {
        const changed = this.#hidden.set(userUuid, hidden, Date.now());
        const b = changed ? this.#balance(userUuid) : null;
        if (b) {
          this.#ranks.move(hidden ? b.balance : null, hidden ? null : b.balance);
          if (this.#users !== null) this.#users += hidden ? -1 : 1;
        }
        return { hidden, changed };
      });
    } catch (e) {
      this.#users = null;
      this.#hidden.forget();
      throw e;
    }
  }

  /** Sets the season window [startDate, endDate); events outside it are refused from now on. */
  setWindow(startDate: number, endDate: number): BoardWindow {
    if (!Number.isSafeInteger(startDate) || !Number.isSafeInteger(endDate) || endDate <= startDate)
      throw new Error("The window needs integer dates with endDate after startDate.");
    this.ctx.storage.sql.exec(
      `INSERT INTO board_meta (id, start_date, end_date) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET start_date = excluded.start_date, end_date = excluded.end_date`,
      startDate,
      endDate,
    );
    return { startDate, endDate };
  }

  /** The window, or null for a board without one (the lifetime board). */
  window(): BoardWindow | null {
    const m = this.#meta();
    return m && m.start_date !== null && m.end_date !== null
      ? { startDate: m.start_date, endDate: m.end_date }
      : null;
  }

  /**
   * The season was deleted: forget every point and refuse every later event, so an event
   * routed here by a consumer that read the season just before the delete changes nothing.
   */
  close(): void {
    this.ctx.storage.transactionSync(() => {
      const sql = this.ctx.storage.sql;
      sql.exec(`DELETE FROM points`);
      this.#ranks.clear();
      sql.exec(`DELETE FROM applied_events`);
      sql.exec(
        `INSERT INTO board_meta (id, closed) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET closed = 1`,
      );
    });
    this.#users = 0;
    this.#pages.clear();
  }

  /**
   * Adds `points` (an integer; negative for a correction) to a user, once per `eventId`.
   *
   * @example
   * await env.Leaderboard.getByName("lifetime").addPoints(`vote:${playId}:${voter}:like`, djUuid, 1, Date.now())
   */
  addPoints(
    eventId: string,
    userUuid: string,
    points: number,
    occurredAt = Date.now(),
  ): AddPointsResult {
    checkId("eventId", eventId);
    checkId("userUuid", userUuid);
    if (!Number.isSafeInteger(points)) throw new Error("Points must be an integer.");
    return this.#write(1, () =>
      this.#apply({ eventId, userUuid, points, occurredAt }, this.#gate(), Date.now()),
    );
  }

  /**
   * Applies many events in one transaction (the consumer's path: a queue batch grouped by
   * board). Malformed events are refused one by one; the rest apply as `addPoints` would.
   */
  addPointsBatch(events: PointsEvent[]): BatchResult {
    if (!Array.isArray(events) || events.length > MAX_BATCH)
      throw new Error(`events must be a list of at most ${MAX_BATCH}.`);
    return this.#write(events.length, () => {
      const gate = this.#gate();
      const now = Date.now();
      const out: BatchResult = { applied: 0, duplicates: 0, refused: [], standings: [] };
      const touched = new Map<string, Standing>();
      for (const e of events) {
        const ok =
          e &&
          validId(e.eventId) &&
          validId(e.userUuid) &&
          Number.isSafeInteger(e.points) &&
          Number.isSafeInteger(e.occurredAt);
        if (!ok) {
          out.refused.push({ eventId: String(e?.eventId ?? ""), reason: "invalid" });
          continue;
        }
        const r = this.#apply(e, gate, now);
        if (r.refused) out.refused.push({ eventId: e.eventId, reason: r.refused });
        else if (r.applied) out.applied++;
        else out.duplicates++;
        if (r.refused !== "closed")
          touched.set(e.userUuid, { userUuid: e.userUuid, balance: r.balance, version: r.version });
      }
      out.standings = [...touched.values()];
      return out;
    });
  }

  /** One page of the ranking, best first, at most RANKING_MAX_SKIP deep. */
  top(take: number, skip = 0): RankedUser[] {
    if (!Number.isSafeInteger(take) || take < 0 || take > MAX_TAKE)
      throw new Error(`take must be an integer from 0 to ${MAX_TAKE}.`);
    if (!Number.isSafeInteger(skip) || skip < 0 || skip > RANKING_MAX_SKIP)
      throw new Error(`skip must be an integer from 0 to ${RANKING_MAX_SKIP}.`);
    // The index walk skips hidden users one lookup each; with none hidden, no lookups.
    const visible = this.#hidden.any() ? `WHERE ${VISIBLE}` : "";
    const rows = this.ctx.storage.sql
      .exec<{ user_uuid: string; balance: number }>(
        `SELECT user_uuid, balance FROM points ${visible} ORDER BY balance DESC, user_uuid ASC LIMIT ? OFFSET ?`,
        take,
        skip,
      )
      .toArray();
    // Only the first row needs a count; after it, a row's rank is its position unless it
    // ties with the row before (everyone above a new balance has strictly more).
    const out: RankedUser[] = [];
    rows.forEach((r, i) => {
      const prev = out[i - 1];
      const rank =
        i === 0
          ? this.#rankOfBalance(r.balance)
          : prev.balance === r.balance
            ? prev.rank
            : skip + i + 1;
      out.push({ userUuid: r.user_uuid, balance: r.balance, rank });
    });
    return out;
  }

  /**
   * A page and the number of users on the board, in one call (a ranking page needs both),
   * memoised until the next write: the answer is always what the board holds now.
   */
  page(take: number, skip = 0): { rows: RankedUser[]; total: number } {
    const key = `${take}:${skip}`;
    const hit = this.#pages.get(key);
    if (hit) return hit;
    const page = { rows: this.top(take, skip), total: this.count() };
    if (this.#pages.size >= MEMO_PAGES) this.#pages.clear();
    this.#pages.set(key, page);
    return page;
  }

  /** How many visible users have points here. */
  count(): number {
    this.#users ??= this.ctx.storage.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM points WHERE ${VISIBLE}`)
      .one().n;
    return this.#users;
  }

  /** A user's balance and rank, or null if they have no points here or are hidden. */
  rankOf(userUuid: string): RankedUser | null {
    checkId("userUuid", userUuid);
    if (this.#hidden.has(userUuid)) return null;
    const balance = this.#balance(userUuid)?.balance ?? null;
    return balance === null ? null : { userUuid, balance, rank: this.#rankOfBalance(balance) };
  }

  /**
   * Users at or above `threshold` points, by user uuid after `after` (a cursor), for the
   * avatar backfill: it pages through everyone who reached an avatar's threshold. Hidden
   * users included: an award is earned by the points, which a deactivated account keeps
   * (reactivation restores everything, the award with it; until then their profile, and
   * so the award, is hidden with the account).
   */
  usersAtOrAbove(threshold: number, limit: number, after = ""): Standing[] {
    if (!Number.isSafeInteger(threshold)) throw new Error("threshold must be an integer.");
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_TAKE)
      throw new Error(`limit must be an integer from 1 to ${MAX_TAKE}.`);
    return this.ctx.storage.sql
      .exec<{ user_uuid: string; balance: number; version: number }>(
        `SELECT user_uuid, balance, version FROM points WHERE balance >= ? AND user_uuid > ? ORDER BY user_uuid LIMIT ?`,
        threshold,
        String(after),
        limit,
      )
      .toArray()
      .map((r) => ({ userUuid: r.user_uuid, balance: r.balance, version: r.version }));
  }

  /**
   * Benchmarks only (bench/leaderboard.bench.mjs): inserts `count` synthetic users
   * `bench-<n>` from `from` in one statement, then recounts, in one transaction. Refused
   * outside development, so no production board can be filled with fake users.
   */
  benchLoad(from: number, count: number, shape: BenchShape = "ties"): number {
    if (this.env.ENVIRONMENT !== "development")
      throw new Error("benchLoad is for development only.");
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(count) || count < 1 || count > 500_000)
      throw new Error("bad bench range");
    if (!Object.hasOwn(BENCH_BALANCE, shape)) throw new Error("bad bench shape");
    this.#pages.clear();
    this.#users = null;
    this.ctx.storage.transactionSync(() => {
      this.ctx.storage.sql.exec(
        `WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i < ?)
         INSERT OR IGNORE INTO points (user_uuid, balance, updated_at, version)
         SELECT printf('bench-%07d', i), ${BENCH_BALANCE[shape]}, 0, 1 FROM s`,
        from,
        from + count - 1,
      );
      this.#ranks.rebuild();
    });
    return this.count();
  }

  /**
   * One write transaction carrying `events` events, which also prunes old ids; a rollback
   * also forgets the user count it may have moved. Either way the page memo is stale.
   */
  #write<T>(events: number, fn: () => T): T {
    this.#pages.clear();
    try {
      return this.ctx.storage.transactionSync(() => {
        const out = fn();
        this.#prune(Math.max(PRUNE_MIN, PRUNE_PER_EVENT * events));
        return out;
      });
    } catch (e) {
      this.#users = null;
      this.#hidden.forget();
      throw e;
    }
  }

  /**
   * Deletes up to `limit` ids whose events are older than KEEP_IDS_MS, the oldest first (an
   * index range, so the cost is the rows deleted). Deleting more than each write adds keeps
   * the table at about the ids of the last KEEP_IDS_MS, whatever the traffic.
   */
  #prune(limit: number) {
    this.ctx.storage.sql.exec(
      `DELETE FROM applied_events WHERE rowid IN (SELECT rowid FROM applied_events WHERE occurred_at < ? ORDER BY occurred_at LIMIT ?)`,
      Date.now() - KEEP_IDS_MS,
      limit,
    );
  }

  #meta() {
    return this.ctx.storage.sql
      .exec<{ start_date: number | null; end_date: number | null; closed: number }>(
        `SELECT start_date, end_date, closed FROM board_meta WHERE id = 1`,
      )
      .toArray()[0];
  }

  /** What the board accepts now, read once per transaction. */
  #gate(): { closed: boolean; window: BoardWindow | null } {
    const m = this.#meta();
    return {
      closed: !!m?.closed,
      window:
        m && m.start_date !== null && m.end_date !== null
          ? { startDate: m.start_date, endDate: m.end_date }
          : null,
    };
  }

  /** One event inside the caller's transaction. */
  #apply(
    e: PointsEvent,
    gate: { closed: boolean; window: BoardWindow | null },
    now: number,
  ): AddPointsResult {
    const sql = this.ctx.storage.sql;
    const standing = () => this.#balance(e.userUuid) ?? { balance: 0, version: 0 };
    if (gate.closed) return { applied: false, balance: 0, version: 0, refused: "closed" };
    if (
      gate.window &&
      (e.occurredAt < gate.window.startDate || e.occurredAt >= gate.window.endDate)
    )
      return { applied: false, ...standing(), refused: "outsideWindow" };
    // A frozen board: the season is over, however late its own events arrive.
    if (gate.window && now >= gate.window.endDate)
      return { applied: false, ...standing(), refused: "ended" };
    // Too old for its id to be remembered: applying it could count it twice.
    if (e.occurredAt < now - DEDUPE_WINDOW_MS)
      return { applied: false, ...standing(), refused: "expired" };
    const inserted = sql
      .exec(
        `INSERT INTO applied_events (event_id, user_uuid, points, applied_at, occurred_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
        e.eventId,
        e.userUuid,
        e.points,
        now,
        e.occurredAt,
      )
      .toArray();
    if (inserted.length === 0) {
      const first = sql
        .exec<EventRow>(
          `SELECT user_uuid, points FROM applied_events WHERE event_id = ?`,
          e.eventId,
        )
        .one();
      const reused = first.user_uuid !== e.userUuid || first.points !== e.points;
      return { applied: false, ...standing(), ...(reused ? { refused: "idReused" as const } : {}) };
    }
    const row = sql
      .exec<{ balance: number; version: number }>(
        `INSERT INTO points (user_uuid, balance, updated_at, version) VALUES (?, ?, ?, 1)
         ON CONFLICT (user_uuid) DO UPDATE SET balance = balance + excluded.balance, updated_at = excluded.updated_at, version = version + 1
         RETURNING balance, version`,
        e.userUuid,
        e.points,
        now,
      )
      .one();
    // A hidden user's balance moves, but neither the count nor the ranks (they hold the
    // visible users only).
    if (this.#hidden.has(e.userUuid)) return { applied: true, ...row };
    // Version 1 is the user's first event here: a new row (#write forgets the count if
    // the transaction rolls back).
    if (row.version === 1 && this.#users !== null) this.#users++;
    this.#ranks.move(row.version === 1 ? null : row.balance - e.points, row.balance);
    return { applied: true, balance: row.balance, version: row.version };
  }

  #balance(userUuid: string): { balance: number; version: number } | null {
    return (
      this.ctx.storage.sql
        .exec<{ balance: number; version: number }>(
          `SELECT balance, version FROM points WHERE user_uuid = ?`,
          userUuid,
        )
        .toArray()[0] ?? null
    );
  }

  /** Competition rank: 1 + the users with strictly more (leaderboard-ranks.ts, <= 240 rows). */
  #rankOfBalance(balance: number): number {
    return 1 + this.#ranks.usersAbove(balance);
  }
}
