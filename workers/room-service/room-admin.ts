import { Hono } from "hono";
import { z } from "zod";
import { rooms } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireAdmin } from "../lib/auth";
import { crudList, crudQuerySchema, type Columns } from "../lib/crud-query";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { presentUsers, pushSettings, toRoomDto } from "./room-dto";
import { nonEmpty, roomFields as f, roomIdParam, roomOr404, updateRoom } from "./room-repo";
import { infrastructureShape } from "./rooms";

/** The admin panel's room pages: the list (crud query language), one room, any edit, guest passwords. */
export const roomAdminRoutes = new Hono<AppEnv>();

/** What an admin may filter and sort on; the password columns are absent, so no query can probe them. */
const ROOM_COLUMNS: Columns = {
  id: rooms.id,
  uuid: rooms.uuid,
  slug: rooms.slug,
  name: rooms.name,
  description: rooms.description,
  vibe: rooms.vibe,
  djType: rooms.djType,
  type: rooms.type,
  design: rooms.design,
  numberOfDjs: rooms.numberOfDjs,
  roomSize: rooms.roomSize,
  entryFee: rooms.entryFee,
  unlisted: rooms.unlisted,
  promoted: rooms.promoted,
  isLive: rooms.isLive,
  liveAudio: rooms.liveAudio,
  hasChat: rooms.hasChat,
  ownerUuid: rooms.ownerUuid,
  discordGuildId: rooms.discordGuildId,
  createdAt: rooms.createdAt,
  updatedAt: rooms.updatedAt,
};

/** GET /admin/rooms: `{ data, count, total, page, pageCount }` of RoomDtos, newest first by default. */
roomAdminRoutes.get("/admin/rooms", requireAdmin, valid("query", crudQuerySchema), async (c) => {
  return c.json(
    await crudList(
      c.env,
      rooms,
      ROOM_COLUMNS,
      c.req.valid("query"),
      (r: typeof rooms.$inferSelect) => toRoomDto(r),
    ),
  );
});

/** GET /admin/rooms/{id}: one room (id, uuid or slug), private or unlisted, with who is present. */
roomAdminRoutes.get("/admin/rooms/:id", requireAdmin, valid("param", roomIdParam), async (c) => {
  const room = await roomOr404(c.env, c.req.valid("param").id);
  return c.json(toRoomDto(room, { usersInRoomUuids: await presentUsers(c.env, room.uuid) }));
});

/** An admin may change everything an owner may, plus promotion, ownership and the Discord guild. */
const adminShape = {
  ...infrastructureShape,
  promoted: f.promoted.optional(),
  ownerUuid: fields.uuid.optional(),
  discordGuildId: z
    .string({ error: "discordGuildId must be a string" })
    .regex(/^\d{1,25}$/, "discordGuildId must be a Discord snowflake (digits)")
    .nullable()
    .optional(),
};

/** PATCH /rooms/admin/{id}: any field; the object gets the new settings at once. */
roomAdminRoutes.patch(
  "/rooms/admin/:id",
  requireAdmin,
  valid("param", roomIdParam),
  valid("json", nonEmpty(adminShape)),
  async (c) => {
    const room = await roomOr404(c.env, c.req.valid("param").id);
    const body = c.req.valid("json");
    const row = await updateRoom(c.env, room, body);
    await pushSettings(c.env, row);
    await audit(c, "room.admin-update", caller(c).uuid, {
      roomUuid: room.uuid,
      fields: Object.keys(body),
    });
    return c.json(toRoomDto(row));
  },
);

const roomRef = z.union(
  [z.string().trim().min(1).max(64), z.number().int().positive().transform(String)],
  { error: "roomId must be a room id, uuid or slug" },
);

/** POST /rooms/admin/guest-password `{roomId, guestPassword}`: sets the password guests need to enter. */
roomAdminRoutes.post(
  "/rooms/admin/guest-password",
  requireAdmin,
  valid("json", z.object({ roomId: roomRef, guestPassword: f.guestPassword.unwrap() })),
  async (c) => {
    const { roomId, guestPassword } = c.req.valid("json");
    const row = await updateRoom(c.env, await roomOr404(c.env, roomId), { guestPassword });
    await pushSettings(c.env, row);
    return c.json(toRoomDto(row));
  },
);

/** DELETE /rooms/admin/guest-password `{roomId}`: guests enter freely again. */
roomAdminRoutes.delete(
  "/rooms/admin/guest-password",
  requireAdmin,
  valid("json", z.object({ roomId: roomRef })),
  async (c) => {
    const row = await updateRoom(c.env, await roomOr404(c.env, c.req.valid("json").roomId), {
      guestPassword: null,
    });
    await pushSettings(c.env, row);
    return c.json(toRoomDto(row));
  },
);
