/**
 * Room roles that bite: banned and kicked users are refused at connect, moderators kick,
 * the owner changes, and expiring roles leave through the one alarm.
 *
 * Invariants:
 * - A user is refused at connect while they hold banned or kicked in force (no expiry or a
 *   future one): they get `kickedFromRoom { reason }` and the socket closes with 4003,
 *   before the room lists them or sends them any state.
 * - A kick sends `kickedFromRoom` to each of the user's sockets, closes them, removes the
 *   user at once (no grace: others see `userLeft` in the next frame, and their seat goes),
 *   and grants `kicked` for KICK_MS, so a rejoin is refused until its alarm removes it.
 * - Who may kick whom is the one table in shared/permissions.ts (REST asks it too): someone
 *   strictly below the kicker; nobody kicks the owner, nor themselves.
 * - Roles are granted through `grant`, which is Room.setRole: every expiry is scheduled
 *   as `role:<role>:<uuid>`, and that schedule entry removes exactly that role.
 */
import type { Connection } from "partyserver";
import { CLOSE_KICKED, type ServerMessage } from "../../shared/protocol";
import type { RoomRoleName } from "../../shared/rooms";
import type { Who } from "./actions";
import type { ChatActions } from "./chat";
import { MOD_MSG, ROOM_LINE } from "./messages";
import type { Playback } from "./playback";
import { send, type Marks } from "./publisher";
import type { RoomStorage } from "./storage";
import { PEOPLE_KEYS, RoomView } from "./view";

export const KICK_MS = 5 * 60_000;

export const roleKey = (uuid: string, role: string) => `role:${role}:${uuid}`;

/** Parses a role schedule key back into its user and role. */
export function parseRoleKey(key: string): { uuid: string; role: RoomRoleName } | null {
  const m = /^role:([A-Za-z]+):(.+)$/.exec(key);
  return m ? { role: m[1] as RoomRoleName, uuid: m[2] } : null;
}

export class Moderation {
  constructor(
    private readonly storage: RoomStorage,
    private readonly publisher: Marks,
    private readonly playback: Playback,
    private readonly chat: ChatActions,
    private readonly socketsOf: (uuid: string) => Iterable<Connection>,
    private readonly grant: (
      uuid: string,
      role: RoomRoleName,
      expirationTime: number | null,
    ) => void,
  ) {}

  /** "banned" or "kicked" when the user may not enter now, else null. */
  entryRefusal(uuid: string): "banned" | "kicked" | null {
    const held = new RoomView(this.storage, Date.now()).rolesOf(uuid);
    return held.has("banned") ? "banned" : held.has("kicked") ? "kicked" : null;
  }

  /** Tells a socket why it must go, then closes it. */
  refuse(c: Connection, reason: string) {
    send(c, JSON.stringify({ name: "kickedFromRoom", params: { reason } } satisfies ServerMessage));
    try {
      c.close(CLOSE_KICKED, reason.slice(0, 120));
    } catch {
      /* already closing */
    }
  }

  /** Why `who` may not kick `target`, or null (shared/permissions.ts, as REST). */
  kickRefusal(who: Pick<Who, "uuid" | "roles">, target: string): string | null {
    const why = new RoomView(this.storage, Date.now()).refusalFor(who, "kickUser", target);
    return why ? MOD_MSG[why === "roleLimit" ? "notAllowed" : why] : null;
  }

  /** Takes the user out now and keeps them out for KICK_MS; answers whether they were present. */
  kick(target: string, reason: string, byUuid: string | null): boolean {
    // Out first, so the frame others get is named userLeft; the role follows in the same tick.
    const present = this.eject(target, reason);
    this.grant(target, "kicked", Date.now() + KICK_MS);
    this.chat.roomMessage(ROOM_LINE.kicked(!!byUuid, reason));
    return present;
  }

  /** Closes the user's sockets (after `kickedFromRoom`) and removes them now, seat and all. */
  eject(target: string, reason: string): boolean {
    const present = !!this.storage.user(target);
    for (const c of this.socketsOf(target)) this.refuse(c, reason);
    if (present) {
      this.storage.deleteUser(target);
      this.publisher.mark(PEOPLE_KEYS, "userLeft");
      this.playback.removeFromStage(target, "userLeft");
    }
    return present;
  }

  /** The schedule entry `key` fired: its role goes, even if the alarm ran a little early. */
  roleExpired(key: string) {
    const r = parseRoleKey(key);
    if (!r) return;
    const held = this.storage.roles(0).find((x) => x.user_uuid === r.uuid && x.role === r.role);
    if (held && held.expiration_time !== null) this.storage.removeRole(r.uuid, r.role);
    this.storage.deleteExpiredRoles(Date.now());
    this.publisher.mark(["settings", ...PEOPLE_KEYS], "updatedRoomSettings");
  }
}
