/**
 * Who a Leaderboard hides: deactivated accounts (issue 15: deactivation hides rankings,
 * reactivation restores them). A hidden user keeps their row in `points` and goes on
 * earning (the ledger is kept and every event still applies exactly once), but is left out
 * of the pages, the count and everyone's rank: the counts a rank is read from
 * (leaderboard-ranks.ts) are of visible users only. Unhiding puts them back at their
 * balance as it is then.
 *
 * `hidden_users` holds one row per hidden user, whether or not they have points on this
 * board yet (points that arrive while hidden stay hidden). Who is deactivated is D1's
 * `users.deactivated`: the board-visibility job (workers/queues/board-visibility.ts) copies
 * it to every board after each deactivate and reactivate, and a board seeing this table for
 * the first time (a new season's board, or any board made before this table existed) copies
 * the accounts deactivated at that moment, so no board ever starts out showing them.
 */

const HIDDEN_TABLE = `CREATE TABLE IF NOT EXISTS hidden_users (
  user_uuid TEXT PRIMARY KEY,
  hidden_at INTEGER NOT NULL
) WITHOUT ROWID`;

/** D1 rows one read of the deactivated accounts takes (it pages on, by uuid). */
const PAGE = 1000;

/** A page of deactivated accounts: a range of the partial index users_deactivated_idx. */
export const DEACTIVATED_PAGE_SQL = `SELECT uuid FROM users WHERE deactivated = 1 AND uuid > ? ORDER BY uuid LIMIT ?`;

/** Every deactivated account's uuid, read from D1 a page at a time. */
export async function deactivatedAccounts(d1: D1Database): Promise<string[]> {
  const out: string[] = [];
  for (let after = ""; ;) {
    const { results } = await d1
      .prepare(DEACTIVATED_PAGE_SQL)
      .bind(after, PAGE)
      .all<{ uuid: string }>();
    out.push(...results.map((r) => r.uuid));
    if (results.length < PAGE) return out;
    after = results[results.length - 1].uuid;
  }
}

const hasTable = (sql: SqlStorage, table: string) =>
  sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM pragma_table_info(?)`, table).one().n > 0;

/**
 * Creates `hidden_users` the first time, filled with `deactivated()` (D1's deactivated
 * accounts) in the same transaction; if any of them had points here, the rank counts are
 * dropped for migrateRanks to refill from the visible users (run it next).
 * The D1 read comes first, so a failed read leaves the board as it was (the next start
 * tries again); a board that has the table is never refilled.
 */
export async function migrateHidden(
  storage: DurableObjectStorage,
  deactivated: () => Promise<string[]>,
): Promise<void> {
  const sql = storage.sql;
  if (hasTable(sql, "hidden_users")) return;
  const uuids = await deactivated();
  const now = Date.now();
  storage.transactionSync(() => {
    sql.exec(HIDDEN_TABLE);
    for (const uuid of uuids)
      sql.exec(
        `INSERT INTO hidden_users (user_uuid, hidden_at) VALUES (?, ?) ON CONFLICT DO NOTHING`,
        uuid,
        now,
      );
    // Counts made before hiding existed count these users: dropped, to be refilled from the
    // visible users by migrateRanks, which runs next in the same start-up gate.
    const counted =
      uuids.length > 0 &&
      sql
        .exec<{ n: number }>(
          `SELECT COUNT(*) AS n FROM points WHERE user_uuid IN (SELECT user_uuid FROM hidden_users)`,
        )
        .one().n > 0;
    if (counted) {
      sql.exec(`DROP TABLE IF EXISTS balance_counts`);
      sql.exec(`DROP TABLE IF EXISTS balance_buckets`);
    }
  });
}

/** The board's hidden set: every change runs inside the caller's transaction. */
export class HiddenUsers {
  readonly #sql: SqlStorage;
  /** How many are hidden, counted once then kept by the writes; null: count again. */
  #count: number | null = null;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Whether anyone is hidden: when no one is, the reads skip the filter. */
  any(): boolean {
    this.#count ??= this.#sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM hidden_users`).one().n;
    return this.#count > 0;
  }

  has(userUuid: string): boolean {
    if (!this.any()) return false;
    return (
      this.#sql.exec(`SELECT 1 FROM hidden_users WHERE user_uuid = ?`, userUuid).toArray().length >
      0
    );
  }

  /** Sets the flag; true when it changed. */
  set(userUuid: string, hidden: boolean, now: number): boolean {
    const changed = hidden
      ? this.#sql
          .exec(
            `INSERT INTO hidden_users (user_uuid, hidden_at) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING user_uuid`,
            userUuid,
            now,
          )
          .toArray().length > 0
      : this.#sql
          .exec(`DELETE FROM hidden_users WHERE user_uuid = ? RETURNING user_uuid`, userUuid)
          .toArray().length > 0;
    if (changed && this.#count !== null) this.#count += hidden ? 1 : -1;
    return changed;
  }

  /** A rolled-back write may have moved the count: count again next time. */
  forget() {
    this.#count = null;
  }
}
