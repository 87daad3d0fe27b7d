import { and, count, desc, eq, or, sql } from "drizzle-orm";
import { Hono } from "hono";
import { ADMIN_ROLES } from "../../shared/roles";
import { db } from "../db/client";
import { friends, users } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { valid } from "../lib/validate";
import { toOtherProfile } from "../user-service/accounts";
import { friendshipOf, sortedPair } from "./friendship";
import { SOCIAL_MSG } from "./messages";
import {
  activeUserOr404,
  iso,
  paged,
  peoplePage,
  profilesOf,
  uuidParam,
  visibleTo,
} from "./people";

/**
 * Friends: a user's list, single lookups, unfriend.
 *
 * Who may see another's friend list: that user, their friends, and admins. A friend list
 * says who someone spends time with; strangers (and so anyone blocked, since a block ends
 * the friendship) get 403. Whether *I* am friends with someone is always mine to ask.
 */
export const friendRoutes = new Hono<AppEnv>();

/** The other side of a friends row, for `uuid`. */
const otherSide = (uuid: string) =>
  sql<string>`case when ${friends.userA} = ${uuid} then ${friends.userB} else ${friends.userA} end`;

friendRoutes.get(
  "/friends/list/:id",
  requireUser,
  valid("param", uuidParam),
  valid("query", peoplePage),
  async (c) => {
    const who = caller(c);
    const { id } = c.req.valid("param");
    await activeUserOr404(c.env, id);
    const mayLook =
      id === who.uuid ||
      who.roles.some((r) => ADMIN_ROLES.includes(r)) ||
      !!(await friendshipOf(c.env, id, who.uuid));
    if (!mayLook) throw new ApiError(403, SOCIAL_MSG.friendListHidden);
    const page = c.req.valid("query");
    const friend = otherSide(id);
    // Someone in their list who blocked me, or whom I blocked, is not shown to me.
    const where = and(
      or(eq(friends.userA, id), eq(friends.userB, id)),
      visibleTo(who.uuid, friend),
    );
    const d = db(c.env);
    const [rows, [{ total }]] = await Promise.all([
      d
        .select({ since: friends.createdAt, user: users })
        .from(friends)
        .innerJoin(users, eq(users.uuid, friend))
        .where(where)
        .orderBy(desc(friends.createdAt))
        .limit(page.take)
        .offset(page.skip)
        .all(),
      d
        .select({ total: count() })
        .from(friends)
        .innerJoin(users, eq(users.uuid, friend))
        .where(where)
        .all(),
    ]);
    return c.json(
      paged(
        rows.map((r) => ({ ...toOtherProfile(r.user), friendsSince: iso(r.since) })),
        total,
        page,
      ),
    );
  },
);

/** GET /friends/{id}: whether I am friends with id. */
friendRoutes.get("/friends/:id", requireUser, valid("param", uuidParam), async (c) => {
  const row = await friendshipOf(c.env, caller(c).uuid, c.req.valid("param").id);
  return c.json({ friends: !!row, friendsSince: row ? iso(row.createdAt) : null });
});

/** GET /friends/single-friend/{id}: the friendship with id and their profile, or 404. */
friendRoutes.get(
  "/friends/single-friend/:id",
  requireUser,
  valid("param", uuidParam),
  async (c) => {
    const me = caller(c).uuid;
    const { id } = c.req.valid("param");
    const row = await friendshipOf(c.env, me, id);
    const profile = row ? (await profilesOf(c.env, [id])).get(id) : undefined;
    if (!row || !profile) throw new ApiError(404, SOCIAL_MSG.friendshipNotFound);
    return c.json({
      userUuid: me,
      friendUuid: id,
      friendsSince: iso(row.createdAt),
      friend: profile,
    });
  },
);

/** DELETE /friends/{id}: unfriend; not friends is already the wanted state (200). */
friendRoutes.delete("/friends/:id", requireUser, valid("param", uuidParam), async (c) => {
  const [a, b] = sortedPair(caller(c).uuid, c.req.valid("param").id);
  await db(c.env)
    .delete(friends)
    .where(and(eq(friends.userA, a), eq(friends.userB, b)))
    .run();
  return c.json({ friends: false });
});
