/**
 * How a Leaderboard answers "how many users have strictly more points than B" without
 * walking everyone (or every distinct balance) above B: counts kept at several
 * granularities in the board's SQLite, a 16-ary tree of prefix sums over the balance.
 *
 * - `balance_counts (balance, n)`: users per exact balance (the leaves).
 * - `balance_buckets (level, bucket, n)`: users per bucket `balance >> (4 * level)`, for
 *   levels 1 to 15. SQLite's `>>` is an arithmetic shift (floor), so buckets keep the order
 *   of balances, negative ones included; a level-L bucket `p` has the 16 level-(L-1)
 *   children `(p << 4)` to `(p << 4) | 15`. Level 15 (`>> 60`) has at most 16 buckets (-8 to
 *   7), which cover every 64-bit integer, so no offset or range limit is needed.
 *
 * The users above B are those on a higher balance in B's own level-1 bucket, plus, at each
 * level, those in the higher siblings of B's bucket (the buckets that share its parent),
 * plus, at level 15, every higher bucket: each user above B is counted once, at the level
 * just below the lowest bucket they share with B. Every one of those 16 sums is an index
 * range of at most 15 rows, so a rank reads at most 16 x 15 = 240 rows whatever the board
 * holds (a million distinct balances used to mean a million-row scan). Balances near zero
 * leave the high levels with one bucket each, so most of those ranges are empty.
 *
 * Writes: a user arriving on a balance adds 1 to its leaf and to its bucket at each of the
 * 15 levels; a balance moving from A to B moves 1 at the leaf and at each level where A's
 * and B's buckets differ, stopping at the first level where they agree (everything above
 * agrees too). A vote's +1 or +2 usually stays in its bucket (one leaf moves), crosses a
 * level-1 boundary one time in 16, a level-2 one time in 256. Rows at 0 are deleted, so
 * the tables are exactly the GROUP BY of the visible users' points and can be checked
 * against it. A hidden user (a deactivated account, leaderboard-hidden.ts) is not counted:
 * hiding leaves the counts as their balance would, unhiding arrives as a new user would.
 *
 * The SQL is exported so the benchmark runs the very same statements on D1.
 */

/**
 * The users the counts are of: those not hidden (leaderboard-hidden.ts; `hidden_users`
 * exists before the counts are first filled, see migrateBoard).
 */
export const VISIBLE_POINTS = `(SELECT user_uuid, balance FROM points WHERE user_uuid NOT IN (SELECT user_uuid FROM hidden_users))`;

/** Bits one level drops: 16 children a bucket, 15 siblings at most to read a level. */
const BITS = 4;
/** Levels of buckets above the leaves; 15 x 4 = 60 bits, so the top level has <= 16 buckets. */
export const BUCKET_LEVELS = 15;
const MASK = (1 << BITS) - 1;
const INT64_MAX = "9223372036854775807";

/**
 * The number of users with a balance strictly above `balance`, where `balance` is an SQL
 * expression (a parameter in the board, a lookup of the user in the bench's D1 table).
 * One statement, 16 index ranges of at most 15 rows.
 */
export function usersAboveSql(balance: string): string {
  return `WITH RECURSIVE
  me(v) AS MATERIALIZED (SELECT ${balance}),
  lv(level, p, hi) AS (
    SELECT 1, v >> ${BITS}, (v >> ${BITS}) | ${MASK} FROM me
    UNION ALL
    SELECT level + 1, p >> ${BITS},
      CASE WHEN level + 1 = ${BUCKET_LEVELS} THEN ${INT64_MAX} ELSE (p >> ${BITS}) | ${MASK} END
    FROM lv WHERE level < ${BUCKET_LEVELS})
SELECT
  (SELECT COALESCE(SUM(c.n), 0) FROM me, balance_counts c
    WHERE c.balance > me.v AND c.balance <= (me.v | ${MASK}))
  + (SELECT COALESCE(SUM(b.n), 0) FROM lv, balance_buckets b
    WHERE b.level = lv.level AND b.bucket > lv.p AND b.bucket <= lv.hi) AS above`;
}

const COUNTS_TABLE = `CREATE TABLE IF NOT EXISTS balance_counts (balance INTEGER PRIMARY KEY, n INTEGER NOT NULL CHECK (n >= 0))`;
const BUCKETS_TABLE = `CREATE TABLE IF NOT EXISTS balance_buckets (
  level INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  n INTEGER NOT NULL CHECK (n > 0),
  PRIMARY KEY (level, bucket)
) WITHOUT ROWID`;
/** Both tables, empty (the bench makes them in D1 with these). */
export const RANK_TABLES_SQL = [COUNTS_TABLE, BUCKETS_TABLE];

/**
 * Statements that rebuild every bucket from `balance_counts`: level 1 from the leaves, each
 * level above from the one below (which is at most 1/16 of its size), so the cost is about
 * one pass over the distinct balances.
 */
export function rebuildBucketsSql(): string[] {
  const out = [
    `DELETE FROM balance_buckets`,
    `INSERT INTO balance_buckets (level, bucket, n)
     SELECT 1, balance >> ${BITS}, SUM(n) FROM balance_counts GROUP BY balance >> ${BITS}`,
  ];
  for (let level = 2; level <= BUCKET_LEVELS; level++)
    out.push(`INSERT INTO balance_buckets (level, bucket, n)
     SELECT ${level}, bucket >> ${BITS}, SUM(n) FROM balance_buckets WHERE level = ${level - 1}
     GROUP BY bucket >> ${BITS}`);
  return out;
}

/** Statements that rebuild the leaves and the buckets from a `(user, balance)` table. */
export function rebuildAllSql(pointsTable: string): string[] {
  return [
    `DELETE FROM balance_counts`,
    `INSERT INTO balance_counts (balance, n) SELECT balance, COUNT(*) FROM ${pointsTable} GROUP BY balance`,
    ...rebuildBucketsSql(),
  ];
}

/**
 * Creates the tables, filling each from what the board already holds the first time it
 * appears (boards made before it existed). Run inside the object's blockConcurrencyWhile,
 * in one transaction, so a board is never seen with a table half filled; a board that has
 * the table is never refilled, so running it again changes nothing.
 */
export function migrateRanks(storage: DurableObjectStorage): void {
  const sql = storage.sql;
  const has = (table: string) =>
    sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM pragma_table_info(?)`, table).one().n > 0;
  storage.transactionSync(() => {
    const hadCounts = has("balance_counts");
    sql.exec(COUNTS_TABLE);
    if (!hadCounts)
      sql.exec(
        `INSERT INTO balance_counts (balance, n) SELECT balance, COUNT(*) FROM ${VISIBLE_POINTS} GROUP BY balance`,
      );
    if (has("balance_buckets")) return;
    sql.exec(BUCKETS_TABLE);
    for (const statement of rebuildBucketsSql()) sql.exec(statement);
  });
}

/** A user's bucket at `level`: the same floor as SQLite's `balance >> 4 * level` (exact for
 * every integer a JS number holds: dividing by a power of two loses nothing). */
export const bucketOf = (balance: number, level: number): number =>
  Math.floor(balance / 2 ** (BITS * level));

/** The board's counts: every change runs inside the caller's transaction. */
export class BalanceRanks {
  readonly #sql: SqlStorage;
  readonly #usersAbove: string;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#usersAbove = usersAboveSql("?");
  }

  /** Users with strictly more than `balance`: at most 240 rows read. */
  usersAbove(balance: number): number {
    return this.#sql.exec<{ above: number }>(this.#usersAbove, balance).one().above;
  }

  /**
   * A user arrives on `to` (null `from`), moves from `from` to `to`, or leaves the counts
   * from `from` (null `to`: hidden from the board, leaderboard-hidden.ts).
   */
  move(from: number | null, to: number | null) {
    if (from === to) return;
    if (from !== null) this.#leaf(from, -1);
    if (to !== null) this.#leaf(to, 1);
    for (let level = 1; level <= BUCKET_LEVELS; level++) {
      const a = from === null ? null : bucketOf(from, level);
      const b = to === null ? null : bucketOf(to, level);
      // Same bucket here, so the same bucket at every level above: nothing there moves.
      if (a === b) return;
      if (a !== null) this.#bucket(level, a, -1);
      if (b !== null) this.#bucket(level, b, 1);
    }
  }

  /** Forgets every count (the board was emptied). */
  clear() {
    this.#sql.exec(`DELETE FROM balance_counts`);
    this.#sql.exec(`DELETE FROM balance_buckets`);
  }

  /** Recounts everything from the visible users' points (after a bulk load). */
  rebuild() {
    for (const statement of rebuildAllSql(VISIBLE_POINTS)) this.#sql.exec(statement);
  }

  #leaf(balance: number, delta: 1 | -1) {
    if (delta === 1)
      this.#sql.exec(
        `INSERT INTO balance_counts (balance, n) VALUES (?, 1) ON CONFLICT (balance) DO UPDATE SET n = n + 1`,
        balance,
      );
    else {
      const left = this.#sql
        .exec<{ n: number }>(
          `UPDATE balance_counts SET n = n - 1 WHERE balance = ? RETURNING n`,
          balance,
        )
        .toArray()[0];
      if (left?.n === 0) this.#sql.exec(`DELETE FROM balance_counts WHERE balance = ?`, balance);
    }
  }

  #bucket(level: number, bucket: number, delta: 1 | -1) {
    if (delta === 1)
      this.#sql.exec(
        `INSERT INTO balance_buckets (level, bucket, n) VALUES (?, ?, 1) ON CONFLICT (level, bucket) DO UPDATE SET n = n + 1`,
        level,
        bucket,
      );
    // The last user leaves: the row goes (n > 0 is checked), else one fewer.
    else if (
      this.#sql
        .exec(
          `DELETE FROM balance_buckets WHERE level = ? AND bucket = ? AND n = 1 RETURNING n`,
          level,
          bucket,
        )
        .toArray().length === 0
    )
      this.#sql.exec(
        `UPDATE balance_buckets SET n = n - 1 WHERE level = ? AND bucket = ?`,
        level,
        bucket,
      );
  }
}
