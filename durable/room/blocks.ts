/**
 * Blocks as the room applies them (issue 14): what a user blocked (the social-service's
 * blocked_users) is hidden from that user's sockets here: the blocked users' chat lines
 * (their own lines and the consumables they sent), their reactions on any line, and their
 * one-time animations. Presence, seats, votes and the song still show: a block hides what
 * someone says and sends, not that they are there.
 *
 * Invariants:
 * - Each blocker's list is one row of `room_blocks` (user, list, when it was read from
 *   D1), loaded into memory when the object starts: like the socket attachment, it
 *   survives hibernation and eviction, but unlike it, it fits MAX_BLOCKS uuids (about
 *   38 KB; an attachment holds 16 KiB). A list belongs to the user, so all of their sockets
 *   share it and a push reaches every one.
 * - A list is replaced only by one read from D1 later (`at`): the gateway's read at connect
 *   and the social-service's push after a block (room.ts refreshUser) may arrive in
 *   either order. A user with no blocks and no row costs no write at connect.
 * - A blocker's socket holds the chat filtered by their list. The shared frame goes
 *   unchanged to every socket whose user blocked none of the users the chat shows (before
 *   or after the frame), so when nobody blocked anyone a frame costs one size check more.
 *   The others get the same name and seq, the same operations on every other key, and on
 *   /chat the diff between the chat they held and the new one, both filtered: one copy
 *   per distinct set of hidden users.
 * - When a user's list changes what their chat shows, each of their live sockets gets the
 *   full state at the current seq (a resync, as after a gap), filtered by the new list.
 */
import type { Connection } from "partyserver";
import type { JsonValue } from "../../shared/json-patch";
import type { ChatMessage, RoomStateMessage, StatefulMessage } from "../../shared/protocol";
import { diff } from "./diff";

interface Entry {
  set: ReadonlySet<string>;
  at: number;
}

/** The chat before and after a frame (what every unfiltered client holds at each seq). */
export interface ChatChange {
  before: ChatMessage[];
  after: ChatMessage[];
}

export class Blocks {
  readonly #byUser = new Map<string, Entry>();
  /** Users whose list is not empty (the common case: none). */
  #blocking = 0;

  constructor(
    private readonly sql: SqlStorage,
    /** The user's sockets in this room. */
    readonly socketsOf: (uuid: string) => Iterable<Connection>,
  ) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_blocks (user_uuid TEXT PRIMARY KEY, blocked TEXT NOT NULL, at INTEGER NOT NULL)`,
    );
    const rows = sql.exec<{ user_uuid: string; blocked: string; at: number }>(
      `SELECT user_uuid, blocked, at FROM room_blocks`,
    );
    for (const r of rows) this.#put(r.user_uuid, JSON.parse(r.blocked) as string[], r.at);
  }

  /** Whether nobody here blocked anyone. */
  get none(): boolean {
    return this.#blocking === 0;
  }

  /** Whom `uuid` blocked (undefined: nobody). */
  of(uuid: string): ReadonlySet<string> | undefined {
    const s = this.#byUser.get(uuid)?.set;
    return s?.size ? s : undefined;
  }

  /**
   * Takes `list` as `uuid`'s blocks, read from D1 at `at`. Answers the list it replaced, or
   * null when nothing changed (an older read, or the same list).
   */
  set(uuid: string, list: readonly string[], at: number): ReadonlySet<string> | null {
    const old = this.#byUser.get(uuid);
    if (old ? old.at > at : !list.length) return null;
    this.sql.exec(
      `INSERT INTO room_blocks (user_uuid, blocked, at) VALUES (?, ?, ?)
       ON CONFLICT (user_uuid) DO UPDATE SET blocked = excluded.blocked, at = excluded.at`,
      uuid,
      JSON.stringify(list),
      at,
    );
    const before = old?.set ?? new Set<string>();
    const after = this.#put(uuid, list, at);
    return sameSet(before, after) ? null : before;
  }

  /** The user's last socket here closed: the gateway reads their list again at the next one. */
  forget(uuid: string) {
    if (!this.#byUser.has(uuid)) return;
    this.#drop(uuid);
    this.sql.exec(`DELETE FROM room_blocks WHERE user_uuid = ?`, uuid);
  }

  /** After a (re)start: the lists of users whose sockets vanished without a close go. */
  recover() {
    for (const uuid of [...this.#byUser.keys()])
      if (!first(this.socketsOf(uuid))) this.forget(uuid);
  }

  /** The sockets not to send a message from `sender` to (an animation): those of users who blocked them. */
  muting(sender: string): Set<string> | null {
    if (this.none) return null;
    const out = new Set<string>();
    for (const [uuid, e] of this.#byUser)
      if (e.set.has(sender)) for (const c of this.socketsOf(uuid)) out.add(c.id);
    return out.size ? out : null;
  }

  /**
   * The frame each blocker's socket gets instead of the shared one, by connection id (only
   * sockets whose user hides someone the chat shows); null when every socket gets it.
   */
  frames(frame: StatefulMessage, chat: ChatChange): Map<string, string> | null {
    if (this.none) return null;
    const shown = voices(chat.before, voices(chat.after));
    const others = frame.statePatch.filter(
      (op) => op.path !== "/chat" && !op.path.startsWith("/chat/"),
    );
    const byHidden = new Map<string, string>();
    const out = new Map<string, string>();
    for (const [uuid, e] of this.#byUser) {
      const hide = hiddenAmong(e.set, shown);
      if (!hide.length) continue;
      const key = hide.join(",");
      let text = byHidden.get(key);
      if (text === undefined) {
        const h = new Set(hide);
        const ops = diff(
          "/chat",
          filterChat(chat.before, h) as unknown as JsonValue,
          filterChat(chat.after, h) as unknown as JsonValue,
        );
        text = JSON.stringify({ ...frame, statePatch: [...others, ...ops] });
        byHidden.set(key, text);
      }
      for (const c of this.socketsOf(uuid)) out.set(c.id, text);
    }
    return out.size ? out : null;
  }

  /** The full state as `uuid` sees it, or null when it is the shared one. */
  stateFor(uuid: string, msg: RoomStateMessage): RoomStateMessage | null {
    const set = this.of(uuid);
    if (!set) return null;
    const hide = hiddenAmong(set, voices(msg.state.chat));
    if (!hide.length) return null;
    return { ...msg, state: { ...msg.state, chat: filterChat(msg.state.chat, new Set(hide)) } };
  }

  /** Chat lines (a history page) as `uuid` sees them. */
  chatFor(uuid: string, lines: ChatMessage[]): ChatMessage[] {
    const set = this.of(uuid);
    return set ? filterChat(lines, set) : lines;
  }

  /** Whether `uuid`'s chat shows differently under their list than under `before`. */
  changesChat(uuid: string, before: ReadonlySet<string>, chat: ChatMessage[]): boolean {
    const shown = voices(chat);
    const now = hiddenAmong(this.of(uuid) ?? new Set(), shown);
    return now.join(",") !== hiddenAmong(before, shown).join(",");
  }

  #put(uuid: string, list: readonly string[], at: number): ReadonlySet<string> {
    this.#drop(uuid);
    const set = new Set(list);
    this.#byUser.set(uuid, { set, at });
    if (set.size) this.#blocking++;
    return set;
  }

  #drop(uuid: string) {
    const old = this.#byUser.get(uuid);
    if (old?.set.size) this.#blocking--;
    this.#byUser.delete(uuid);
  }
}

/** Everyone a chat shows saying or sending something: the lines' authors and whoever reacted. */
export function voices(chat: readonly ChatMessage[], into = new Set<string>()): Set<string> {
  for (const m of chat) {
    if (m.userUuid) into.add(m.userUuid);
    for (const who of Object.values(m.reactions)) for (const u of who) into.add(u);
  }
  return into;
}

/** The chat without the lines and reactions of `hide`. */
export function filterChat(chat: readonly ChatMessage[], hide: ReadonlySet<string>): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of chat) {
    if (m.userUuid && hide.has(m.userUuid)) continue;
    if (!Object.values(m.reactions).some((who) => who.some((u) => hide.has(u)))) {
      out.push(m);
      continue;
    }
    const reactions: Record<string, string[]> = {};
    for (const [emoji, who] of Object.entries(m.reactions)) {
      const kept = who.filter((u) => !hide.has(u));
      if (kept.length) reactions[emoji] = kept;
    }
    out.push({ ...m, reactions });
  }
  return out;
}

/** The members of `set` that `shown` holds, sorted (a key for one filtered copy). */
function hiddenAmong(set: ReadonlySet<string>, shown: ReadonlySet<string>): string[] {
  const out: string[] = [];
  // The chat shows a few dozen people at most; a list may hold a thousand.
  for (const u of shown) if (set.has(u)) out.push(u);
  return out.sort();
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

function first<T>(it: Iterable<T>): T | undefined {
  for (const x of it) return x;
  return undefined;
}
