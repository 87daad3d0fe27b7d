import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { DISCOVER_SORTS, ROOM_DESIGNS, ROOM_GENRES } from "../../shared/rooms";
import { db } from "../db/client";
import { rooms, users, type RoomRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { clientNet } from "../lib/abuse-limits";
import { takeAttempt } from "../lib/rate-limit";
import { valid } from "../lib/validate";
import { MSG } from "./messages";
import { liveSummary, toRoomDto } from "./room-dto";

/**
 * Room discovery (issue 20): GET /rooms/discover finds listed rooms by name, genre and
 * design, sorted by listeners, by activity or newest first. Each card carries what plays
 * and its DJ (the live object's summary) and, for a signed-in caller, which of their
 * friends are in the room.
 *
 * Listener counts live in the rooms' objects, not in D1, so "by listeners" ranks a bounded
 * pool: the LISTENER_POOL matching rooms most recently played in (then newest), each asked
 * for its summary in parallel (a slow object counts 0). A room busy enough to matter plays
 * songs, so it is in that pool; a page past the pool is empty rather than a fan-out to
 * every room. Activity is the room's latest play (recent_song_plays, whose (room_slug,
 * played_at) index answers max() per room with one probe).
 */
export const roomDiscoverRoutes = new Hono<AppEnv>();

/** Rooms ranked by live listeners at most (and so the deepest a listeners page reaches): the
 * same fan-out the browse page made before (GET /rooms/public?limit=60). */
export const LISTENER_POOL = 60;
/** Friends named per card; the rest are counted in `friendInRoomUuids`. */
const FRIENDS_SHOWN = 5;

const list = (xs: readonly string[]) => xs.join(", ");

export const discoverQuery = z.object({
  q: z
    .string()
    .trim()
    .max(100, "q must be at most 100 characters")
    .optional()
    .transform((s) => s || undefined),
  sort: z
    .enum(DISCOVER_SORTS, { error: `sort must be one of ${list(DISCOVER_SORTS)}` })
    .default("listeners"),
  genre: z.enum(ROOM_GENRES, { error: `genre must be one of ${list(ROOM_GENRES)}` }).optional(),
  design: z.enum(ROOM_DESIGNS, { error: `design must be one of ${list(ROOM_DESIGNS)}` }).optional(),
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be an integer")
    .min(1, "limit must be at least 1")
    .max(48, "limit must be at most 48")
    .default(24),
  offset: z.coerce
    .number({ error: "offset must be a number" })
    .int("offset must be an integer")
    .min(0, "offset must not be negative")
    .max(1000, "offset must be at most 1000")
    .default(0),
});
export type DiscoverQuery = z.output<typeof discoverQuery>;

/** `%q%` with LIKE's wildcards taken literally. */
const contains = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** The room's latest play (epoch ms) or null; one index probe per room. */
const lastPlayed = sql<
  number | null
>`(select max(p.played_at) from recent_song_plays p where p.room_slug = ${rooms.slug})`;

function whereOf(q: DiscoverQuery): SQL | undefined {
  return and(
    eq(rooms.type, "PUBLIC"),
    eq(rooms.unlisted, false),
    q.genre ? eq(rooms.genre, q.genre) : undefined,
    q.design ? eq(rooms.design, q.design) : undefined,
    q.q ? sql`lower(${rooms.name}) like ${contains(q.q)} escape '\\'` : undefined,
  );
}

type Row = { room: RoomRow; lastPlayedAt: number | null };

async function candidates(env: Env, q: DiscoverQuery, limit: number, offset: number) {
  const order =
    q.sort === "newest"
      ? [desc(rooms.createdAt), desc(rooms.id)]
      : [sql`${lastPlayed} is null`, desc(lastPlayed), desc(rooms.createdAt), desc(rooms.id)];
  return db(env)
    .select({ room: rooms, lastPlayedAt: lastPlayed })
    .from(rooms)
    .where(whereOf(q))
    .orderBy(...order)
    .limit(limit)
    .offset(offset)
    .all() as Promise<Row[]>;
}

interface FriendFace {
  uuid: string;
  nickname: string;
  avatarId: string | null;
  color: string | null;
}

/**
 * Which of `present` are the caller's friends, with the faces a card shows. The uuids go
 * in as one JSON parameter (json_each), so a crowded page never hits D1's bound-parameter
 * limit; the friends table's primary key (user_a, user_b) and its user_b index answer it.
 */
async function friendsAmong(env: Env, me: string, present: string[]): Promise<FriendFace[]> {
  if (present.length === 0) return [];
  const ids = JSON.stringify([...new Set(present)]);
  return db(env)
    .select({
      uuid: users.uuid,
      nickname: users.nickname,
      avatarId: users.avatarId,
      color: users.color,
    })
    .from(users)
    .where(
      sql`${users.uuid} in (
        select user_b from friends where user_a = ${me} and user_b in (select value from json_each(${ids}))
        union
        select user_a from friends where user_b = ${me} and user_a in (select value from json_each(${ids})))`,
    )
    .orderBy(asc(users.nickname))
    .all();
}

/** GET /rooms/discover?q&sort&genre&design&limit&offset → `{ data, total, limit, offset, sort }`. */
roomDiscoverRoutes.get("/rooms/discover", valid("query", discoverQuery), async (c) => {
  const q = c.req.valid("query");
  const env = c.env;
  // Budgeted per network before any room is asked (RULES.roomDiscoverPerIp).
  await takeAttempt(
    env,
    [{ rule: "roomDiscoverPerIp", key: clientNet(c.req.header("CF-Connecting-IP")) }],
    MSG.tooManySearches,
  );
  const byListeners = q.sort === "listeners";
  const [[{ total }], rows] = await Promise.all([
    db(env).select({ total: count() }).from(rooms).where(whereOf(q)).all(),
    byListeners
      ? q.offset >= LISTENER_POOL
        ? Promise.resolve([] as Row[])
        : candidates(env, q, LISTENER_POOL, 0)
      : candidates(env, q, q.limit, q.offset),
  ]);
  const live = await Promise.all(rows.map((r) => liveSummary(env, r.room.uuid)));
  let cards = rows.map((r, i) => ({ ...r, live: live[i] }));
  if (byListeners) {
    // Stable: equal crowds keep the activity order the pool came in.
    cards = cards
      .map((x, i) => ({ x, i }))
      .sort((a, b) => b.x.live.userUuids.length - a.x.live.userUuids.length || a.i - b.i)
      .map(({ x }) => x)
      .slice(q.offset, q.offset + q.limit);
  }
  // Friends: only for an account (a guest has none), only among the rooms on this page.
  const me = c.get("caller");
  const friends =
    me && (me.type === "user" || me.type === "bot")
      ? await friendsAmong(
          env,
          me.uuid,
          cards.flatMap((x) => x.live.userUuids),
        )
      : [];
  const data = cards.map(({ room, lastPlayedAt, live: s }) => {
    const here = new Set(s.userUuids);
    const inRoom = friends.filter((f) => here.has(f.uuid));
    return {
      ...toRoomDto(room, {
        usersInRoomUuids: s.userUuids,
        numberOfUsersInRoom: s.userUuids.length,
        numberOfActiveDjs: s.numberOfActiveDjs,
        song: s.nowPlaying,
        friendInRoomUuids: inRoom.map((f) => f.uuid),
      }),
      friendsInRoom: inRoom.slice(0, FRIENDS_SHOWN),
      lastPlayedAt: lastPlayedAt === null ? null : new Date(lastPlayedAt).toISOString(),
    };
  });
  return c.json({ data, total, limit: q.limit, offset: q.offset, sort: q.sort });
});
