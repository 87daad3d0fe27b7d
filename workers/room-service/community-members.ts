import { and, count, desc, eq, inArray } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { batchOf, db } from "../db/client";
import { communityMembers, communityRooms, users } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { limitOffset } from "../lib/paging";
import { fields, valid } from "../lib/validate";
import { communityOr404, idParam, requireCommunityAdmin, visibleOr404 } from "./community-repo";
import { findRoom } from "./room-repo";
import { MSG } from "./messages";

/**
 * Community membership: the member list, join/leave (idempotent: the unique pair and
 * ON CONFLICT DO NOTHING make a second join a no-op), admin-managed members, and the bulk
 * add/remove of rooms and users. Mounted before communities.ts, whose alias
 * `POST /communities/{id}/{roomId}` would otherwise take `join`, `leave`, `add`, `remove`.
 */
export const communityMemberRoutes = new Hono<AppEnv>();

const toMemberDto = (m: typeof communityMembers.$inferSelect) => ({
  userUuid: m.userUuid,
  role: m.role,
  joinedAt: new Date(m.joinedAt).toISOString(),
});

/** GET /communities/{id}/users?limit&offset: members, newest first. */
communityMemberRoutes.get(
  "/communities/:id/users",
  valid("param", idParam),
  valid("query", limitOffset(100, 20)),
  async (c) => {
    // A private community's members are as hidden as the community itself.
    const cm = await visibleOr404(c, c.req.valid("param").id);
    const { limit, offset } = c.req.valid("query");
    const where = eq(communityMembers.communityId, cm.id);
    const [rows, [{ total }]] = await Promise.all([
      db(c.env)
        .select()
        .from(communityMembers)
        .where(where)
        .orderBy(desc(communityMembers.joinedAt), desc(communityMembers.userUuid))
        .limit(limit)
        .offset(offset)
        .all(),
      db(c.env).select({ total: count() }).from(communityMembers).where(where).all(),
    ]);
    return c.json({ data: rows.map(toMemberDto), total, limit, offset });
  },
);

/** POST /communities/{id}/join: the caller becomes a member; joining again changes nothing. */
communityMemberRoutes.post(
  "/communities/:id/join",
  requireUser,
  valid("param", idParam),
  async (c) => {
    const who = caller(c);
    const cm = await communityOr404(c.env, c.req.valid("param").id);
    // A private community is joined only by invitation (an admin's PUT .../users/{userId}).
    if (!cm.isPublic && cm.ownerUuid !== who.uuid) throw new ApiError(403, MSG.communityPrivate);
    await db(c.env)
      .insert(communityMembers)
      .values({ communityId: cm.id, userUuid: who.uuid, joinedAt: Date.now() })
      .onConflictDoNothing()
      .run();
    const m = await db(c.env)
      .select()
      .from(communityMembers)
      .where(and(eq(communityMembers.communityId, cm.id), eq(communityMembers.userUuid, who.uuid)))
      .get();
    return c.json(toMemberDto(m!));
  },
);

/** POST /communities/{id}/leave: the caller leaves; leaving when not a member is fine too. */
communityMemberRoutes.post(
  "/communities/:id/leave",
  requireUser,
  valid("param", idParam),
  async (c) => {
    const who = caller(c);
    const cm = await communityOr404(c.env, c.req.valid("param").id);
    await db(c.env)
      .delete(communityMembers)
      .where(and(eq(communityMembers.communityId, cm.id), eq(communityMembers.userUuid, who.uuid)))
      .run();
    return c.json({ left: true });
  },
);

const userParam = idParam.extend({ userId: fields.uuid });
const roleBody = z.strictObject(
  { role: z.enum(["member", "admin"], { error: "role must be member or admin" }).optional() },
  { error: "body must be a JSON object" },
);

async function requireUsers(env: AppEnv["Bindings"], uuids: string[]) {
  if (uuids.length === 0) return;
  const found = await db(env)
    .select({ uuid: users.uuid })
    .from(users)
    .where(inArray(users.uuid, uuids))
    .all();
  const missing = uuids.filter((u) => !found.some((f) => f.uuid === u));
  if (missing.length) throw new ApiError(404, MSG.usersNotFound(missing));
}

/** PUT /communities/{id}/users/{userId} `{role?}`: adds the user or changes their role (community admin). */
communityMemberRoutes.put(
  "/communities/:id/users/:userId",
  requireUser,
  valid("param", userParam),
  valid("json", roleBody),
  async (c) => {
    const { id, userId } = c.req.valid("param");
    const cm = await communityOr404(c.env, id);
    await requireCommunityAdmin(c.env, cm, caller(c));
    await requireUsers(c.env, [userId]);
    const role = c.req.valid("json").role ?? "member";
    await db(c.env)
      .insert(communityMembers)
      .values({ communityId: cm.id, userUuid: userId, role, joinedAt: Date.now() })
      .onConflictDoUpdate({
        target: [communityMembers.communityId, communityMembers.userUuid],
        set: { role },
      })
      .run();
    const m = await db(c.env)
      .select()
      .from(communityMembers)
      .where(and(eq(communityMembers.communityId, cm.id), eq(communityMembers.userUuid, userId)))
      .get();
    return c.json(toMemberDto(m!));
  },
);

/** DELETE /communities/{id}/users/{userId}: removes a member (community admin). */
communityMemberRoutes.delete(
  "/communities/:id/users/:userId",
  requireUser,
  valid("param", userParam),
  async (c) => {
    const { id, userId } = c.req.valid("param");
    const cm = await communityOr404(c.env, id);
    await requireCommunityAdmin(c.env, cm, caller(c));
    await db(c.env)
      .delete(communityMembers)
      .where(and(eq(communityMembers.communityId, cm.id), eq(communityMembers.userUuid, userId)))
      .run();
    return c.json({ removed: true });
  },
);

const roomRef = z.union(
  [z.number().int().positive().transform(String), z.string().trim().min(1).max(64)],
  { error: "roomIds must hold room ids, uuids or slugs" },
);
// At most 50 of each: D1 binds at most 100 values per statement.
const bulkBody = z
  .strictObject(
    {
      roomIds: z
        .array(roomRef, { error: "roomIds must be a list" })
        .max(50, "roomIds must hold at most 50")
        .optional(),
      userUuids: z
        .array(fields.uuid, { error: "userUuids must be a list of UUIDs" })
        .max(50, "userUuids must hold at most 50")
        .optional(),
    },
    {
      error: (i) =>
        i.code === "unrecognized_keys"
          ? `Unknown field(s): ${i.keys.join(", ")}`
          : "body must be a JSON object",
    },
  )
  .refine(
    (b) => (b.roomIds?.length ?? 0) + (b.userUuids?.length ?? 0) > 0,
    "Send roomIds or userUuids.",
  );

/** Resolves every room reference or fails with 404 before anything is written. */
async function roomIdsOf(env: AppEnv["Bindings"], refs: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const ref of new Set(refs)) {
    const r = await findRoom(env, ref);
    if (!r) throw new ApiError(404, MSG.roomRefNotFound(ref));
    ids.push(r.id);
  }
  return ids;
}

/** POST /communities/{id}/add `{roomIds?, userUuids?}` (community admin): everything or nothing, in one batch. */
communityMemberRoutes.post(
  "/communities/:id/add",
  requireUser,
  valid("param", idParam),
  valid("json", bulkBody),
  async (c) => {
    const cm = await communityOr404(c.env, c.req.valid("param").id);
    await requireCommunityAdmin(c.env, cm, caller(c));
    const body = c.req.valid("json");
    const roomIds = await roomIdsOf(c.env, body.roomIds ?? []);
    const userUuids = [...new Set(body.userUuids ?? [])];
    await requireUsers(c.env, userUuids);
    const d = db(c.env);
    const now = Date.now();
    const stmts = [
      ...roomIds.map((roomId) =>
        d.insert(communityRooms).values({ communityId: cm.id, roomId }).onConflictDoNothing(),
      ),
      ...userUuids.map((userUuid) =>
        d
          .insert(communityMembers)
          .values({ communityId: cm.id, userUuid, joinedAt: now })
          .onConflictDoNothing(),
      ),
    ];
    await d.batch(batchOf(stmts));
    return c.json({ roomIds, userUuids });
  },
);

/** POST /communities/{id}/remove `{roomIds?, userUuids?}` (community admin). */
communityMemberRoutes.post(
  "/communities/:id/remove",
  requireUser,
  valid("param", idParam),
  valid("json", bulkBody),
  async (c) => {
    const cm = await communityOr404(c.env, c.req.valid("param").id);
    await requireCommunityAdmin(c.env, cm, caller(c));
    const body = c.req.valid("json");
    const roomIds = await roomIdsOf(c.env, body.roomIds ?? []);
    const userUuids = [...new Set(body.userUuids ?? [])];
    const d = db(c.env);
    if (roomIds.length)
      await d
        .delete(communityRooms)
        .where(and(eq(communityRooms.communityId, cm.id), inArray(communityRooms.roomId, roomIds)))
        .run();
    if (userUuids.length)
      await d
        .delete(communityMembers)
        .where(
          and(
            eq(communityMembers.communityId, cm.id),
            inArray(communityMembers.userUuid, userUuids),
          ),
        )
        .run();
    return c.json({ roomIds, userUuids });
  },
);
