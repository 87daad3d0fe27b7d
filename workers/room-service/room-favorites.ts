import { and, desc, eq, inArray } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { roomFavorites, rooms, type RoomFavoriteRow } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError, forbidden } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { withLiveCounts } from "./room-dto";
import { isAdmin, roomOr404 } from "./room-repo";
import { MSG } from "./messages";

/**
 * Room favourites (seed 001: Room favourite; the browse page toggles them optimistically,
 * so adding is idempotent and removing takes the room's uuid as well as the record id).
 * Another user's favourites show only listed public rooms; one's own (or, for an admin,
 * anyone's) show every room.
 */
export const roomFavoriteRoutes = new Hono<AppEnv>();

const favoriteDto = (f: RoomFavoriteRow) => ({
  id: f.id,
  roomUuid: f.roomUuid,
  userUuid: f.userUuid,
  createdAt: new Date(f.createdAt).toISOString(),
});
const listed = and(eq(rooms.type, "PUBLIC"), eq(rooms.unlisted, false));

/** POST /api/v1/room-favorites `{roomUuid}`: 201 when added, 200 with the same record when it already was. */
roomFavoriteRoutes.post(
  "/api/v1/room-favorites",
  requireUser,
  valid("json", z.object({ roomUuid: fields.uuid })),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("json").roomUuid);
    const d = db(c.env);
    const added = await d
      .insert(roomFavorites)
      .values({ roomUuid: room.uuid, userUuid: who.uuid })
      .onConflictDoNothing()
      .returning()
      .get();
    if (added) return c.json(favoriteDto(added), 201);
    const existing = await d
      .select()
      .from(roomFavorites)
      .where(and(eq(roomFavorites.userUuid, who.uuid), eq(roomFavorites.roomUuid, room.uuid)))
      .get();
    return c.json(favoriteDto(existing!), 200);
  },
);

const uuidCsv = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    [v]
      .flat()
      .flatMap((s) => s.split(","))
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(z.uuid({ error: "roomUuidIn must hold room UUIDs" }))
      .max(100, "roomUuidIn takes at most 100 rooms"),
  );

const favoritesQuery = z.object({
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int()
    .min(1, "limit must be at least 1")
    .max(100, "limit must be at most 100")
    .default(50),
  roomUuidIn: uuidCsv.optional(),
  userUuid: fields.uuid.optional(),
});

/** GET /api/v1/room-favorites?limit&roomUuidIn&userUuid: favourite records, newest first (the caller's by default). */
roomFavoriteRoutes.get(
  "/api/v1/room-favorites",
  requireUser,
  valid("query", favoritesQuery),
  async (c) => {
    const who = caller(c);
    const q = c.req.valid("query");
    const userUuid = q.userUuid ?? who.uuid;
    const everything = userUuid === who.uuid || isAdmin(who);
    const rows = await db(c.env)
      .select({ f: roomFavorites })
      .from(roomFavorites)
      .innerJoin(rooms, eq(rooms.uuid, roomFavorites.roomUuid))
      .where(
        and(
          eq(roomFavorites.userUuid, userUuid),
          q.roomUuidIn ? inArray(roomFavorites.roomUuid, q.roomUuidIn) : undefined,
          everything ? undefined : listed,
        ),
      )
      .orderBy(desc(roomFavorites.createdAt), desc(roomFavorites.id))
      .limit(q.limit)
      .all();
    return c.json(rows.map((r) => favoriteDto(r.f)));
  },
);

// A favourite's numeric id, or a room uuid meaning "my favourite of this room".
const favoriteId = z.object({
  id: z.union([z.string().regex(/^\d+$/).transform(Number), z.uuid()], {
    error: "id must be a favourite id or a room UUID",
  }),
});

/** DELETE /api/v1/room-favorites/{id}: the owner of the favourite (or an admin). */
roomFavoriteRoutes.delete(
  "/api/v1/room-favorites/:id",
  requireUser,
  valid("param", favoriteId),
  async (c) => {
    const who = caller(c);
    const { id } = c.req.valid("param");
    const d = db(c.env);
    const where =
      typeof id === "number"
        ? eq(roomFavorites.id, id)
        : and(eq(roomFavorites.userUuid, who.uuid), eq(roomFavorites.roomUuid, id.toLowerCase()));
    const fav = await d.select().from(roomFavorites).where(where).get();
    if (!fav) throw new ApiError(404, MSG.favouriteNotFound);
    if (fav.userUuid !== who.uuid && !isAdmin(who)) throw forbidden(MSG.favouriteNotYours);
    await d.delete(roomFavorites).where(eq(roomFavorites.id, fav.id)).run();
    return c.json({ ...favoriteDto(fav), deleted: true });
  },
);

const roomFavoritesQuery = z.object({
  userUuid: fields.uuid.optional(),
  includePrivate: z
    .enum(["true", "false"], { error: "includePrivate must be true or false" })
    .transform((v) => v === "true")
    .default(false),
});

/**
 * GET /rooms/favorites?userUuid&includePrivate: the favourite rooms as RoomDtos with
 * `favorited: true`. includePrivate is honoured only for one's own list (or an admin's view).
 */
roomFavoriteRoutes.get(
  "/rooms/favorites",
  requireUser,
  valid("query", roomFavoritesQuery),
  async (c) => {
    const who = caller(c);
    const q = c.req.valid("query");
    const userUuid = q.userUuid ?? who.uuid;
    // Others see listed public rooms only; one's own list keeps unlisted rooms (a link was
    // followed to favourite them) and adds private ones on request.
    const own = userUuid === who.uuid || isAdmin(who);
    const visible = !own ? listed : q.includePrivate ? undefined : eq(rooms.type, "PUBLIC");
    const rows = await db(c.env)
      .select({ room: rooms })
      .from(roomFavorites)
      .innerJoin(rooms, eq(rooms.uuid, roomFavorites.roomUuid))
      .where(and(eq(roomFavorites.userUuid, userUuid), visible))
      .orderBy(desc(roomFavorites.createdAt), desc(roomFavorites.id))
      .limit(100)
      .all();
    const dtos = await withLiveCounts(
      c.env,
      rows.map((r) => r.room),
    );
    return c.json(dtos.map((d) => ({ ...d, favorited: true })));
  },
);
