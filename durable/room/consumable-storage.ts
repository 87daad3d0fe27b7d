/**
 * The consumables delivered into the room, in SQLite (`room_consumables`).
 *
 * Invariants:
 * - One row per purchase id ever delivered here (not only those still among the last 300
 *   chat lines), so a retried or resumed purchase finds its first delivery.
 * - A row is written in the same synchronous call as its chat line (consumables.ts), so
 *   neither exists without the other.
 * - A purchase closed undelivered (`room_consumable_closed`) is never delivered later: the
 *   room is where a purchase's "delivered or not, for good" is decided, once, and the
 *   account commits or voids its hold by that answer (issue 12).
 */

export interface Delivered {
  messageId: string;
  deliveredAt: number;
}

export class ConsumableStorage {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_consumables (purchase_id TEXT PRIMARY KEY, message_id TEXT NOT NULL, delivered_at INTEGER NOT NULL)`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_consumable_closed (purchase_id TEXT PRIMARY KEY, closed_at INTEGER NOT NULL)`,
    );
  }

  /** Whether this purchase was closed undelivered. */
  closed(purchaseId: string): boolean {
    return (
      this.sql
        .exec(`SELECT 1 FROM room_consumable_closed WHERE purchase_id = ?`, purchaseId)
        .toArray().length > 0
    );
  }

  /** Closes a purchase undelivered, for good. */
  close(purchaseId: string, at: number): void {
    this.sql.exec(
      `INSERT OR IGNORE INTO room_consumable_closed (purchase_id, closed_at) VALUES (?, ?)`,
      purchaseId,
      at,
    );
  }

  /** The earlier delivery of this purchase, if any. */
  delivered(purchaseId: string): Delivered | undefined {
    const row = this.sql
      .exec<{ message_id: string; delivered_at: number }>(
        `SELECT message_id, delivered_at FROM room_consumables WHERE purchase_id = ?`,
        purchaseId,
      )
      .toArray()[0];
    return row && { messageId: row.message_id, deliveredAt: row.delivered_at };
  }

  /** Records a delivery (its chat line is `messageId`). */
  record(purchaseId: string, messageId: string, at: number): void {
    this.sql.exec(
      `INSERT INTO room_consumables (purchase_id, message_id, delivered_at) VALUES (?, ?, ?)`,
      purchaseId,
      messageId,
      at,
    );
  }
}
