import type { PointsEvent, Standing } from "../../durable/leaderboard";
import type { Env } from "../env";
import { issuesText, recordInvalid, type InvalidMessage } from "./points-dead-letters";
import { errorText, noteOutcomes, type Failure } from "./points-failures";
import { pointsMessage, type PointsMessage } from "./points-message";

export { pointsMessage, type PointsMessage };

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

type Item = { msg: Message<unknown>; event: PointsEvent };

/**
 * Applies one board's events and mirrors the result. Should the board itself throw, each
 * event is tried alone, so one event the board cannot take (a poison message) fails by
 * itself instead of taking its batch-mates to the dead-letter queue with it; a mirror
 * failure is D1's, shared by all, and fails the group. Answers the events that failed, with
 * their errors.
 */
async function applyToBoard(
  env: Env,
  board: string,
  seasonId: number | null,
  items: Item[],
): Promise<Map<Item, string>> {
  const stub = env.Leaderboard.getByName(board);
  const failed = new Map<Item, string>();
  const apply = async (group: Item[]) => {
    const result = await stub.addPointsBatch(group.map((i) => i.event));
    for (const r of result.refused)
      console.warn(`points: ${board} refused ${r.eventId} (${r.reason})`);
    return result.standings;
  };
  let standings: Standing[];
  try {
    standings = await apply(items);
  } catch (e) {
    console.error(
      `points: ${board} failed ${items.length} events${items.length > 1 ? "; trying each alone" : ""}`,
      e,
    );
    standings = [];
    if (items.length === 1) failed.set(items[0], errorText(e));
    else
      for (const item of items) {
        try {
          standings.push(...(await apply([item])));
        } catch (one) {
          failed.set(item, errorText(one));
        }
      }
  }
  try {
    // Events tried alone may report one user several times: the newest standing is the one.
    const newest = new Map<string, Standing>();
    for (const st of standings)
      if ((newest.get(st.userUuid)?.version ?? -1) < st.version) newest.set(st.userUuid, st);
    await mirror(env, seasonId, [...newest.values()]);
  } catch (e) {
    console.error(`points: mirroring ${board} failed; retrying its events`, e);
    for (const item of items) if (!failed.has(item)) failed.set(item, errorText(e));
  }
  return failed;
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
 * otherwise it is retried whole, which is safe because each board counts an event id once,
 * and why it failed is noted (points-failures.ts) for the dead letter it becomes if it fails
 * every retry. Events a board refuses (outside its window, a reused id) are logged and
 * acked: a retry cannot make them valid. A body that is not an event is recorded as an
 * `invalid` dead letter and acked, never retried (points-dead-letters.ts).
 */
export async function consumePoints(batch: MessageBatch<unknown>, env: Env) {
  const parsed: Item[] = [];
  const invalid: { msg: Message<unknown>; dead: InvalidMessage }[] = [];
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
      const error = issuesText(r.error.issues);
      console.error(`points: invalid event, kept as a dead letter: ${error}`);
      invalid.push({ msg, dead: { id: msg.id, body: msg.body, error, attempts: msg.attempts } });
    }
  }
  if (invalid.length) {
    try {
      await recordInvalid(
        env,
        invalid.map((i) => i.dead),
      );
      for (const i of invalid) i.msg.ack();
    } catch (e) {
      // Unrecorded, it must not vanish: retried, and the dead-letter queue keeps it at worst.
      console.error("points: recording invalid events failed; retrying them", e);
      for (const i of invalid) i.msg.retry();
    }
  }
  if (parsed.length === 0) return;

  const failed = new Map<Message<unknown>, string>();
  const times = parsed.map((p) => p.event.occurredAt);
  let seasons: SeasonWindow[] = [];
  try {
    seasons = await seasonsMeeting(env, Math.min(...times), Math.max(...times), Date.now());
  } catch (e) {
    console.error("points: reading seasons failed; retrying the batch", e);
    for (const p of parsed) failed.set(p.msg, errorText(e));
  }

  if (failed.size === 0) {
    const groups = new Map<string, { seasonId: number | null; items: Item[] }>();
    const add = (board: string, seasonId: number | null, item: Item) => {
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
    const results = await Promise.all(
      [...groups].map(([board, g]) => applyToBoard(env, board, g.seasonId, g.items)),
    );
    for (const r of results)
      for (const [item, error] of r) if (!failed.has(item.msg)) failed.set(item.msg, error);
  }

  const failures: Failure[] = [];
  const recovered: string[] = [];
  for (const p of parsed) {
    const error = failed.get(p.msg);
    if (error === undefined) {
      p.msg.ack();
      if (p.msg.attempts > 1) recovered.push(p.event.eventId);
    } else {
      p.msg.retry();
      failures.push({ eventId: p.event.eventId, attempts: p.msg.attempts, error });
    }
  }
  await noteOutcomes(env, failures, recovered);
}
