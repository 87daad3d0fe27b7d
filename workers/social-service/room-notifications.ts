import type { Context } from "hono";
import { sql } from "drizzle-orm";
import { db } from "../db/client";
import { users, type RoomRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller } from "../lib/auth";
import { takeAttempt } from "../lib/rate-limit";
import { ApiError, notFound } from "../lib/errors";
import { inJson } from "../queues/notify-rules";
import { roomStub, withTimeout } from "../room-service/room-dto";
import { findRoom, requireRoomAccess } from "../room-service/room-repo";
import { isServiceCall } from "./notify-guards";
import { NOTIFY_MSG } from "./notify-messages";

/**
 * Who may write to a room's people, and who they are. Room roles live in the Room object
 * (workers/room-service/room-repo.ts `requireRoomAccess`): the owner (D1), a co-owner or
 * moderator (the object), an admin, or a service (X-Service-Key). The audience is the
 * accounts the live object holds sockets for now (guests have nowhere to receive a
 * notification), without the sender; the object down is a 503, never "nobody is here".
 */

/** The room and the sender (null for a service), or 401/403/404. */
export async function roomSender(
  c: Context<AppEnv>,
  roomId: string,
): Promise<{ room: RoomRow; sender: string | null }> {
  const service = await isServiceCall(c);
  const who = service ? null : caller(c);
  const room = await findRoom(c.env, roomId);
  if (!room) throw notFound(NOTIFY_MSG.roomNotFound);
  if (who)
    await requireRoomAccess(c.env, room, who, ["coOwner", "moderator"], NOTIFY_MSG.roomRefused);
  return { room, sender: who?.uuid ?? null };
}

/** Counts one room message against the room's budget (RULES.roomNotification), or 429. */
export async function budgetRoomMessage(env: Env, room: RoomRow, sender: string | null) {
  if (sender === null) return;
  await takeAttempt(env, [{ rule: "roomNotification", key: room.uuid }], NOTIFY_MSG.roomTooMany);
}

/** The signed-in people in the room now, less `sender`. */
export async function roomAudience(
  env: Env,
  room: RoomRow,
  sender: string | null,
): Promise<string[]> {
  let present: string[];
  try {
    const stub = await withTimeout(roomStub(env, room.uuid), 3000);
    present = await withTimeout(stub.getUserUuids(), 3000);
  } catch (err) {
    console.error(`room ${room.uuid}: getUserUuids failed`, err);
    throw new ApiError(503, NOTIFY_MSG.roomDown);
  }
  const others = [...new Set(present)].filter((u) => u !== sender);
  if (others.length === 0) return [];
  const rows = await db(env)
    .select({ uuid: users.uuid })
    .from(users)
    .where(sql`${inJson(users.uuid, others)} and ${users.deactivated} = 0`)
    .all();
  return rows.map((r) => r.uuid);
}
