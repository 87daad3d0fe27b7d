/**
 * Whether the room exists for its sockets, and whether the people on them are still who the
 * gateway admitted. room.ts's connect, deleteRoom and refreshUser hand their work here.
 *
 * Invariants:
 * - An object refuses every socket until the room-service has pushed its settings (create
 *   does, before it answers): the defaults of an unset object (no password, no owner) are
 *   never what a real room enforces, so an unset object is no room at all.
 * - A deleted room keeps a tombstone in its storage: it refuses every socket for good, so a
 *   socket that passed the gateway just before the D1 row went cannot bring the room back.
 * - A change to an account reaches its sockets here (refreshUser): a deactivated or banned
 *   account or an ended session closes them (a platform kick or ban as a kick, with its
 *   reason) and the user leaves at once (seat and all); changed platform roles replace the roles in each socket's attachment, which every action reads,
 *   and the user's tokenRole in the lists; the account's public profile (nickname, avatar,
 *   colour, badges) replaces the chat identity of each socket and the user's
 *   `allUserData` entry, which every client hears as `updatedUserProfile` (room/profile.ts).
 */
import type { Connection } from "partyserver";
import {
  CLOSE_KICKED,
  CLOSE_NO_ROOM,
  CLOSE_UNAUTHORIZED,
  type ServerMessage,
  type TokenRole,
} from "../../shared/protocol";
import type { TokenType, UserRole } from "../../shared/roles";
import { ProfileChanges } from "./profile";
import type { Caller } from "./actions";
import { CONNECT_MSG } from "./messages";
import type { Playback } from "./playback";
import { send, type Marks } from "./publisher";
import type { RefreshArgs } from "./rpc";
import type { RoomStorage } from "./storage";
import { PEOPLE_KEYS } from "./view";

/** The account as D1 holds it now (null: gone or deactivated), as refreshUser checks it. */
export type AccountNow = NonNullable<RefreshArgs["account"]>;

export class Identity {
  readonly #profiles: ProfileChanges;
  constructor(
    private readonly sql: SqlStorage,
    private readonly storage: RoomStorage,
    private readonly publisher: Marks,
    private readonly playback: Playback,
    private readonly socketsOf: (uuid: string) => Iterable<Connection<Caller>>,
    private readonly tokenRoleOf: (p: {
      tokenType: TokenType;
      roles: readonly UserRole[];
    }) => TokenRole,
  ) {
    this.#profiles = new ProfileChanges(storage, publisher);
    sql.exec(
      `CREATE TABLE IF NOT EXISTS room_tombstone (id INTEGER PRIMARY KEY CHECK (id = 1), deleted_at INTEGER NOT NULL)`,
    );
  }

  /** Why no socket may enter now (the room is deleted or was never set up), or null. */
  refusal(): string | null {
    if (this.sql.exec(`SELECT 1 FROM room_tombstone`).toArray().length) return CONNECT_MSG.deleted;
    // RoomStorage answers defaults when no row exists; only the row says settings were pushed.
    if (!this.sql.exec(`SELECT 1 FROM room_settings WHERE id = 1`).toArray().length)
      return CONNECT_MSG.notReady;
    return null;
  }

  /** Tells the socket why it may not be here and closes it. */
  close(c: Connection, message: string, code = CLOSE_NO_ROOM) {
    send(c, JSON.stringify({ name: "error", params: { message } } satisfies ServerMessage));
    try {
      c.close(code, message);
    } catch {
      /* already closing */
    }
  }

  /**
   * A platform kick or ban (issue 15): the socket is told why as a kick (`kickedFromRoom`,
   * CLOSE_KICKED), so the client shows the reason and does not reconnect.
   */
  removed(c: Connection, reason: string) {
    send(c, JSON.stringify({ name: "kickedFromRoom", params: { reason } } satisfies ServerMessage));
    try {
      c.close(CLOSE_KICKED, reason.slice(0, 120));
    } catch {
      /* already closing */
    }
  }

  /** Marks the room deleted for good; the caller closes the sockets and clears the live state. */
  tombstone(now: number) {
    this.sql.exec(
      `INSERT INTO room_tombstone (id, deleted_at) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`,
      now,
    );
  }

  /**
   * Applies the account's current state to its sockets here. Answers whether the room held
   * the user at all (a socket, or present in their grace), so the caller can forget the room.
   */
  refresh(uuid: string, account: AccountNow | null, notice?: string): boolean {
    const sockets = [...this.socketsOf(uuid)];
    const present = !!this.storage.user(uuid);
    let kept = 0;
    for (const c of sockets) {
      const who = c.state;
      if (!who) continue;
      // A socket of an older session (or of an account that is no more) goes; one opened
      // with a token of the current session stays, with the current roles.
      if (!account || who.sv < account.sessionVersion) {
        if (notice) this.removed(c, notice);
        else this.close(c, CONNECT_MSG.sessionEnded, CLOSE_UNAUTHORIZED);
        continue;
      }
      // The chat identity too: the next line this socket posts carries the new name and badges.
      const profile = account.profile ?? who.profile;
      c.setState({ ...who, roles: [...account.roles], profile: profile && { ...profile } });
      kept++;
    }
    const row = this.storage.user(uuid);
    if (row && !kept && (!account || sockets.length)) {
      // Nobody of theirs is left who may stay: out now, not after a grace.
      this.storage.deleteUser(uuid);
      this.publisher.mark(PEOPLE_KEYS, "userLeft");
      this.playback.removeFromStage(uuid, "userLeft");
    } else if (row && account) {
      // Also in a grace: the profile waits in the tables for the user's return.
      if (account.profile) this.#profiles.apply(uuid, account.profile);
    }
    if (row && account && kept) {
      // Only with a live socket: upsertUser ends a grace, which must not happen without one.
      const tokenType = sockets.find((c) => c.state)?.state?.tokenType ?? "user";
      const role = this.tokenRoleOf({ tokenType, roles: account.roles });
      if (role !== row.token_role) {
        this.storage.upsertUser({ ...row, token_role: role }, Date.now());
        this.publisher.mark(PEOPLE_KEYS, "updatedRoomSettings");
      }
    }
    return present || sockets.length > 0;
  }
}
