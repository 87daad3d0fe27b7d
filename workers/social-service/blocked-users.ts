import { and, count, desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { blockedUsers, users } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { tellUserRooms } from "../room-service/user-rooms";
import { findUserOr404, toOtherProfile } from "../user-service/accounts";
import { MAX_BLOCKS } from "./blocks";
import { SOCIAL_MSG } from "./messages";
import { iso, paged, peoplePage, uuidParam } from "./people";

/**
 * Blocks (issue 14). Blocking `them` is one D1 batch (one transaction), so nobody ever sees
 * half of it: the block row, and, only if that row exists, the end of the friendship, of
 * pending invitations both ways and of follows both ways. A block refuses their friend
 * invitations and follows (the same 404 as a missing user) and hides each from the other's
 * people lists (people.ts, visibleTo). What other code calls is in blocks.ts.
 */
export const blockedUserRoutes = new Hono<AppEnv>();

const blockRow = (r: typeof blockedUsers.$inferSelect) => ({
  blockerUuid: r.blockerUuid,
  blockedUuid: r.blockedUuid,
  createdAt: iso(r.createdAt),
});

/** The statements of one block; the clean-ups run only where the block row exists. */
function blockBatch(env: Env, me: string, them: string) {
  const exists = `exists (select 1 from blocked_users where blocker_uuid = ?1 and blocked_uuid = ?2)`;
  const [a, b] = me < them ? [me, them] : [them, me];
  return env.DB.batch([
    env.DB.prepare(
      `insert or ignore into blocked_users (blocker_uuid, blocked_uuid)
       select ?1, ?2 where (select count(*) from blocked_users where blocker_uuid = ?1) < ?3`,
    ).bind(me, them, MAX_BLOCKS),
    env.DB.prepare(`delete from friends where user_a = ?3 and user_b = ?4 and ${exists}`).bind(
      me,
      them,
      a,
      b,
    ),
    env.DB.prepare(
      `delete from friend_invitations where status = 'pending'
         and ((from_uuid = ?1 and to_uuid = ?2) or (from_uuid = ?2 and to_uuid = ?1)) and ${exists}`,
    ).bind(me, them),
    env.DB.prepare(
      `delete from dj_fans where ((dj_uuid = ?1 and user_uuid = ?2) or (dj_uuid = ?2 and user_uuid = ?1)) and ${exists}`,
    ).bind(me, them),
  ]);
}

/** POST /blocked-users {userUuid}: block; twice answers the same row (201 both times). */
blockedUserRoutes.post(
  "/blocked-users",
  requireUser,
  valid("json", z.strictObject({ userUuid: fields.uuid })),
  async (c) => {
    const me = caller(c).uuid;
    const { userUuid } = c.req.valid("json");
    if (userUuid === me) throw new ApiError(400, SOCIAL_MSG.selfBlock);
    await findUserOr404(c.env, userUuid);
    await blockBatch(c.env, me, userUuid);
    const row = await db(c.env)
      .select()
      .from(blockedUsers)
      .where(and(eq(blockedUsers.blockerUuid, me), eq(blockedUsers.blockedUuid, userUuid)))
      .get();
    if (!row) throw new ApiError(409, SOCIAL_MSG.tooManyBlocks(MAX_BLOCKS));
    await tellUserRooms(c.env, me); // the rooms I am in hide them from now on
    return c.json(blockRow(row), 201);
  },
);

/** GET /blocked-users: whom I blocked, newest first, with their public profiles. */
blockedUserRoutes.get("/blocked-users", requireUser, valid("query", peoplePage), async (c) => {
  const page = c.req.valid("query");
  const where = and(eq(blockedUsers.blockerUuid, caller(c).uuid), eq(users.deactivated, false));
  const d = db(c.env);
  const [rows, [{ total }]] = await Promise.all([
    d
      .select({ block: blockedUsers, user: users })
      .from(blockedUsers)
      .innerJoin(users, eq(users.uuid, blockedUsers.blockedUuid))
      .where(where)
      .orderBy(desc(blockedUsers.createdAt))
      .limit(page.take)
      .offset(page.skip)
      .all(),
    d
      .select({ total: count() })
      .from(blockedUsers)
      .innerJoin(users, eq(users.uuid, blockedUsers.blockedUuid))
      .where(where)
      .all(),
  ]);
  return c.json(
    paged(
      rows.map((r) => ({ ...toOtherProfile(r.user), blockedAt: iso(r.block.createdAt) })),
      total,
      page,
    ),
  );
});

/** GET /blocked-users/{id}: whether I blocked id (not whether id blocked me: that stays private). */
blockedUserRoutes.get("/blocked-users/:id", requireUser, valid("param", uuidParam), async (c) => {
  const row = await db(c.env)
    .select()
    .from(blockedUsers)
    .where(
      and(
        eq(blockedUsers.blockerUuid, caller(c).uuid),
        eq(blockedUsers.blockedUuid, c.req.valid("param").id),
      ),
    )
    .get();
  return c.json({ blocked: !!row, blockedAt: row ? iso(row.createdAt) : null });
});

/** DELETE /blocked-users/{id}: unblock (what the block ended stays ended); idempotent. */
blockedUserRoutes.delete(
  "/blocked-users/:id",
  requireUser,
  valid("param", uuidParam),
  async (c) => {
    await db(c.env)
      .delete(blockedUsers)
      .where(
        and(
          eq(blockedUsers.blockerUuid, caller(c).uuid),
          eq(blockedUsers.blockedUuid, c.req.valid("param").id),
        ),
      )
      .run();
    await tellUserRooms(c.env, caller(c).uuid); // their new lines show again in my rooms
    return c.json({ blocked: false });
  },
);
