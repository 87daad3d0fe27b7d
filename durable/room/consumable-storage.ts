/**
 * The consumables delivered into the room, in SQLite (`room_consumables`).
 *
 * Invariants:
 * - One row per purchase id ever delivered here (not only those still among the last 300
 *   chat lines), so a retried or resumed purchase finds its first delivery.
 * - A row is written in the same synchronous call as its chat line (consumables.ts), so
 *   neither exists without the other.
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
