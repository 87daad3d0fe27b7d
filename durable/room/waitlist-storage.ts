/**
 * The DJ waiting list in SQLite (`room_waitlist`): who waits for a seat, in order.
 *
 * Invariants:
 * - One row per user (the uuid is the key): joining twice keeps the first place.
 * - `pos` orders the list and only grows (max + 1), so a place never repeats and a user
 *   who leaves and joins again goes to the back.
 * - At most WAITLIST_MAX rows: the list and the state every socket holds stay small.
 * - A user who leaves the room leaves the list (RoomStorage.deleteUser deletes the row).
 */

/** The longest waiting list a room keeps (plug.dj kept 50). */
export const WAITLIST_MAX = 50;

export class WaitlistStorage {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_waitlist (uuid TEXT PRIMARY KEY, pos INTEGER NOT NULL UNIQUE)`,
    );
  }

  /** The waiting users, first in line first. */
  list(): string[] {
    return this.sql
      .exec<{ uuid: string }>(`SELECT uuid FROM room_waitlist ORDER BY pos`)
      .toArray()
      .map((r) => r.uuid);
  }

  /** Where `uuid` waits (1 is next), or 0 if not waiting. */
  placeOf(uuid: string): number {
    const row = this.sql
      .exec<{ n: number }>(
        `SELECT (SELECT COUNT(*) FROM room_waitlist w WHERE w.pos <= r.pos) AS n FROM room_waitlist r WHERE r.uuid = ?`,
        uuid,
      )
      .toArray()[0];
    return row?.n ?? 0;
  }

  size(): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM room_waitlist`).one().n;
  }

  /** Adds `uuid` at the back; answers false if they already wait or the list is full. */
  push(uuid: string): boolean {
    return (
      this.sql.exec(
        `INSERT OR IGNORE INTO room_waitlist (uuid, pos)
         SELECT ?, COALESCE(MAX(pos), 0) + 1 FROM room_waitlist
         WHERE (SELECT COUNT(*) FROM room_waitlist) < ?`,
        uuid,
        WAITLIST_MAX,
      ).rowsWritten > 0
    );
  }

  /** The first in line, or null. */
  first(): string | null {
    return (
      this.sql
        .exec<{ uuid: string }>(`SELECT uuid FROM room_waitlist ORDER BY pos LIMIT 1`)
        .toArray()[0]?.uuid ?? null
    );
  }

  /** Takes `uuid` off the list; answers whether they were on it. */
  remove(uuid: string): boolean {
    return this.sql.exec(`DELETE FROM room_waitlist WHERE uuid = ?`, uuid).rowsWritten > 0;
  }

  clear() {
    this.sql.exec(`DELETE FROM room_waitlist`);
  }
}
