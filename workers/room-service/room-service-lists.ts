import { asc, count, eq, inArray } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { batchOf, db } from "../db/client";
import { recentRooms, roomFavorites, rooms, users, type RoomRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireAdmin, requireAnyToken, requireService, requireUser } from "../lib/auth";
import { ApiError, badRequest, forbidden, notFound } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { pushSettings, roomStub, toRoomDto, withLiveCounts, withTimeout } from "./room-dto";
import { accountExists, isMissingMethod, roomRef } from "./room-moderation";
import { isAdmin, roomIdParam, roomOr404 } from "./room-repo";
import { MSG } from "./messages";

/**
 * Discord guild rooms, the service-to-service reads, and the admin's per-user room calls
 * (delete all of a user's rooms, hand them to someone else).
 */
export const roomServiceListRoutes = new Hono<AppEnv>();

/** D1 binds at most 100 values per statement: IN lists are cut below that. */
const IN_CHUNK = 90;
const chunks = <T>(xs: T[]) =>
  Array.from({ length: Math.ceil(xs.length / IN_CHUNK) }, (_, i) =>
    xs.slice(i * IN_CHUNK, (i + 1) * IN_CHUNK),
  );

const guildParam = z.object({
  guildId: z.string().regex(/^\d{1,25}$/, "guildId must be a Discord snowflake (digits)"),
});

/** GET /rooms/discord/list/{guildId}: the rooms bound to a guild (binding one is the listing decision), with live counts. */
roomServiceListRoutes.get(
  "/rooms/discord/list/:guildId",
  requireAnyToken,
  valid("param", guildParam),
  async (c) => {
    const rows = await db(c.env)
      .select()
      .from(rooms)
      .where(eq(rooms.discordGuildId, c.req.valid("param").guildId))
      .orderBy(asc(rooms.id))
      .limit(200)
      .all();
    return c.json(await withLiveCounts(c.env, rows));
  },
);

/** POST /rooms/discord/{guildId} `{roomId}`: binds the room to the guild; the room's owner or an admin. */
roomServiceListRoutes.post(
  "/rooms/discord/:guildId",
  requireUser,
  valid("param", guildParam),
  valid("json", z.object({ roomId: roomRef })),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("json").roomId);
    if (room.ownerUuid !== who.uuid && !isAdmin(who)) throw forbidden(MSG.discordBindRefused);
    const row = await db(c.env)
      .update(rooms)
      .set({ discordGuildId: c.req.valid("param").guildId, updatedAt: Date.now() })
      .where(eq(rooms.id, room.id))
      .returning()
      .get();
    if (!row) throw notFound(MSG.roomNotFound);
    return c.json(toRoomDto(row));
  },
);

const pageQuery = z.object({
  take: z.coerce
    .number({ error: "take must be a number" })
    .int("take must be an integer")
    .min(1, "take must be at least 1")
    .max(100, "take must be at most 100")
    .default(20),
  skip: z.coerce
    .number({ error: "skip must be a number" })
    .int("skip must be an integer")
    .min(0, "skip must not be negative")
    .max(1_000_000, "skip is too large")
    .default(0),
});

/** GET /rooms/service/list?take&skip (service key or admin): every room, private ones too, by id. */
roomServiceListRoutes.get(
  "/rooms/service/list",
  requireService,
  valid("query", pageQuery),
  async (c) => {
    const { take, skip } = c.req.valid("query");
    const d = db(c.env);
    const [rows, [{ total }]] = await Promise.all([
      d.select().from(rooms).orderBy(asc(rooms.id)).limit(take).offset(skip).all(),
      d.select({ total: count() }).from(rooms).all(),
    ]);
    return c.json({ data: rows.map((r) => toRoomDto(r)), total, take, skip });
  },
);

/** GET /rooms/service/room/{id} (service key or admin): one room by id, uuid or slug. */
roomServiceListRoutes.get(
  "/rooms/service/room/:id",
  requireService,
  valid("param", roomIdParam),
  async (c) => {
    return c.json(toRoomDto(await roomOr404(c.env, c.req.valid("param").id)));
  },
);

/** GET /rooms/users/service/{id} (service key or admin): who is present; unlike the public list, an object failure is a 503, not 0 users. */
roomServiceListRoutes.get(
  "/rooms/users/service/:id",
  requireService,
  valid("param", roomIdParam),
  async (c) => {
    const room = await roomOr404(c.env, c.req.valid("param").id);
    let uuids: string[];
    try {
      uuids = await withTimeout((await roomStub(c.env, room.uuid)).getUserUuids(), 5000);
    } catch (err) {
      console.error(`room ${room.uuid}: getUserUuids failed`, err);
      throw new ApiError(503, MSG.objectDown);
    }
    return c.json({
      roomUuid: room.uuid,
      usersInRoomUuids: uuids,
      numberOfUsersInRoom: uuids.length,
    });
  },
);

const userParam = z.object({
  userId: z.union([fields.uuid, z.string().regex(/^\d{1,15}$/)], {
    error: "userId must be a user uuid or numeric id",
  }),
});

/** A user's uuid from `{userId}`: a uuid as is (their rooms can outlive the account), a numeric id through D1. */
async function userUuidOf(env: Env, userId: string): Promise<string> {
  if (!/^\d+$/.test(userId)) return userId.toLowerCase();
  const row = await db(env)
    .select({ uuid: users.uuid })
    .from(users)
    .where(eq(users.id, Number(userId)))
    .get();
  if (!row) throw notFound(MSG.userNotFound);
  return row.uuid;
}

const ownedBy = (env: Env, uuid: string) =>
  db(env).select().from(rooms).where(eq(rooms.ownerUuid, uuid)).orderBy(asc(rooms.id)).all();

/** Resets one live room, bounded; a failure is reported per room, never a 500 (D1 is already done). */
const resetLive = (env: Env, r: RoomRow) =>
  roomStub(env, r.uuid)
    .then((s) => withTimeout(s.resetRoom(), 5000))
    .then(
      () => true,
      (err) => (console.error(`room ${r.uuid}: resetRoom failed`, err), false),
    );

/**
 * DELETE /rooms/user/{userId} (admin): deletes every room the user owns, as the single
 * delete does: D1 first (rooms, favourites, recent visits in one batch), then each live room
 * is reset so its clients leave, then the posters' bytes.
 */
roomServiceListRoutes.delete(
  "/rooms/user/:userId",
  requireAdmin,
  valid("param", userParam),
  async (c) => {
    const userUuid = await userUuidOf(c.env, c.req.valid("param").userId);
    const owned = await ownedBy(c.env, userUuid);
    if (owned.length) {
      const d = db(c.env);
      const stmts = chunks(owned).flatMap((part) => {
        const ids = part.map((r) => r.id);
        const uuids = part.map((r) => r.uuid);
        return [
          d.delete(rooms).where(inArray(rooms.id, ids)),
          d.delete(roomFavorites).where(inArray(roomFavorites.roomUuid, uuids)),
          d.delete(recentRooms).where(inArray(recentRooms.roomUuid, uuids)),
        ];
      });
      await d.batch(batchOf(stmts));
    }
    const resets = await Promise.all(owned.map((r) => resetLive(c.env, r)));
    for (const r of owned) {
      const posters = await c.env.UPLOADS.list({ prefix: `rooms/${r.uuid}/` });
      if (posters.objects.length) await c.env.UPLOADS.delete(posters.objects.map((o) => o.key));
    }
    await audit(c, "room.delete", caller(c).uuid, {
      ownerUuid: userUuid,
      roomUuids: owned.map((r) => r.uuid),
    });
    return c.json({
      userUuid,
      deleted: owned.length,
      rooms: owned.map((r, i) => ({
        id: r.id,
        uuid: r.uuid,
        slug: r.slug,
        liveRoomReset: resets[i],
      })),
    });
  },
);

/**
 * PATCH /rooms/user/{userId} `{ownerUuid}` (admin): hands all the user's rooms to another
 * account. One UPDATE moves them; each object then gets its settings (and changeOwner when
 * it has one). A failed push is reported, not a 500: join pushes the settings again.
 */
roomServiceListRoutes.patch(
  "/rooms/user/:userId",
  requireAdmin,
  valid("param", userParam),
  valid("json", z.object({ ownerUuid: fields.uuid })),
  async (c) => {
    const fromUuid = await userUuidOf(c.env, c.req.valid("param").userId);
    const toUuid = c.req.valid("json").ownerUuid.toLowerCase();
    if (fromUuid === toUuid) throw badRequest(MSG.ownerUuidSame);
    if (!(await accountExists(c.env, toUuid))) throw notFound(MSG.userNotFound);
    const moved = await db(c.env)
      .update(rooms)
      .set({ ownerUuid: toUuid, updatedAt: Date.now() })
      .where(eq(rooms.ownerUuid, fromUuid))
      .returning()
      .all();
    const pushed = await Promise.all(
      moved.map(async (r) => {
        const ok = await pushSettings(c.env, r);
        try {
          await withTimeout((await roomStub(c.env, r.uuid)).changeOwner(toUuid), 5000);
        } catch (err) {
          if (!isMissingMethod(err)) console.error(`room ${r.uuid}: changeOwner failed`, err);
        }
        return ok;
      }),
    );
    await audit(c, "room.admin-update", caller(c).uuid, {
      fromOwnerUuid: fromUuid,
      ownerUuid: toUuid,
      roomUuids: moved.map((r) => r.uuid),
    });
    return c.json({
      fromUuid,
      ownerUuid: toUuid,
      moved: moved.length,
      rooms: moved.map((r, i) => ({ ...toRoomDto(r), liveUpdated: pushed[i] })),
    });
  },
);
