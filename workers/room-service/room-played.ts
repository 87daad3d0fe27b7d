import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import type { AppEnv, Env } from "../env";
import { requireAdmin, requireAnyToken } from "../lib/auth";
import { valid } from "../lib/validate";
import { roomIdParam, roomOr404 } from "./room-repo";

/**
 * Played time (seed 001 "Room service: info"), summed from recent_song_plays, which the
 * Room object writes once per play (playedAt is the song's start). A play counts its song's
 * duration, cut at the next play's start in the same room (a skip ends it early); a play
 * without a usable duration counts the gap to the next play, at most MAX_PLAY_SECONDS; the
 * last play of a room without a duration counts 0. Done in SQL (LEAD over the room's plays,
 * on the room/playedAt index) so no row list is carried into the Worker.
 */
export const roomPlayedRoutes = new Hono<AppEnv>();

/** The longest a room lets a song run (roomFields.maxSongSeconds' maximum). */
const MAX_PLAY_SECONDS = 3 * 3600;

/** One play's seconds, from `d` (duration), `gap` (ms to the next start, or null). */
const PLAY_SECONDS = sql.raw(`case
  when typeof(d) in ('integer', 'real') and d > 0 and gap is not null then min(d, ${MAX_PLAY_SECONDS}, gap / 1000.0)
  when typeof(d) in ('integer', 'real') and d > 0 then min(d, ${MAX_PLAY_SECONDS})
  when gap is not null then min(gap / 1000.0, ${MAX_PLAY_SECONDS})
  else 0 end`);

interface Totals {
  plays: number;
  seconds: number;
  rooms: number;
}

/**
 * Sums over the plays with `from <= playedAt < to`, optionally of one room. The gap of the
 * last play before `to` still sees the play after it (the upper bound applies outside the
 * window), so a range cut does not shorten the play it cuts through.
 */
async function playedTotals(
  env: Env,
  range: { slug?: string; from?: number; to?: number },
): Promise<Totals> {
  const inner = [sql`1 = 1`];
  if (range.slug !== undefined) inner.push(sql`room_slug = ${range.slug}`);
  if (range.from !== undefined) inner.push(sql`played_at >= ${range.from}`);
  const outer = range.to !== undefined ? sql`played_at < ${range.to}` : sql`1 = 1`;
  const row = await db(env).get<{ plays: number; seconds: number | null; rooms: number }>(sql`
    select count(*) as plays, sum(${PLAY_SECONDS}) as seconds, count(distinct room_slug) as rooms from (
      select room_slug, played_at, json_extract(song, '$.duration') as d,
        lead(played_at) over (partition by room_slug order by played_at, id) - played_at as gap
      from recent_song_plays where ${sql.join(inner, sql` and `)}
    ) where ${outer}`);
  return { plays: row?.plays ?? 0, seconds: Math.round(row?.seconds ?? 0), rooms: row?.rooms ?? 0 };
}

/**
 * GET /rooms/room-played-time/{id} → `{ roomUuid, playedSeconds, plays }`. Plays are kept
 * by slug (the object records them so), so a room whose slug changed counts only the plays
 * since the change.
 */
roomPlayedRoutes.get(
  "/rooms/room-played-time/:id",
  requireAnyToken,
  valid("param", roomIdParam),
  async (c) => {
    const room = await roomOr404(c.env, c.req.valid("param").id);
    const t = await playedTotals(c.env, { slug: room.slug });
    return c.json({
      roomUuid: room.uuid,
      slug: room.slug,
      playedSeconds: t.seconds,
      plays: t.plays,
    });
  },
);

const epochMs = (name: string) =>
  z.coerce
    .number({ error: `${name} must be epoch milliseconds` })
    .int(`${name} must be whole epoch milliseconds`)
    .min(0, `${name} must not be negative`)
    .max(8.64e15, `${name} is out of range`);

/** GET /info-admin/played-seconds?from&to (admin) → totals over every room; from inclusive, to exclusive. */
roomPlayedRoutes.get(
  "/info-admin/played-seconds",
  requireAdmin,
  valid(
    "query",
    z
      .object({ from: epochMs("from").optional(), to: epochMs("to").optional() })
      .refine(
        (q) => q.from === undefined || q.to === undefined || q.from < q.to,
        "from must be before to",
      ),
  ),
  async (c) => {
    const { from, to } = c.req.valid("query");
    const t = await playedTotals(c.env, { from, to });
    return c.json({
      playedSeconds: t.seconds,
      plays: t.plays,
      rooms: t.rooms,
      from: from ?? null,
      to: to ?? null,
    });
  },
);
