import { and, count, desc, eq, inArray, isNotNull, or, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { MUSIC_PROVIDERS } from "../../shared/songs";
import { db } from "../db/client";
import { recentRooms, rooms, type RoomRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireAnyToken, requireUser } from "../lib/auth";
import { limitOffset } from "../lib/paging";
import { verifyPassword } from "../lib/password";
import { fields, valid } from "../lib/validate";
import { MSG } from "./messages";
import { presentUsers, withLiveCounts } from "./room-dto";
import { activeRoles, liveState, rolesOf } from "./room-moderation";
import { isAdmin, passwordBucket, roomIdParam, roomOr404 } from "./room-repo";
import { forbidden } from "../lib/errors";
import { ticketAdmits } from "../lib/room-ticket";

/**
 * Room lists and live reads. Mounted before rooms.ts so `/rooms/public` and friends are
 * never taken for `/rooms/{id}`. Lists carry live user counts, asked of every room's
 * object in parallel; an object that fails or is slow counts 0, never a 500.
 */
export const roomListRoutes = new Hono<AppEnv>();

/** Rooms anyone may browse: public and not unlisted. */
const listed = and(eq(rooms.type, "PUBLIC"), eq(rooms.unlisted, false));
const newest = [desc(rooms.createdAt), desc(rooms.id)];

/** GET /rooms/public?limit&offset: `{ data, total, limit, offset }`, newest first. */
roomListRoutes.get("/rooms/public", valid("query", limitOffset(100, 20)), async (c) => {
  const { limit, offset } = c.req.valid("query");
  const d = db(c.env);
  const [rows, [{ total }]] = await Promise.all([
    d
      .select()
      .from(rooms)
      .where(listed)
      .orderBy(...newest)
      .limit(limit)
      .offset(offset)
      .all(),
    d.select({ total: count() }).from(rooms).where(listed).all(),
  ]);
  return c.json({ data: await withLiveCounts(c.env, rows), total, limit, offset });
});

// `providers=spotify,youtube` or repeated `providers=`; each must be a known provider.
const providerList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    [v]
      .flat()
      .flatMap((s) => s.split(","))
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(
    z.array(
      z.enum(MUSIC_PROVIDERS, { error: `providers must be among ${MUSIC_PROVIDERS.join(", ")}` }),
    ),
  );

/**
 * GET /rooms/promoted-rooms?providers=: promoted listed rooms. With providers, only rooms
 * that play from one of them, or from any provider (an empty musicProviderKeys).
 */
roomListRoutes.get(
  "/rooms/promoted-rooms",
  valid("query", z.object({ providers: providerList.optional() })),
  async (c) => {
    const providers = c.req.valid("query").providers ?? [];
    const plays = providers.length
      ? or(
          sql`json_array_length(${rooms.musicProviderKeys}) = 0`,
          sql`exists (select 1 from json_each(${rooms.musicProviderKeys}) where json_each.value in ${providers})`,
        )
      : undefined;
    const rows = await db(c.env)
      .select()
      .from(rooms)
      .where(and(listed, eq(rooms.promoted, true), plays))
      .orderBy(...newest)
      .limit(50)
      .all();
    return c.json(await withLiveCounts(c.env, rows));
  },
);

const owned = (uuid: string) => eq(rooms.ownerUuid, uuid);
const ownedList = limitOffset(100, 50);

/** A page of the rooms `uuid` owns, newest first, with live counts. */
async function ownedRooms(env: Env, uuid: string, q: { limit: number; offset: number }) {
  const rows = await db(env)
    .select()
    .from(rooms)
    .where(owned(uuid))
    .orderBy(...newest)
    .limit(q.limit)
    .offset(q.offset)
    .all();
  return withLiveCounts(env, rows);
}

/** GET /rooms/mine/list: rooms the caller owns or holds a role in. Roles live in the objects, so for now: owned. */
roomListRoutes.get("/rooms/mine/list", requireUser, valid("query", ownedList), async (c) =>
  c.json(await ownedRooms(c.env, caller(c).uuid, c.req.valid("query"))),
);

/** GET /rooms/owned-rooms/list: the rooms the caller owns. */
roomListRoutes.get("/rooms/owned-rooms/list", requireUser, valid("query", ownedList), async (c) =>
  c.json(await ownedRooms(c.env, caller(c).uuid, c.req.valid("query"))),
);

const roomUuidBody = z.object({ roomUuid: fields.uuid });

/** POST /rooms/recent `{roomUuid}`: records a visit (a repeat visit moves it to the top). */
roomListRoutes.post("/rooms/recent", requireUser, valid("json", roomUuidBody), async (c) => {
  const { roomUuid } = c.req.valid("json");
  const room = await roomOr404(c.env, roomUuid);
  const visitedAt = Date.now();
  await db(c.env)
    .insert(recentRooms)
    .values({ userUuid: caller(c).uuid, roomUuid: room.uuid, visitedAt })
    .onConflictDoUpdate({
      target: [recentRooms.userUuid, recentRooms.roomUuid],
      set: { visitedAt },
    })
    .run();
  return c.json({ roomUuid: room.uuid, visitedAt: new Date(visitedAt).toISOString() }, 201);
});

/** GET /rooms/recent?limit: the caller's recently visited rooms, latest first, with `visitedAt`. */
roomListRoutes.get("/rooms/recent", requireUser, valid("query", limitOffset(50, 20)), async (c) => {
  const { limit, offset } = c.req.valid("query");
  const rows = await db(c.env)
    .select({ room: rooms, visitedAt: recentRooms.visitedAt })
    .from(recentRooms)
    .innerJoin(rooms, eq(rooms.uuid, recentRooms.roomUuid))
    .where(eq(recentRooms.userUuid, caller(c).uuid))
    .orderBy(desc(recentRooms.visitedAt))
    .limit(limit)
    .offset(offset)
    .all();
  const dtos = await withLiveCounts(
    c.env,
    rows.map((r) => r.room),
  );
  return c.json(
    dtos.map((d, i) => ({ ...d, visitedAt: new Date(rows[i].visitedAt).toISOString() })),
  );
});

const uuidList = z
  .union([z.string(), z.array(z.string())], {
    error: "room is required: send room=<uuid>, repeated",
  })
  .transform((v) => [
    ...new Set(
      [v]
        .flat()
        .flatMap((s) => s.split(","))
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
    ),
  ])
  .pipe(z.array(fields.uuid).min(1, "room is required").max(50, "at most 50 rooms at a time"));

/** GET /rooms/multiple/list?room=uuid&room=uuid: those rooms, in the order asked; unknown uuids are skipped. */
roomListRoutes.get(
  "/rooms/multiple/list",
  valid("query", z.object({ room: uuidList })),
  async (c) => {
    const wanted = c.req.valid("query").room;
    const rows = await db(c.env).select().from(rooms).where(inArray(rooms.uuid, wanted)).all();
    const byUuid = new Map(rows.map((r) => [r.uuid, r]));
    return c.json(
      await withLiveCounts(
        c.env,
        wanted.map((u) => byUuid.get(u)).filter((r): r is RoomRow => !!r),
      ),
    );
  },
);

/** GET /rooms/private-count: how many private rooms exist (the browse page's teaser). */
roomListRoutes.get("/rooms/private-count", async (c) => {
  const [{ total }] = await db(c.env)
    .select({ total: count() })
    .from(rooms)
    .where(eq(rooms.type, "PRIVATE"))
    .all();
  return c.json({ count: total });
});

const passwordsBody = z.object({
  passwords: z
    .array(
      z
        .string({ error: "passwords must be strings" })
        .min(1, "a password must not be empty")
        .max(128, "a password must be at most 128 characters"),
      {
        error: "passwords must be a list of strings",
      },
    )
    .min(1, "passwords must not be empty")
    .max(10, "at most 10 passwords at a time"),
});

/**
 * POST /rooms/list `{passwords}`: private rooms whose password is one of these. The keyed
 * 16-bit bucket finds the candidates by index; PBKDF2 then decides, so the cost is a few
 * hash checks per password, not one per private room.
 */
roomListRoutes.post("/rooms/list", requireAnyToken, valid("json", passwordsBody), async (c) => {
  const passwords = [...new Set(c.req.valid("json").passwords)];
  const buckets = await Promise.all(passwords.map((p) => passwordBucket(c.env, p)));
  const candidates = await db(c.env)
    .select()
    .from(rooms)
    .where(
      and(
        eq(rooms.type, "PRIVATE"),
        isNotNull(rooms.passwordHash),
        inArray(rooms.passwordBucket, [...new Set(buckets)]),
      ),
    )
    .orderBy(...newest)
    .limit(100)
    .all();
  const matches: RoomRow[] = [];
  for (const room of candidates) {
    const tries = passwords.filter((_, i) => buckets[i] === room.passwordBucket);
    for (const p of tries) {
      if (await verifyPassword(p, room.passwordHash)) {
        matches.push(room);
        break;
      }
    }
  }
  return c.json(await withLiveCounts(c.env, matches));
});

/** GET /rooms/users/{id}: uuids of the users present now (guests are not counted; the object decides). */
roomListRoutes.get("/rooms/users/:id", valid("param", roomIdParam), async (c) => {
  const room = await roomOr404(c.env, c.req.valid("param").id);
  const uuids = await presentUsers(c.env, room.uuid);
  return c.json({
    roomUuid: room.uuid,
    usersInRoomUuids: uuids,
    numberOfUsersInRoom: uuids.length,
  });
});

/**
 * GET /rooms/room-state/{id}: the live state as the object holds it; 503 when it cannot
 * answer. Only to whoever may join the room, by the socket's rule: the owner and admins;
 * in a password room (either password) nobody else without the join ticket that
 * POST /rooms/{id}/join issued (`?ticket=`), and never a guest; and nobody banned there.
 */
roomListRoutes.get(
  "/rooms/room-state/:id",
  requireAnyToken,
  valid("param", roomIdParam),
  valid("query", z.object({ ticket: z.string().max(512).optional() })),
  async (c) => {
    const who = caller(c, ["user", "bot", "guest", "ghost"]);
    const room = await roomOr404(c.env, c.req.valid("param").id);
    const privileged = room.ownerUuid === who.uuid || isAdmin(who);
    if (!privileged && (room.passwordHash !== null || room.guestPasswordHash !== null)) {
      if (who.type === "guest") throw forbidden(MSG.roomStateGuest);
      if (who.type === "ghost") throw forbidden(MSG.ghostPublicOnly);
      const ticket = c.req.valid("query").ticket ?? null;
      if (!(await ticketAdmits(c.env, ticket, room.uuid, who.uuid)))
        throw forbidden(MSG.joinPasswordRequired);
    }
    const state = await liveState(c.env, room);
    if (!privileged && rolesOf(activeRoles(state), who.uuid).has("banned"))
      throw forbidden(MSG.chatBanned);
    return c.json(state);
  },
);
