/**
 * Room: one durable object per room, reached at `/parties/room/<slug>` (partyserver).
 * This first version does presence only: who is in the room, as the live product's
 * `allUsers` / `audienceUsers` lists, plus clock sync (ping/pong). Seats, playback, votes,
 * chat, room roles and passwords come in later issues; until then `djs` is always empty,
 * `nowPlaying` null, the vote counts zero, `highestRole` null, and `joinRoom` only answers
 * with the full state (it does not check `password`/`guestPassword` yet).
 *
 * Invariants:
 * - Every connection carries a caller verified by the gateway (`x-hangout-caller`, set by
 *   workers/room-connect.ts after checking the JWT). Without one it is closed with 4001
 *   before it sees anything. The caller lives in the connection's state, so it survives
 *   hibernation.
 * - Who is present is always rebuilt from the live sockets (`getConnections()`), never from
 *   memory: after hibernation or eviction the instance has forgotten everything.
 * - The lists clients were last told about (the "published" presence) and the sequence
 *   number are in this object's SQLite. Each change is diffed against the published rows,
 *   written, and only then broadcast; each stateful message takes the next seq in the same
 *   transaction, so seq never repeats or goes backwards, even after eviction.
 * - A user counts once however many tabs they have open: `userJoined` when their first
 *   connection arrives, `userLeft` when their last one closes. A later tab adopts the
 *   user's arrival time, so the user's place in the lists never moves while they stay.
 *   (The live product waits a grace period before `userLeft`; ours, 30 s, is issue 4's.
 *   Here `userLeft` goes out as soon as the last socket closes.)
 * - Guests are in `audienceUsers` but not in `allUsers` (spec: "Guests are excluded from
 *   the user count list"). Ghost tokens receive the state but appear in no list.
 *   `canDj` is true for user and bot tokens, false for guests; the room's djType rules
 *   come with seats.
 * - A frame that fails to parse gets `{ name: "error" }` on that socket alone and changes
 *   nothing.
 * - Every handler is synchronous (SQLite calls are), so two events never interleave.
 */
import { Server, type Connection, type ConnectionContext, type WSMessage } from "partyserver";
import { z } from "zod";
import type { JsonPatchOp } from "../shared/json-patch";
import {
  assertNever,
  CLOSE_UNAUTHORIZED,
  parseClientMessage,
  type RoomState,
  type RoomStateMessage,
  type RoomUser,
  type ServerMessage,
  type StatefulMessage,
  type StatefulMessageName,
  type TokenRole,
} from "../shared/protocol";
import { TOKEN_TYPES, USER_ROLES, type TokenType, type UserRole } from "../shared/roles";
import type { Env } from "../workers/env";
import { CALLER_HEADER } from "../workers/room-connect";

/** What a connection remembers about its caller (the socket attachment). */
export interface Presence {
  uuid: string;
  tokenType: TokenType;
  roles: UserRole[];
  /** When this user arrived (epoch ms); shared by all their tabs, it orders the lists. */
  joinedAt: number;
}

/** One published presence row: what clients currently hold for a user. */
type PresenceRow = { uuid: string; token_role: string; can_dj: number; guest: number; joined_at: number };

const callerHeader = z.object({
  uuid: z.string().min(1).max(64),
  type: z.enum(TOKEN_TYPES),
  // Unknown role names are dropped rather than refused: the gateway verified the token.
  roles: z.array(z.string()).transform((rs) => rs.filter((r): r is UserRole => (USER_ROLES as readonly string[]).includes(r))),
});

/** Token roles from most to least powerful: a token with several shows the first it holds. */
const ROLE_PRECEDENCE: readonly UserRole[] = ["superUser", "admin", "globalModerator", "moderator", "staff", "promoter", "bot", "user"];

function tokenRoleOf(p: { tokenType: TokenType; roles: readonly UserRole[] }): TokenRole {
  if (p.tokenType === "guest") return "guest";
  return ROLE_PRECEDENCE.find((r) => p.roles.includes(r)) ?? (p.tokenType === "bot" ? "bot" : "user");
}

const toUser = (r: PresenceRow): RoomUser => ({ uuid: r.uuid, tokenRole: r.token_role as TokenRole, highestRole: null, canDj: r.can_dj === 1 });

/** The two presence lists as clients hold them, from published rows in list order. */
function presenceLists(rows: PresenceRow[]): Pick<RoomState, "allUsers" | "audienceUsers"> {
  return { allUsers: rows.filter((r) => r.guest === 0).map(toUser), audienceUsers: rows.map(toUser) };
}

/**
 * Patch ops turning list `before` into `after`, matched by uuid. Removals first, from the
 * end (so indices stay valid), each guarded by a `test` so a client whose list has drifted
 * fails the patch and resyncs instead of removing the wrong user; then insertions in
 * ascending order. Correct whenever the users in both keep their relative order, which the
 * fixed (joined_at, uuid) ordering guarantees.
 */
function diffList(path: string, before: RoomUser[], after: RoomUser[]): JsonPatchOp[] {
  const beforeIds = new Set(before.map((u) => u.uuid));
  const afterIds = new Set(after.map((u) => u.uuid));
  const ops: JsonPatchOp[] = [];
  for (let i = before.length - 1; i >= 0; i--) {
    if (afterIds.has(before[i].uuid)) continue;
    ops.push({ op: "test", path: `${path}/${i}/uuid`, value: before[i].uuid }, { op: "remove", path: `${path}/${i}` });
  }
  after.forEach((u, i) => {
    if (!beforeIds.has(u.uuid)) ops.push({ op: "add", path: `${path}/${i}`, value: { ...u } });
  });
  return ops;
}

// `& Cloudflare.Env`: partyserver requires its Env to extend the global Cloudflare.Env,
// which the test types widen (TEST_MIGRATIONS); at run time both are the same object.
export class Room extends Server<Env & Cloudflare.Env> {
  static options = { hibernate: true };

  /** Runs once per instance, inside blockConcurrencyWhile (partyserver). */
  onStart() {
    const sql = this.ctx.storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS room_meta (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)`);
    sql.exec(`INSERT OR IGNORE INTO room_meta (id, seq) VALUES (1, 0)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS room_presence (
      uuid TEXT PRIMARY KEY,
      token_role TEXT NOT NULL,
      can_dj INTEGER NOT NULL,
      guest INTEGER NOT NULL,
      joined_at INTEGER NOT NULL
    )`);
  }

  onConnect(connection: Connection<Presence>, ctx: ConnectionContext) {
    const parsed = callerHeader.safeParse(safeJson(ctx.request.headers.get(CALLER_HEADER)));
    if (!parsed.success) {
      // Only reachable by going around the gateway, which always sets the header or answers 401.
      connection.close(CLOSE_UNAUTHORIZED, "A verified caller is needed to join a room.");
      return;
    }
    const { uuid, type, roles } = parsed.data;
    const present = this.ctx.storage.sql.exec<{ joined_at: number }>(`SELECT joined_at FROM room_presence WHERE uuid = ?`, uuid).toArray()[0];
    connection.setState({ uuid, tokenType: type, roles, joinedAt: present?.joined_at ?? Date.now() });
    // The others learn of the arrival as a patch; the newcomer gets the whole state instead.
    this.#sync({ closing: null, skip: connection.id });
    this.#send(connection, this.#roomState());
  }

  onMessage(connection: Connection<Presence>, raw: WSMessage) {
    if (!connection.state) return; // refused at connect; its close is under way
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) return this.#send(connection, { name: "error", params: { message: parsed.error } });
    const msg = parsed.message;
    switch (msg.action) {
      case "joinRoom":
        return this.#send(connection, this.#roomState());
      case "ping":
        return this.#send(connection, { name: "pong", params: { clientTime: msg.clientTime, serverTime: Date.now() } });
      default:
        return assertNever(msg);
    }
  }

  onClose(connection: Connection<Presence>) {
    this.#sync({ closing: connection.id, skip: null });
  }

  onError(connection: Connection<Presence>, error: unknown) {
    // A socket that errors may never deliver a close; treat it as gone. If the close does
    // come later, the second sync finds nothing to change.
    console.error(`room ${this.name}: socket error`, error);
    this.#sync({ closing: connection.id, skip: null });
  }

  /** Plain HTTP to a room: nothing here yet, and the gateway only vets websockets. */
  onRequest(request: Request) {
    const { pathname } = new URL(request.url);
    return Response.json({ statusCode: 404, message: `Cannot ${request.method} ${pathname}`, error: "Not Found" }, { status: 404 });
  }

  // ---- presence --------------------------------------------------------------------------

  /** The published rows, in list order. */
  #published(): PresenceRow[] {
    return this.ctx.storage.sql.exec<PresenceRow>(`SELECT uuid, token_role, can_dj, guest, joined_at FROM room_presence ORDER BY joined_at, uuid`).toArray();
  }

  /** Users with at least one open socket (ghosts aside), from the sockets themselves. */
  #live(closing: string | null): Map<string, PresenceRow> {
    const users = new Map<string, PresenceRow>();
    for (const c of this.getConnections<Presence>()) {
      const p = c.state;
      if (c.id === closing || !p || p.tokenType === "ghost" || users.has(p.uuid)) continue;
      const guest = p.tokenType === "guest";
      users.set(p.uuid, { uuid: p.uuid, token_role: tokenRoleOf(p), can_dj: guest ? 0 : 1, guest: guest ? 1 : 0, joined_at: p.joinedAt });
    }
    return users;
  }

  /**
   * Brings the published presence in line with the live sockets and broadcasts what changed:
   * `userLeft` for users with no socket left, then `userJoined` for new ones. Usually one of
   * the two; both after a restart that dropped sockets without close events.
   */
  #sync({ closing, skip }: { closing: string | null; skip: string | null }) {
    const live = this.#live(closing);
    const before = this.#published();
    const leaving = before.filter((r) => !live.has(r.uuid));
    const published = new Set(before.map((r) => r.uuid));
    const arriving = [...live.values()].filter((r) => !published.has(r.uuid));
    if (leaving.length === 0 && arriving.length === 0) return;

    const sql = this.ctx.storage.sql;
    const messages = this.ctx.storage.transactionSync(() => {
      const out: StatefulMessage[] = [];
      let current = before;
      if (leaving.length) {
        for (const r of leaving) sql.exec(`DELETE FROM room_presence WHERE uuid = ?`, r.uuid);
        const next = this.#published();
        out.push(this.#stateful("userLeft", current, next));
        current = next;
      }
      if (arriving.length) {
        for (const r of arriving) {
          sql.exec(`INSERT INTO room_presence (uuid, token_role, can_dj, guest, joined_at) VALUES (?, ?, ?, ?, ?)`, r.uuid, r.token_role, r.can_dj, r.guest, r.joined_at);
        }
        out.push(this.#stateful("userJoined", current, this.#published()));
      }
      return out;
    });
    // Persisted first, then sent (the output gate also holds sends until the write is durable).
    for (const m of messages) this.broadcast(JSON.stringify(m), skip ? [skip] : undefined);
  }

  /** A stateful message between two published row sets; takes the next seq. */
  #stateful(name: StatefulMessageName, before: PresenceRow[], after: PresenceRow[]): StatefulMessage {
    const a = presenceLists(before);
    const b = presenceLists(after);
    const statePatch = [...diffList("/allUsers", a.allUsers, b.allUsers), ...diffList("/audienceUsers", a.audienceUsers, b.audienceUsers)];
    const { seq } = this.ctx.storage.sql.exec<{ seq: number }>(`UPDATE room_meta SET seq = seq + 1 WHERE id = 1 RETURNING seq`).one();
    return { name, statePatch, seq };
  }

  // ---- state and sending -----------------------------------------------------------------

  #roomState(): RoomStateMessage {
    const { seq } = this.ctx.storage.sql.exec<{ seq: number }>(`SELECT seq FROM room_meta WHERE id = 1`).one();
    const state: RoomState = {
      ...presenceLists(this.#published()),
      djs: [],
      nowPlaying: null,
      voteCounts: { likes: 0, dislikes: 0, stars: 0 },
      vibeMeter: 0,
      settings: { slug: this.name },
    };
    return { name: "roomState", state, seq, serverTime: Date.now() };
  }

  #send(connection: Connection, message: ServerMessage) {
    try {
      connection.send(JSON.stringify(message));
    } catch {
      // The socket is going away; its close event will update presence.
    }
  }
}

function safeJson(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
