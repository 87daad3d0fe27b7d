import { sql } from "drizzle-orm";
import { z } from "zod";
import type { RankedUser } from "../../../durable/leaderboard";
import { db } from "../../db/client";
import { users } from "../../db/schema";
import type { Env } from "../../env";
import { takeSkip } from "../../lib/paging";
import { LIFETIME_BOARD, seasonBoard } from "../../queues/points";
import { RANKING_MAX_SKIP, RANKING_MAX_TAKE } from "../../../shared/ranking";
import { cachedPage } from "./ranking-cache";
import { boardOf, seasonDto } from "./season-repo";
import type { SeasonRow } from "../../db/schema";

/**
 * Ranking answers: a board's page (or one user's standing) joined with the users' public
 * profile (nickname, avatarId) read from D1 for the uuids on the page only. Ranks and
 * order are the board's (balance descending, then user uuid; competition ranks).
 */

/** take/skip of the ranking lists: at most 100 rows a page, at most 10,000 rows deep. */
export const rankingPage = takeSkip(RANKING_MAX_TAKE, 20, RANKING_MAX_SKIP);
export const userUuidParam = z.object({ userUuid: z.uuid({ error: "userUuid must be a UUID" }) });

export interface RankRow extends RankedUser {
  nickname: string | null;
  avatarId: string | null;
}

type Board = ReturnType<typeof boardOf>;
const boardName = (season: SeasonRow | null) => (season ? seasonBoard(season.id) : LIFETIME_BOARD);
/** The season's board, or the lifetime board for `null`. */
export const boardFor = (env: Env, season: SeasonRow | null): Board =>
  env.Leaderboard.getByName(boardName(season));

/** nickname and avatarId of `uuids` (one D1 read; a JSON list binds as one value). */
async function profiles(
  env: Env,
  uuids: string[],
): Promise<Map<string, { nickname: string; avatarId: string | null }>> {
  if (uuids.length === 0) return new Map();
  const rows = await db(env)
    .select({ uuid: users.uuid, nickname: users.nickname, avatarId: users.avatarId })
    .from(users)
    .where(sql`${users.uuid} in (select value from json_each(${JSON.stringify(uuids)}))`)
    .all();
  return new Map(rows.map((r) => [r.uuid, { nickname: r.nickname, avatarId: r.avatarId }]));
}

export async function withProfiles(env: Env, rows: RankedUser[]): Promise<RankRow[]> {
  const p = await profiles(
    env,
    rows.map((r) => r.userUuid),
  );
  return rows.map((r) => ({
    userUuid: r.userUuid,
    nickname: p.get(r.userUuid)?.nickname ?? null,
    avatarId: p.get(r.userUuid)?.avatarId ?? null,
    balance: r.balance,
    rank: r.rank,
  }));
}

/**
 * One ranking page of a season (or lifetime for `null`), with the caller's own row when
 * `me` is given (so a page can show "your rank" even when it is off the page). The page is
 * shared by every reader for a moment (ranking-cache.ts); `me` is always read afresh.
 */
export async function rankingOf(
  env: Env,
  season: SeasonRow | null,
  take: number,
  skip: number,
  me?: string,
) {
  const board = boardFor(env, season);
  const key = `${boardName(season)}|${take}|${skip}`;
  const load = async () => {
    const p = await board.page(take, skip);
    return { rows: await withProfiles(env, p.rows), total: p.total };
  };
  const [first, mine] = await Promise.all([
    cachedPage(key, load),
    me ? board.rankOf(me) : Promise.resolve(null),
  ]);
  let page = first;
  // The reader's own fresh row and the shared page must agree: a page that misses them where
  // they rank, or shows them with other points, is read afresh for them.
  if (mine) {
    const shown = page.rows.find((r) => r.userUuid === mine.userUuid);
    const belongs = mine.rank > skip && mine.rank <= skip + take;
    if (shown ? shown.balance !== mine.balance || shown.rank !== mine.rank : belongs)
      page = await cachedPage(key, load, true);
  }
  const onPage = mine && page.rows.find((r) => r.userUuid === mine.userUuid);
  const mineRow = mine && (onPage ? { ...onPage, ...mine } : (await withProfiles(env, [mine]))[0]);
  return {
    season: season ? seasonDto(season) : null,
    data: page.rows,
    total: page.total,
    take,
    skip,
    ...(me !== undefined ? { me: mineRow ?? null } : {}),
  };
}

/** One user's standing on a season's board (or lifetime): balance 0 and rank null when absent. */
export async function standingOf(env: Env, season: SeasonRow | null, userUuid: string) {
  const r = await boardFor(env, season).rankOf(userUuid);
  const [row] = await withProfiles(env, [r ?? { userUuid, balance: 0, rank: 0 }]);
  return { ...row, rank: r ? row.rank : null, season: season ? seasonDto(season) : null };
}
