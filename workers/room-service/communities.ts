import { and, count, desc, eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { communities, communityMembers, communityRooms, rooms } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { forbidden } from "../lib/errors";
import { limitOffset } from "../lib/paging";
import { valid } from "../lib/validate";
import {
  communityOr404,
  idParam,
  isCommunityAdmin,
  toCommunityDto,
  visibleOr404,
} from "./community-repo";
import { toRoomDto } from "./room-dto";
import { roomIdParam, roomOr404 } from "./room-repo";
import { MSG } from "./messages";

/** Public community reads, the rooms of a community, and the per-room and per-user lists. */
export const communityRoutes = new Hono<AppEnv>();

/** GET /communities/{id}: one community by id, uuid or slug, with its member and room counts. */
communityRoutes.get("/communities/:id", valid("param", idParam), async (c) => {
  const cm = await visibleOr404(c, c.req.valid("param").id);
  const [[{ members }], [{ roomCount }]] = await Promise.all([
    db(c.env)
      .select({ members: count() })
      .from(communityMembers)
      .where(eq(communityMembers.communityId, cm.id))
      .all(),
    db(c.env)
      .select({ roomCount: count() })
      .from(communityRooms)
      .where(eq(communityRooms.communityId, cm.id))
      .all(),
  ]);
  return c.json({ ...toCommunityDto(cm), numberOfMembers: members, numberOfRooms: roomCount });
});

/** GET /communities/{id}/rooms?limit&offset: RoomDtos, newest room first. */
communityRoutes.get(
  "/communities/:id/rooms",
  valid("param", idParam),
  valid("query", limitOffset(100, 20)),
  async (c) => {
    const cm = await visibleOr404(c, c.req.valid("param").id);
    const { limit, offset } = c.req.valid("query");
    const where = eq(communityRooms.communityId, cm.id);
    const [rows, [{ total }]] = await Promise.all([
      db(c.env)
        .select({ room: rooms })
        .from(communityRooms)
        .innerJoin(rooms, eq(rooms.id, communityRooms.roomId))
        .where(where)
        .orderBy(desc(rooms.id))
        .limit(limit)
        .offset(offset)
        .all(),
      db(c.env).select({ total: count() }).from(communityRooms).where(where).all(),
    ]);
    return c.json({ data: rows.map((r) => toRoomDto(r.room)), total, limit, offset });
  },
);

const pairParam = idParam.extend({ roomId: roomIdParam.shape.id });

/** Loads both sides and checks the caller may link them: a community admin or the room's owner. */
async function linkable(c: Context<AppEnv>, id: string, roomId: string) {
  const who = caller(c);
  const cm = await communityOr404(c.env, id);
  const room = await roomOr404(c.env, roomId);
  if (room.ownerUuid !== who.uuid && !(await isCommunityAdmin(c.env, cm, who)))
    throw forbidden(MSG.communityRoomRefused);
  return { cm, room };
}

/** Adds the room; adding it again is a no-op (the unique pair). */
async function addRoom(c: Context<AppEnv>) {
  const { id, roomId } = pairParam.parse(c.req.param());
  const { cm, room } = await linkable(c, id, roomId);
  await db(c.env)
    .insert(communityRooms)
    .values({ communityId: cm.id, roomId: room.id })
    .onConflictDoNothing()
    .run();
  return c.json({ communityId: cm.id, roomId: room.id });
}

async function removeRoom(c: Context<AppEnv>) {
  const { id, roomId } = pairParam.parse(c.req.param());
  const { cm, room } = await linkable(c, id, roomId);
  await db(c.env)
    .delete(communityRooms)
    .where(and(eq(communityRooms.communityId, cm.id), eq(communityRooms.roomId, room.id)))
    .run();
  return c.json({ communityId: cm.id, roomId: room.id, removed: true });
}

communityRoutes.put(
  "/communities/:id/rooms/:roomId",
  requireUser,
  valid("param", pairParam),
  addRoom,
);
communityRoutes.delete(
  "/communities/:id/rooms/:roomId",
  requireUser,
  valid("param", pairParam),
  removeRoom,
);
// The spec's aliases; registered last, after every fixed second segment (join, users, rooms...).
communityRoutes.post("/communities/:id/:roomId", requireUser, valid("param", pairParam), addRoom);
communityRoutes.delete(
  "/communities/:id/:roomId",
  requireUser,
  valid("param", pairParam),
  removeRoom,
);

/** GET /room-communities/{roomId}?limit&offset: the public communities a room is in. */
communityRoutes.get(
  "/room-communities/:roomId",
  valid("param", z.object({ roomId: roomIdParam.shape.id })),
  valid("query", limitOffset(100, 20)),
  async (c) => {
    const room = await roomOr404(c.env, c.req.valid("param").roomId);
    const { limit, offset } = c.req.valid("query");
    const where = and(eq(communityRooms.roomId, room.id), eq(communities.isPublic, true));
    const base = () =>
      db(c.env)
        .select({ cm: communities })
        .from(communityRooms)
        .innerJoin(communities, eq(communities.id, communityRooms.communityId));
    const [rows, [{ total }]] = await Promise.all([
      base().where(where).orderBy(desc(communities.id)).limit(limit).offset(offset).all(),
      db(c.env)
        .select({ total: count() })
        .from(communityRooms)
        .innerJoin(communities, eq(communities.id, communityRooms.communityId))
        .where(where)
        .all(),
    ]);
    return c.json({ data: rows.map((r) => toCommunityDto(r.cm)), total, limit, offset });
  },
);

/** GET /user-communities?limit&offset: the caller's communities with their role, latest joined first. */
communityRoutes.get(
  "/user-communities",
  requireUser,
  valid("query", limitOffset(100, 20)),
  async (c) => {
    const who = caller(c);
    const { limit, offset } = c.req.valid("query");
    const where = eq(communityMembers.userUuid, who.uuid);
    const [rows, [{ total }]] = await Promise.all([
      db(c.env)
        .select({
          cm: communities,
          role: communityMembers.role,
          joinedAt: communityMembers.joinedAt,
        })
        .from(communityMembers)
        .innerJoin(communities, eq(communities.id, communityMembers.communityId))
        .where(where)
        .orderBy(desc(communityMembers.joinedAt), desc(communities.id))
        .limit(limit)
        .offset(offset)
        .all(),
      db(c.env).select({ total: count() }).from(communityMembers).where(where).all(),
    ]);
    return c.json({
      data: rows.map((r) => ({
        ...toCommunityDto(r.cm),
        role: r.role,
        joinedAt: new Date(r.joinedAt).toISOString(),
      })),
      total,
      limit,
      offset,
    });
  },
);
