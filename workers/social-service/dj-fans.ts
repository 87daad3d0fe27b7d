import { aliasedTable, and, count, desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { z } from "zod";
import { db } from "../db/client";
import { djFans, users } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireAdmin, requireAnyToken, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { findAnyUserOr404, toOtherProfile } from "../user-service/accounts";
import { blockedEitherWay } from "./blocks";
import { SOCIAL_MSG } from "./messages";
import { activeUserOr404, iso, paged, peoplePage, uuidParam, visibleTo, type Page } from "./people";

/**
 * DJ fans (issue 14, seed 001 "DJ fan: djUuid, userUuid"): following a DJ, the lists and
 * counts on profile pages, and the admin views. Any account can be a DJ (anyone may take a
 * seat), so "a DJ" is any active account.
 *
 * The two lists of a DJ's fans differ on purpose:
 * - `/dj-fans/dj-fans-paginated/{id}` is the profile page's list: public profiles, each with
 *   `followedAt`, and `total` (one COUNT over the same filter) in `{ data, total, skip, take }`;
 * - `/dj-fans/dj-fans/{id}` is the light one: a bare array of `{ djUuid, userUuid, createdAt }`
 *   rows (no profiles, no count), for a caller that only needs the ids.
 * Both hide deactivated fans and, for the viewer, anyone blocked either way.
 */
export const djFanRoutes = new Hono<AppEnv>();

/** The most DJs one account may follow: a bound on what one script can write. */
export const MAX_FOLLOWS = 5000;

const fanRow = (r: typeof djFans.$inferSelect) => ({
  djUuid: r.djUuid,
  userUuid: r.userUuid,
  createdAt: iso(r.createdAt),
});

/**
 * Follows `dj`: one statement, so its conditions hold at the moment of writing: the pair is
 * unique (a second follow, even concurrent, is ignored), the follower's cap, and no block
 * either way (a block landing between the check and this write still wins).
 */
async function follow(env: Env, me: string, dj: string) {
  const d = db(env);
  await env.DB.prepare(
    `insert or ignore into dj_fans (dj_uuid, user_uuid)
     select ?1, ?2
     where (select count(*) from dj_fans where user_uuid = ?2) < ?3
       and not exists (select 1 from blocked_users
         where (blocker_uuid = ?1 and blocked_uuid = ?2) or (blocker_uuid = ?2 and blocked_uuid = ?1))`,
  )
    .bind(dj, me, MAX_FOLLOWS)
    .run();
  const row = await d
    .select()
    .from(djFans)
    .where(and(eq(djFans.djUuid, dj), eq(djFans.userUuid, me)))
    .get();
  if (row) return row;
  // Not written: blocked either way (the same 404 as a missing DJ), or the cap.
  if (await blockedEitherWay(env, me, dj)) throw new ApiError(404, SOCIAL_MSG.userNotFound);
  throw new ApiError(409, SOCIAL_MSG.tooManyFollows(MAX_FOLLOWS));
}

/** POST /dj-fans {djUuid}: follow. Twice answers the same row (201 both times). */
djFanRoutes.post(
  "/dj-fans",
  requireUser,
  valid("json", z.strictObject({ djUuid: fields.uuid })),
  async (c) => {
    const me = caller(c).uuid;
    const { djUuid } = c.req.valid("json");
    if (djUuid === me) throw new ApiError(400, SOCIAL_MSG.selfFollow);
    await activeUserOr404(c.env, djUuid);
    // A DJ who blocked you (or whom you blocked) is as unknown as a missing one.
    if (await blockedEitherWay(c.env, me, djUuid)) throw new ApiError(404, SOCIAL_MSG.userNotFound);
    return c.json(fanRow(await follow(c.env, me, djUuid)), 201);
  },
);

/**
 * One page of people on one side of dj_fans, newest follow first, seen by `viewer`:
 * `side` "fans" lists the fans of `uuid`, "djs" the DJs `uuid` follows.
 */
async function peopleOf(
  env: Env,
  uuid: string,
  side: "fans" | "djs",
  viewer: string | undefined,
  page: Page,
) {
  const [mine, theirs] =
    side === "fans" ? [djFans.djUuid, djFans.userUuid] : [djFans.userUuid, djFans.djUuid];
  const where = and(eq(mine, uuid), visibleTo(viewer, theirs));
  const d = db(env);
  // Not db.batch: D1 batch answers rows as objects keyed by column name, so the two tables'
  // created_at would collide in a join; two reads are fine for a page.
  const [rows, [{ total }]] = await Promise.all([
    d
      .select({ fan: djFans, user: users })
      .from(djFans)
      .innerJoin(users, eq(users.uuid, theirs))
      .where(where)
      .orderBy(desc(djFans.id))
      .limit(page.take)
      .offset(page.skip)
      .all(),
    d
      .select({ total: count() })
      .from(djFans)
      .innerJoin(users, eq(users.uuid, theirs))
      .where(where)
      .all(),
  ]);
  return { rows, total };
}

const profilePage = async (
  env: Env,
  uuid: string,
  side: "fans" | "djs",
  viewer: string | undefined,
  page: Page,
) => {
  const { rows, total } = await peopleOf(env, uuid, side, viewer, page);
  return paged(
    rows.map((r) => ({ ...toOtherProfile(r.user), followedAt: iso(r.fan.createdAt) })),
    total,
    page,
  );
};

/** GET /dj-fans: the DJs I follow. */
djFanRoutes.get("/dj-fans", requireUser, valid("query", peoplePage), async (c) => {
  const me = caller(c).uuid;
  return c.json(await profilePage(c.env, me, "djs", me, c.req.valid("query")));
});

const viewerOf = (c: Parameters<typeof caller>[0]) =>
  caller(c, ["user", "bot", "guest", "ghost"]).uuid;

djFanRoutes.get(
  "/dj-fans/dj-fans-paginated/:id",
  requireAnyToken,
  valid("param", uuidParam),
  valid("query", peoplePage),
  async (c) => {
    const { id } = c.req.valid("param");
    await activeUserOr404(c.env, id);
    return c.json(await profilePage(c.env, id, "fans", viewerOf(c), c.req.valid("query")));
  },
);

djFanRoutes.get(
  "/dj-fans/dj-fans/:id",
  requireAnyToken,
  valid("param", uuidParam),
  valid("query", peoplePage),
  async (c) => {
    const { id } = c.req.valid("param");
    await activeUserOr404(c.env, id);
    const { rows } = await peopleOf(c.env, id, "fans", viewerOf(c), c.req.valid("query"));
    return c.json(rows.map((r) => fanRow(r.fan)));
  },
);

djFanRoutes.get(
  "/dj-fans/:id/djs-followed",
  requireAnyToken,
  valid("param", uuidParam),
  valid("query", peoplePage),
  async (c) => {
    const { id } = c.req.valid("param");
    await activeUserOr404(c.env, id);
    return c.json(await profilePage(c.env, id, "djs", viewerOf(c), c.req.valid("query")));
  },
);

/**
 * Exact counts: COUNT(*) over the indexed columns, joined to users so a deactivated account
 * counts on neither side (as the lists show). No block filter: a count is the same for all.
 */
export async function fanCounts(env: Env, uuid: string) {
  const d = db(env);
  const [[fans], [following]] = await d.batch([
    d
      .select({ n: count() })
      .from(djFans)
      .innerJoin(users, eq(users.uuid, djFans.userUuid))
      .where(and(eq(djFans.djUuid, uuid), eq(users.deactivated, false))),
    d
      .select({ n: count() })
      .from(djFans)
      .innerJoin(users, eq(users.uuid, djFans.djUuid))
      .where(and(eq(djFans.userUuid, uuid), eq(users.deactivated, false))),
  ]);
  return { fans: fans.n, following: following.n };
}

djFanRoutes.get("/dj-fans/count/:id", requireAnyToken, valid("param", uuidParam), async (c) => {
  const { id } = c.req.valid("param");
  await activeUserOr404(c.env, id);
  return c.json(await fanCounts(c.env, id));
});

/** GET /dj-fans/dj-fan/{id}: whether I follow id, and since when. */
djFanRoutes.get("/dj-fans/dj-fan/:id", requireUser, valid("param", uuidParam), async (c) => {
  const row = await db(c.env)
    .select()
    .from(djFans)
    .where(and(eq(djFans.djUuid, c.req.valid("param").id), eq(djFans.userUuid, caller(c).uuid)))
    .get();
  return c.json({ following: !!row, followedAt: row ? iso(row.createdAt) : null });
});

/** DELETE /dj-fans/{id}: unfollow; not following is already the wanted state (200). */
djFanRoutes.delete("/dj-fans/:id", requireUser, valid("param", uuidParam), async (c) => {
  await db(c.env)
    .delete(djFans)
    .where(and(eq(djFans.djUuid, c.req.valid("param").id), eq(djFans.userUuid, caller(c).uuid)))
    .run();
  return c.json({ following: false });
});

/**
 * GET /dj-fans/admin/{id}: a user's follows and fans with timestamps, deactivated accounts
 * included and no block filter (an admin sees what is stored). `skip/take` page both lists.
 */
djFanRoutes.get(
  "/dj-fans/admin/:id",
  requireAdmin,
  valid("param", uuidParam),
  valid("query", peoplePage),
  async (c) => {
    const user = await findAnyUserOr404(c.env, c.req.valid("param").id);
    const page = c.req.valid("query");
    const d = db(c.env);
    const other = aliasedTable(users, "other");
    const side = (mine: SQLiteColumn, theirs: SQLiteColumn) =>
      Promise.all([
        d
          .select({ fan: djFans, nickname: other.nickname, deactivated: other.deactivated })
          .from(djFans)
          .leftJoin(other, eq(other.uuid, theirs))
          .where(eq(mine, user.uuid))
          .orderBy(desc(djFans.id))
          .limit(page.take)
          .offset(page.skip)
          .all(),
        d.select({ total: count() }).from(djFans).where(eq(mine, user.uuid)).get(),
      ]).then(([rows, t]) =>
        paged(
          rows.map((r) => ({
            ...fanRow(r.fan),
            nickname: r.nickname,
            deactivated: r.deactivated ?? null,
          })),
          t?.total ?? 0,
          page,
        ),
      );
    const [follows, fans] = await Promise.all([
      side(djFans.userUuid, djFans.djUuid),
      side(djFans.djUuid, djFans.userUuid),
    ]);
    return c.json({ uuid: user.uuid, nickname: user.nickname, follows, fans });
  },
);
