import { and, desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { recentRooms, rooms } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError, forbidden } from "../lib/errors";
import { limitOffset } from "../lib/paging";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { roomSettingsOf, roomStub, withLiveCounts, withTimeout } from "./room-dto";
import {
  activeRoles,
  isPlatformModerator,
  liveState,
  onObject,
  rolesOf,
  toUserRoleDto,
} from "./room-moderation";
import { isAdmin, requireRoomAccess, roomIdParam, roomOr404 } from "./room-repo";
import { MSG } from "./messages";

/**
 * The room's chat and visit calls that have no outside service here (docs/DECISIONS.md,
 * "Rooms: chat without CometChat"): the live product kept room chat in CometChat; ours is
 * in the Room object, so the two cometchat calls do the local equivalent, and the
 * "rockset" list reads our own recent_rooms table.
 */
export const roomChatRoutes = new Hono<AppEnv>();

const syncBody = z.strictObject(
  {
    userUuids: z
      .array(fields.uuid, { error: "userUuids must be a list of user uuids" })
      .min(1, "userUuids must not be empty")
      .max(100, "userUuids must hold at most 100 users")
      .optional(),
  },
  {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `Unknown field(s): ${i.keys.join(", ")}`
        : "body must be a JSON object",
  },
);

/**
 * POST /roomUserRoles/cometchat/sync/{id} `{userUuids?}`: pushes what D1 knows of the room's
 * roles (its settings, which carry the owner) to the live object and makes the object's
 * owner rows match (changeOwner drops a stale "owner" left by an older owner). Answers the
 * roles the object now holds, as UserRoles (only `userUuids`' when given). Owner, co-owner
 * or admin: the same people who manage roles.
 */
roomChatRoutes.post(
  "/roomUserRoles/cometchat/sync/:id",
  requireUser,
  valid("param", roomIdParam),
  valid("json", syncBody),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("param").id);
    if (room.ownerUuid !== who.uuid && !isAdmin(who) && !isPlatformModerator(who)) {
      // A co-owner's role is the object's to tell; when it cannot answer, nobody holds one (liveState: 503).
      if (!rolesOf(activeRoles(await liveState(c.env, room)), who.uuid).has("coOwner"))
        throw forbidden(MSG.syncRefused);
    }
    await onObject(c.env, room, "applySettings", (s) => s.applySettings(roomSettingsOf(room)));
    if (room.ownerUuid)
      await onObject(c.env, room, "changeOwner", (s) => s.changeOwner(room.ownerUuid!));
    const wanted = c.req.valid("json").userUuids;
    const roles = activeRoles(await liveState(c.env, room)).filter(
      (r) => !wanted || wanted.includes(r.userUuid),
    );
    return c.json({
      roomId: room.id,
      roomUuid: room.uuid,
      synced: true,
      roomRoles: roles.map((r) => toUserRoleDto(room, r)),
    });
  },
);

/**
 * POST /roomUserRoles/cometchat/join/{id}: records the caller as a member of the room's
 * chat, in the Room object (201 the first time, 200 after). Refused (403) to guests, to a
 * user banned or kicked in the room, when the room has no chat, and, for a password
 * protected room, to someone who never went through its REST join (a recent visit).
 */
roomChatRoutes.post(
  "/roomUserRoles/cometchat/join/:id",
  requireUser,
  valid("param", roomIdParam),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("param").id);
    if (!room.hasChat) throw forbidden(MSG.chatOff);
    const held = rolesOf(activeRoles(await liveState(c.env, room)), who.uuid);
    if (held.has("banned") || held.has("kicked")) throw forbidden(MSG.chatBanned);
    if (room.passwordHash !== null && room.ownerUuid !== who.uuid && !isAdmin(who)) {
      const visited = await db(c.env)
        .select({ at: recentRooms.visitedAt })
        .from(recentRooms)
        .where(and(eq(recentRooms.userUuid, who.uuid), eq(recentRooms.roomUuid, room.uuid)))
        .get();
      if (!visited) throw forbidden(MSG.chatJoinFirst);
    }
    const r = await onObject(c.env, room, "joinChat", (s) => s.joinChat(who.uuid));
    return c.json(
      {
        roomId: room.id,
        roomUuid: room.uuid,
        userUuid: who.uuid,
        joinedAt: new Date(r.joinedAt).toISOString(),
        members: r.members,
      },
      r.created ? 201 : 200,
    );
  },
);

/**
 * DELETE /rooms/conversation/{id}: empties the room's chat history in the object; every
 * connected client gets the `/chat` patch and shows an empty chat. Owner, co-owner,
 * moderator or admin. Audited as a Moderation action.
 */
roomChatRoutes.delete(
  "/rooms/conversation/:id",
  requireUser,
  valid("param", roomIdParam),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("param").id);
    if (!isPlatformModerator(who))
      await requireRoomAccess(c.env, room, who, ["coOwner", "moderator"], MSG.clearRefused);
    let removed: number;
    try {
      removed = await withTimeout((await roomStub(c.env, room.uuid)).clearChat(), 5000);
    } catch (err) {
      console.error(`room ${room.uuid}: clearChat failed`, err);
      throw new ApiError(503, MSG.objectDown);
    }
    await audit(c, "room.moderation", who.uuid, {
      actionType: "clearChat",
      roomUuid: room.uuid,
      removed,
    });
    return c.json({ roomId: room.id, roomUuid: room.uuid, cleared: true, removed });
  },
);

/**
 * GET /rooms/rockset/recently-visited-rooms?limit&offset: the caller's recently visited
 * rooms, newest visit first, each a RoomDto with live counts, what plays and `visitedAt`.
 * The live product asked an analytics store (Rockset); the recent_rooms table that the
 * join and POST /rooms/recent keep is the same fact.
 */
roomChatRoutes.get(
  "/rooms/rockset/recently-visited-rooms",
  requireUser,
  valid("query", limitOffset(50, 20)),
  async (c) => {
    const { limit, offset } = c.req.valid("query");
    const rows = await db(c.env)
      .select({ room: rooms, visitedAt: recentRooms.visitedAt })
      .from(recentRooms)
      .innerJoin(rooms, eq(rooms.uuid, recentRooms.roomUuid))
      .where(eq(recentRooms.userUuid, caller(c).uuid))
      .orderBy(desc(recentRooms.visitedAt), desc(rooms.id))
      .limit(limit)
      .offset(offset)
      .all();
    const dtos = await withLiveCounts(
      c.env,
      rows.map((r) => r.room),
    );
    return c.json({
      data: dtos.map((d, i) => ({ ...d, visitedAt: new Date(rows[i].visitedAt).toISOString() })),
      limit,
      offset,
    });
  },
);
