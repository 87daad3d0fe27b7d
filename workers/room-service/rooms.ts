import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { recentRooms, roomConnections, roomFavorites, rooms, type RoomRow } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { conflict, isUniqueViolation } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { presentUsers, pushSettings, roomStub, toRoomDto, withTimeout } from "./room-dto";
import {
  budgetRoomEdit,
  nonEmpty,
  passwordColumns,
  randomTail,
  requireRoomAccess,
  roomFields as f,
  roomIdParam,
  roomOr404,
  slugFromName,
  updateRoom,
} from "./room-repo";
import { MSG } from "./messages";

/** Rooms: create, read, edit and delete. Live switches are in room-live.ts, lists in room-lists.ts. */
export const roomRoutes = new Hono<AppEnv>();

// Unknown keys on create are dropped (clients send their whole form); on edits they are a
// 400, so a field the caller may not change (promoted, ownerUuid) is never silently ignored.
const createBody = z.object({
  name: f.name,
  slug: f.slug.optional(),
  description: f.description.optional(),
  vibe: f.vibe.optional(),
  djType: f.djType.optional(),
  type: f.type.optional(),
  design: f.design.optional(),
  genre: f.genre.optional(),
  musicProviderKeys: f.musicProviderKeys.optional(),
  numberOfDjs: f.numberOfDjs.optional(),
  songsPerDj: f.songsPerDj.optional(),
  roomSize: f.roomSize.optional(),
  entryFee: f.entryFee.optional(),
  freeEntries: f.freeEntries.optional(),
  password: f.password.optional(),
  guestPassword: f.guestPassword.optional(),
  unlisted: f.unlisted.optional(),
  hasChat: f.hasChat.optional(),
  liveAudio: f.liveAudio.optional(),
  maxSongSeconds: f.maxSongSeconds.optional(),
  afkMinutes: f.afkMinutes.optional(),
  autoSkipRatio: f.autoSkipRatio.optional(),
  repeatWindowMinutes: f.repeatWindowMinutes.optional(),
});

/** What the owner, a co-owner or an admin may change (PATCH /rooms/{id}). */
export const editShape = {
  name: f.name.optional(),
  description: f.description.optional(),
  design: f.design.optional(),
  genre: f.genre.optional(),
  vibe: f.vibe.optional(),
  musicProviderKeys: f.musicProviderKeys.optional(),
  hasChat: f.hasChat.optional(),
  unlisted: f.unlisted.optional(),
  password: f.password.optional(),
  guestPassword: f.guestPassword.optional(),
  maxSongSeconds: f.maxSongSeconds.optional(),
  afkMinutes: f.afkMinutes.optional(),
  autoSkipRatio: f.autoSkipRatio.optional(),
  repeatWindowMinutes: f.repeatWindowMinutes.optional(),
};
/** Plus the structure of the room (owner or admin: PATCH /rooms/{id}/infrastructure). */
export const infrastructureShape = {
  ...editShape,
  slug: f.slug.optional(),
  type: f.type.optional(),
  djType: f.djType.optional(),
  numberOfDjs: f.numberOfDjs.optional(),
  songsPerDj: f.songsPerDj.optional(),
  roomSize: f.roomSize.optional(),
  entryFee: f.entryFee.optional(),
  freeEntries: f.freeEntries.optional(),
  isLive: f.isLive.optional(),
  liveAudio: f.liveAudio.optional(),
};

/** Inserts with a given slug (taken: 409) or one from the name (taken: a random tail, up to 3 tries). */
async function insertRoom(
  c: { env: AppEnv["Bindings"] },
  values: Omit<typeof rooms.$inferInsert, "slug">,
  slug: string | undefined,
): Promise<RoomRow> {
  const base = slug ?? slugFromName(values.name);
  for (let attempt = 0; ; attempt++) {
    const candidate = attempt === 0 ? base : `${base.slice(0, 44)}-${randomTail()}`;
    try {
      return await db(c.env)
        .insert(rooms)
        .values({ ...values, slug: candidate })
        .returning()
        .get();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (slug !== undefined || attempt >= 3) throw conflict(MSG.slugTaken);
    }
  }
}

/** POST /rooms/infrastructure: a new room owned by the caller → 201 RoomDto. */
roomRoutes.post("/rooms/infrastructure", requireUser, valid("json", createBody), async (c) => {
  const who = caller(c);
  const { slug, password, guestPassword, ...body } = c.req.valid("json");
  const room = await insertRoom(
    c,
    {
      ...body,
      ...(await passwordColumns(c.env, { password, guestPassword })),
      uuid: crypto.randomUUID(),
      ownerUuid: who.uuid,
    },
    slug,
  );
  // Before answering: until the object holds the settings it admits no socket at all, so a
  // password room is never open to a direct socket. A failed push leaves it closed until
  // the first join pushes them again (room-live.ts), never open.
  await pushSettings(c.env, room);
  await audit(c, "room.create", who.uuid, { roomUuid: room.uuid, slug: room.slug });
  return c.json(toRoomDto(room), 201);
});

/** GET /rooms/uuid/{uuid}: public, with who is present now. */
roomRoutes.get("/rooms/uuid/:uuid", valid("param", z.object({ uuid: fields.uuid })), async (c) => {
  const room = await roomOr404(c.env, c.req.valid("param").uuid);
  return c.json(toRoomDto(room, { usersInRoomUuids: await presentUsers(c.env, room.uuid) }));
});

/** GET /rooms/{id}: by numeric id, uuid or slug (any case); public, unlisted rooms too (that is what a link is for). */
roomRoutes.get("/rooms/:id", valid("param", roomIdParam), async (c) => {
  const room = await roomOr404(c.env, c.req.valid("param").id);
  return c.json(toRoomDto(room, { usersInRoomUuids: await presentUsers(c.env, room.uuid) }));
});

/** PATCH /rooms/{id}: the owner, a co-owner or an admin; the object gets the new settings at once. */
roomRoutes.patch(
  "/rooms/:id",
  requireUser,
  valid("param", roomIdParam),
  valid("json", nonEmpty(editShape)),
  async (c) => {
    const room = await roomOr404(c.env, c.req.valid("param").id);
    await requireRoomAccess(c.env, room, caller(c), ["coOwner"], MSG.editRefused);
    await budgetRoomEdit(c.env, room.uuid);
    const row = await updateRoom(c.env, room, c.req.valid("json"));
    await pushSettings(c.env, row);
    return c.json(toRoomDto(row));
  },
);

/** PATCH /rooms/{id}/infrastructure: structure too (slug, type, seats, fees); owner or admin. */
roomRoutes.patch(
  "/rooms/:id/infrastructure",
  requireUser,
  valid("param", roomIdParam),
  valid("json", nonEmpty(infrastructureShape)),
  async (c) => {
    const room = await roomOr404(c.env, c.req.valid("param").id);
    await requireRoomAccess(c.env, room, caller(c), [], MSG.ownerOnly);
    await budgetRoomEdit(c.env, room.uuid);
    const row = await updateRoom(c.env, room, c.req.valid("json"));
    await pushSettings(c.env, row);
    return c.json(toRoomDto(row));
  },
);

/**
 * DELETE /rooms/{id}/infrastructure: owner or admin. D1 first (room, favourites, recent
 * visits, recorded connections in one batch: from then on the gateway answers 404), then the
 * object is told (deleteRoom: a tombstone, every socket closed), then the poster bytes go. A
 * failure after the batch leaves an object no socket can reach or orphan bytes, never a
 * listed room without its data.
 */
roomRoutes.delete(
  "/rooms/:id/infrastructure",
  requireUser,
  valid("param", roomIdParam),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("param").id);
    await requireRoomAccess(c.env, room, who, [], MSG.ownerOnly);
    const d = db(c.env);
    await d.batch([
      d.delete(rooms).where(eq(rooms.id, room.id)),
      d.delete(roomFavorites).where(eq(roomFavorites.roomUuid, room.uuid)),
      d.delete(recentRooms).where(eq(recentRooms.roomUuid, room.uuid)),
      d.delete(roomConnections).where(eq(roomConnections.roomUuid, room.uuid)),
    ]);
    const reset = await roomStub(c.env, room.uuid)
      .then((s) => withTimeout(s.deleteRoom(), 5000))
      .then(
        () => true,
        (err) => (console.error(`room ${room.uuid}: deleteRoom failed`, err), false),
      );
    const posters = await c.env.UPLOADS.list({ prefix: `rooms/${room.uuid}/` });
    if (posters.objects.length) await c.env.UPLOADS.delete(posters.objects.map((o) => o.key));
    await audit(c, "room.delete", who.uuid, { roomUuid: room.uuid, slug: room.slug });
    return c.json({ id: room.id, uuid: room.uuid, deleted: true, liveRoomReset: reset });
  },
);
