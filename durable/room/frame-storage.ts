/**
 * The publisher's own rows (publisher.ts): the seq of the last frame sent (`room_meta`) and
 * the state keys changed since (`room_pending`), the batch the next tick sends.
 *
 * Invariants:
 * - Both survive eviction: a batch marked but not yet sent goes out after a restart, under
 *   the next seq, so no client ever sees a seq twice or a gap.
 * - A key is written once per batch: `mark` keeps the batch's keys in memory too, so a vote
 *   storm that marks the same keys a thousand times in a tick writes them once. The memory
 *   copy only ever skips a write SQLite already holds: it is filled from SQLite at the
 *   tick (`pending`) and emptied with it (`clear`), and a `clear` rolled back with the
 *   publisher's transaction leaves rows it does not list, which a later `mark` writes again
 *   (INSERT OR IGNORE) and the next tick reads.
 */
import type { StatefulMessageName } from "../../shared/protocol";

export class FrameStorage {
  /** Keys known to be in room_pending (null: not read since the object started). */
  #marked: Set<string> | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_meta (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)`,
    );
    sql.exec(`INSERT OR IGNORE INTO room_meta (id, seq) VALUES (1, 0)`);
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_pending (key TEXT PRIMARY KEY, name TEXT NOT NULL, at INTEGER NOT NULL)`,
    );
  }

  seq(): number {
    return this.sql.exec<{ seq: number }>(`SELECT seq FROM room_meta WHERE id = 1`).one().seq;
  }

  nextSeq(): number {
    return this.sql
      .exec<{ seq: number }>(`UPDATE room_meta SET seq = seq + 1 WHERE id = 1 RETURNING seq`)
      .one().seq;
  }

  /** Marks state keys changed; the first change of a batch names its frame. */
  mark(keys: readonly string[], name: StatefulMessageName, now: number) {
    this.#marked ??= new Set(this.pending()?.keys);
    for (const k of keys) {
      if (this.#marked.has(k)) continue;
      this.sql.exec(
        `INSERT OR IGNORE INTO room_pending (key, name, at) VALUES (?, ?, ?)`,
        k,
        name,
        now,
      );
      this.#marked.add(k);
    }
  }

  /** The pending keys and the name of the earliest change, or null if nothing is pending. */
  pending(): { keys: string[]; name: StatefulMessageName } | null {
    const rows = this.sql
      .exec<{ key: string; name: StatefulMessageName }>(
        `SELECT key, name FROM room_pending ORDER BY at, rowid`,
      )
      .toArray();
    this.#marked = new Set(rows.map((r) => r.key));
    return rows.length ? { keys: rows.map((r) => r.key), name: rows[0].name } : null;
  }

  clear() {
    this.sql.exec(`DELETE FROM room_pending`);
    this.#marked = new Set();
  }
}
