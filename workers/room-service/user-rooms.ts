import { and, eq, inArray, lt } from "drizzle-orm";
import { db } from "../db/client";
import { chatProfileOf } from "../../durable/room/profile";
import { roomConnections, users } from "../db/schema";
import type { Env } from "../env";
import { activeBan } from "../lib/bans";
import { blockListQuery } from "../social-service/blocks";
import { roomStub, withTimeout } from "./room-dto";

/** Rooms told at once, and how long one may take: a slow room cannot hold the others. */
const FAN_OUT = 10;
const ROOM_MS = 3000;

/** The account fields a room shows (room/profile.ts): a change of any of them is told to rooms. */
const ROOM_FACE: readonly string[] = ["nickname", "avatarId", "color", "badges"];
export const changesRoomFace = (changes: object) =>
  Object.keys(changes).some((k) => ROOM_FACE.includes(k));

/**
 * Tells every room the user has a socket in that their account changed (roles, sessions,
 * deactivation, bans, blocks, the public profile: nickname, avatar, colour, badges), so those
 * sockets close or take the new roles, blocks and profile now, not when the token expires or
 * they reconnect. `notice`, for a platform kick or ban, is what a closed socket is told (as a
 * kick: the client shows it and does not reconnect). Call it after the D1 write commits; the
 * user-service's password change and reset do, the social-service's block and unblock do, the
 * profile edits (one's own, profile-admin) and the badge routes do, and so must any route that
 * changes roles, deactivates an account or changes what a room shows of it.
 *
 * Which rooms: `room_connections`, written by the room gateway in the same batch that read
 * the account, so a socket admitted on the old account state is always found here. The
 * call is awaited by the request that made the change, in groups of FAN_OUT rooms, each
 * bounded by ROOM_MS; a room that fails is logged (its sockets keep their old identity until
 * they reconnect, when the gateway checks D1 again). A room that answers it holds no socket
 * of the user's is forgotten, so the table stays the size of who is connected where.
 */
export async function tellUserRooms(env: Env, userUuid: string, notice?: string): Promise<void> {
  const d = db(env);
  // A row written after this read (a new socket) is kept even if its room answered "none".
  const started = Date.now();
  const [user, rows, blocked] = await d.batch([
    d
      .select({
        roles: users.roles,
        sv: users.sessionVersion,
        off: users.deactivated,
        bannedAt: users.bannedAt,
        bannedUntil: users.bannedUntil,
        banReason: users.banReason,
        nickname: users.nickname,
        avatarId: users.avatarId,
        color: users.color,
        badges: users.badges,
      })
      .from(users)
      .where(eq(users.uuid, userUuid)),
    d
      .select({ room: roomConnections.roomUuid })
      .from(roomConnections)
      .where(eq(roomConnections.userUuid, userUuid)),
    blockListQuery(d, userUuid),
  ]);
  const blocks = { list: blocked.map((b) => b.uuid), at: started };
  const u = user[0];
  // A banned account stands for nobody in a room, as a deactivated one (lib/bans.ts).
  const account =
    u && !u.off && !activeBan(u)
      ? { roles: u.roles, sessionVersion: u.sv, profile: chatProfileOf(u) }
      : null;
  const forget: string[] = [];
  for (let i = 0; i < rows.length; i += FAN_OUT) {
    await Promise.all(
      rows.slice(i, i + FAN_OUT).map(async ({ room }) => {
        try {
          const stub = await roomStub(env, room);
          if (!(await withTimeout(stub.refreshUser(userUuid, account, blocks, notice), ROOM_MS)))
            forget.push(room);
        } catch (err) {
          console.error(`room ${room}: refreshUser ${userUuid} failed`, err);
        }
      }),
    );
  }
  // D1 binds at most 100 parameters a statement.
  for (let i = 0; i < forget.length; i += 90)
    await d
      .delete(roomConnections)
      .where(
        and(
          eq(roomConnections.userUuid, userUuid),
          lt(roomConnections.connectedAt, started),
          inArray(roomConnections.roomUuid, forget.slice(i, i + 90)),
        ),
      )
      .run();
}
