/**
 * The Leaderboard object's SQLite tables, and the in-object migrations that bring a board
 * made by older code up to date. Run once per object start, inside blockConcurrencyWhile,
 * so no call sees a half-migrated board.
 */
import { migrateHidden } from "./leaderboard-hidden";
import { migrateRanks } from "./leaderboard-ranks";

/** `deactivated` answers the accounts a board hides from birth (leaderboard-hidden.ts). */
export async function migrateBoard(
  storage: DurableObjectStorage,
  deactivated: () => Promise<string[]>,
): Promise<void> {
  const sql = storage.sql;
  sql.exec(`CREATE TABLE IF NOT EXISTS points (
    user_uuid TEXT PRIMARY KEY,
    balance INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    version INTEGER NOT NULL DEFAULT 0
  )`);
  // Boards made before versions existed get the column (their versions start at 0).
  if (!hasColumn(sql, "points", "version")) {
    sql.exec(`ALTER TABLE points ADD COLUMN version INTEGER NOT NULL DEFAULT 0`);
    // Every event ever applied was then still in applied_events, so the version is exact.
    sql.exec(
      `UPDATE points SET version = (SELECT COUNT(*) FROM applied_events e WHERE e.user_uuid = points.user_uuid)`,
    );
  }
  // Serves both the ordered page (top) and the "strictly more points" count (rank).
  sql.exec(`CREATE INDEX IF NOT EXISTS points_by_rank ON points (balance DESC, user_uuid)`);
  // user_uuid and points are kept so a reused event id with other content is caught;
  // occurred_at is the event's own time, which decides when its id may be forgotten.
  sql.exec(`CREATE TABLE IF NOT EXISTS applied_events (
    event_id TEXT PRIMARY KEY,
    user_uuid TEXT NOT NULL,
    points INTEGER NOT NULL,
    applied_at INTEGER NOT NULL,
    occurred_at INTEGER NOT NULL
  )`);
  if (!hasColumn(sql, "applied_events", "occurred_at")) {
    sql.exec(`ALTER TABLE applied_events ADD COLUMN occurred_at INTEGER NOT NULL DEFAULT 0`);
    // Ids kept before the column existed did not record their event's time: their
    // applied_at stands in. An event was applied after it happened, or at most 5 minutes
    // before (the routes' clock-skew allowance), and ids are kept a day longer than the
    // age at which an event is refused, so no such id is forgotten while it still guards.
    sql.exec(`UPDATE applied_events SET occurred_at = applied_at`);
  }
  // The pruning walks the oldest ids through this index: a few rows per write, never a scan.
  sql.exec(`CREATE INDEX IF NOT EXISTS applied_events_by_age ON applied_events (occurred_at)`);
  // Who the board hides (leaderboard-hidden.ts): before the counts, which leave them out.
  await migrateHidden(storage, deactivated);
  // The counts a rank is read from (leaderboard-ranks.ts), filled the first time each
  // table appears; after that kept in step with `points` by every write.
  migrateRanks(storage);
  // The season window and the closed flag; one row at most (id = 1).
  sql.exec(`CREATE TABLE IF NOT EXISTS board_meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    start_date INTEGER,
    end_date INTEGER,
    closed INTEGER NOT NULL DEFAULT 0
  )`);
}

function hasColumn(sql: SqlStorage, table: string, column: string): boolean {
  return (
    sql
      .exec<{ n: number }>(
        `SELECT COUNT(*) AS n FROM pragma_table_info(?) WHERE name = ?`,
        table,
        column,
      )
      .one().n > 0
  );
}
