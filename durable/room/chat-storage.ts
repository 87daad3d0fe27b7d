/**
 * The room's chat history in SQLite (`room_chat`).
 *
 * Invariants:
 * - `n` (INTEGER PRIMARY KEY) orders the history: a message keeps its place when edited.
 * - At most CHAT_HISTORY (300) messages are kept; each insert drops the oldest beyond it.
 * - `json` is the whole ChatMessage as clients see it; nothing else describes a message.
 */
import type { ChatMessage } from "../../shared/protocol";

export const CHAT_HISTORY = 300;
/** Messages carried in the room state; older ones are paged with `loadChat`. */
export const CHAT_IN_STATE = 50;

export class ChatStorage {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_chat (n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, json TEXT NOT NULL)`,
    );
    // Who joined the room's chat (the local stand-in for a CometChat group membership).
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_chat_members (uuid TEXT PRIMARY KEY, joined_at INTEGER NOT NULL)`,
    );
  }

  /** Empties the history; answers how many messages were removed. */
  clear(): number {
    return this.sql.exec(`DELETE FROM room_chat`).rowsWritten;
  }

  /** Records a chat membership once; answers when the user first joined and whether this call added it. */
  join(uuid: string, now: number): { joinedAt: number; created: boolean } {
    const created =
      this.sql.exec(
        `INSERT OR IGNORE INTO room_chat_members (uuid, joined_at) VALUES (?, ?)`,
        uuid,
        now,
      ).rowsWritten > 0;
    const { joined_at } = this.sql
      .exec<{ joined_at: number }>(`SELECT joined_at FROM room_chat_members WHERE uuid = ?`, uuid)
      .one();
    return { joinedAt: joined_at, created };
  }

  isMember(uuid: string): boolean {
    return (
      this.sql.exec(`SELECT 1 FROM room_chat_members WHERE uuid = ?`, uuid).toArray().length > 0
    );
  }

  memberCount(): number {
    return this.sql.exec<{ c: number }>(`SELECT count(*) AS c FROM room_chat_members`).one().c;
  }

  add(m: ChatMessage) {
    this.sql.exec(`INSERT INTO room_chat (id, json) VALUES (?, ?)`, m.id, JSON.stringify(m));
    this.sql.exec(
      `DELETE FROM room_chat WHERE n <= (SELECT max(n) FROM room_chat) - ?`,
      CHAT_HISTORY,
    );
  }

  get(id: string): ChatMessage | undefined {
    const row = this.sql
      .exec<{ json: string }>(`SELECT json FROM room_chat WHERE id = ?`, id)
      .toArray()[0];
    return row ? (JSON.parse(row.json) as ChatMessage) : undefined;
  }

  put(m: ChatMessage): boolean {
    return (
      this.sql.exec(`UPDATE room_chat SET json = ? WHERE id = ?`, JSON.stringify(m), m.id)
        .rowsWritten > 0
    );
  }

  delete(id: string): boolean {
    return this.sql.exec(`DELETE FROM room_chat WHERE id = ?`, id).rowsWritten > 0;
  }

  /** Up to `limit` messages before the message `before` (or the newest), oldest first. */
  page(before: string | null, limit: number): ChatMessage[] {
    const rows = before
      ? this.sql
          .exec<{ json: string }>(
            `SELECT json FROM room_chat WHERE n < (SELECT n FROM room_chat WHERE id = ?) ORDER BY n DESC LIMIT ?`,
            before,
            limit,
          )
          .toArray()
      : this.sql
          .exec<{ json: string }>(`SELECT json FROM room_chat ORDER BY n DESC LIMIT ?`, limit)
          .toArray();
    return rows.reverse().map((r) => JSON.parse(r.json) as ChatMessage);
  }

  count(): number {
    return this.sql.exec<{ c: number }>(`SELECT count(*) AS c FROM room_chat`).one().c;
  }
}
