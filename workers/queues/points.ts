import { z } from "zod";
import type { BatchResult, PointsEvent, Standing } from "../../durable/leaderboard";
import type { Env } from "../env";

/**
 * A points event (seed 000, points): who earns, how many, when it happened, and an id that
 * makes a redelivery count once. Room votes, `POST /points/service` and the admin
 * adjustment all travel this way to the Leaderboard objects.
 */
export const pointsMessage = z.object({
  eventId: z.string().min(1).max(200),
  userUuid: z.string().min(1).max(200),
  points: z.number().int(),
  /** Epoch ms the points were earned: picks the season the event lands in. */
  occurredAt: z.number().int(),
  source: z.enum(["room", "service", "admin"]),
  data: z.record(z.string(), z.unknown()).default({}),
});
export type PointsMessage = z.input<typeof pointsMessage>;

/** The board names: one per season, one for all time. */
export const LIFETIME_BOARD = "lifetime";
export const seasonBoard = (seasonId: number) => `season:${seasonId}`;

/** Sends one points event; the consumer below applies it. */
export async function sendPoints(env: Env, message: PointsMessage): Promise<void> {
  await env.POINTS.send(pointsMessage.parse(message));
}

/** A Queues batch holds at most 100 messages. */
export const POINTS_BATCH = 100;

/** Sends up to POINTS_BATCH events in one call (a vote storm's points, one queue write). */
export async function sendPointsBatch(env: Env, messages: PointsMessage[]): Promise<void> {
  if (messages.length > POINTS_BATCH) throw new Error(`at most ${POINTS_BATCH} points events`);
  await env.POINTS.sendBatch(messages.map((m) => ({ body: pointsMessage.parse(m) })));
}

interface SeasonWindow {
  id: number;
  start: number;
  end: number;
}

/**
 * Seasons whose [start, end) meets [from, to] and that have not ended by `now`: one D1 read
 * per batch. An ended season takes nothing more (its board is frozen).
 */
async function seasonsMeeting(
  env: Env,
  from: number,
  to: number,
  now: number,
): Promise<SeasonWindow[]> {
  const { results } = await env.DB.prepare(
    `select id, start_date as start, end_date as "end" from seasons where start_date <= ? and end_date > ? and end_date > ?`,
  )
    .bind(to, from, now)
    .all<SeasonWindow>();
  return results;
}

// D1 binds at most 100 values per statement: 3 per mirrored user, plus the season id.
const MIRROR_ROWS = 30;

/**
 * Mirrors absolute standings into ranking_status (a season) or ranking_status_lifetime,
 * in one D1 batch (one transaction). A row only moves forward: the upsert applies when
 * the board's version is newer than the mirrored one, so two consumers writing in the
 * wrong order leave the newer balance. A season row is written only while its season
 * exists, so a delete racing this write cannot leave orphans.
 */
export async function mirror(
  env: Env,
  seasonId: number | null,
  standings: Standing[],
): Promise<void> {
  if (standings.length === 0) return;
  const stmts: D1PreparedStatement[] = [];
  const now = "(unixepoch('subsec') * 1000)";
  for (let i = 0; i < standings.length; i += MIRROR_ROWS) {
    const chunk = standings.slice(i, i + MIRROR_ROWS);
    const values = chunk.map((_, k) => `(?${k * 3 + 1}, ?${k * 3 + 2}, ?${k * 3 + 3})`).join(", ");
    const params: (string | number)[] = chunk.flatMap((s) => [s.userUuid, s.balance, s.version]);
    if (seasonId === null) {
      stmts.push(
        env.DB.prepare(
          `insert into ranking_status_lifetime (user_uuid, balance, version)
           select column1, column2, column3 from (values ${values}) where true
           on conflict (user_uuid) do update set balance = excluded.balance, version = excluded.version, updated_at = ${now}
           where excluded.version > ranking_status_lifetime.version`,
        ).bind(...params),
      );
    } else {
      const s = `?${chunk.length * 3 + 1}`;
      stmts.push(
        env.DB.prepare(
          `insert into ranking_status (user_uuid, season_id, balance, version)
           select column1, ${s}, column2, column3 from (values ${values}) where exists (select 1 from seasons where id = ${s})
           on conflict (user_uuid, season_id) do update set balance = excluded.balance, version = excluded.version, updated_at = ${now}
           where excluded.version > ranking_status.version`,
        ).bind(...params, seasonId),
      );
    }
  }
  await env.DB.batch(stmts);
}

/**
 * Applies a batch of points events: each goes to the lifetime board and, if a season's
 * [startDate, endDate) holds its occurredAt, to that season's board (an event at a season's
 * endDate belongs to the next season; before any season, lifetime only). An event that
 * arrives after its season has ended goes to the lifetime board only: the season's ranking
 * froze at its end (the board refuses it too, should a season end during the batch).
 * Events are grouped by board, so a batch costs one RPC per board and one D1 batch per
 * board's mirror.
 *
 * A message is acked once every board it went to (and that board's mirror) succeeded;
 * otherwise it is retried whole, which is safe because each board counts an event id once.
 * Malformed messages and events a board refuses (outside its window, a reused id) are
 * logged and acked: a retry cannot make them valid.
 */
export async function consumePoints(batch: MessageBatch<unknown>, env: Env) {
  const parsed: { msg: Message<unknown>; event: PointsEvent }[] = [];
  for (const msg of batch.messages) {
    const r = pointsMessage.safeParse(msg.body);
    if (r.success)
      parsed.push({
        msg,
        event: {
          eventId: r.data.eventId,
          userUuid: r.data.userUuid,
          points: r.data.points,
          occurredAt: r.data.occurredAt,
        },
      });
    else {
      console.error("points: dropping malformed event", r.error.issues);
      msg.ack();
    }
  }
  if (parsed.length === 0) return;

  const times = parsed.map((p) => p.event.occurredAt);
  let seasons: SeasonWindow[];
  try {
    seasons = await seasonsMeeting(env, Math.min(...times), Math.max(...times), Date.now());
  } catch (e) {
    console.error("points: reading seasons failed; retrying the batch", e);
    for (const p of parsed) p.msg.retry();
    return;
  }

  const groups = new Map<string, { seasonId: number | null; items: typeof parsed }>();
  const add = (board: string, seasonId: number | null, item: (typeof parsed)[number]) => {
    const g = groups.get(board) ?? { seasonId, items: [] };
    g.items.push(item);
    groups.set(board, g);
  };
  for (const item of parsed) {
    add(LIFETIME_BOARD, null, item);
    const season = seasons.find(
      (s) => s.start <= item.event.occurredAt && item.event.occurredAt < s.end,
    );
    if (season) add(seasonBoard(season.id), season.id, item);
  }

  const failed = new Set<Message<unknown>>();
  await Promise.all(
    [...groups].map(async ([board, g]) => {
      try {
        const result: BatchResult = await env.Leaderboard.getByName(board).addPointsBatch(
          g.items.map((i) => i.event),
        );
        for (const r of result.refused)
          console.warn(`points: ${board} refused ${r.eventId} (${r.reason})`);
        await mirror(env, g.seasonId, result.standings);
      } catch (e) {
        console.error(`points: applying to ${board} failed; retrying its events`, e);
        for (const i of g.items) failed.add(i.msg);
      }
    }),
  );
  for (const p of parsed) {
    if (failed.has(p.msg)) p.msg.retry();
    else p.msg.ack();
  }
}
