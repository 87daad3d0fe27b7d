// Shapes of the points, season and ranking answers, from the merch-service's own builders
// (type-only imports: no server code reaches the browser bundle).
import type { RankRow, rankingOf } from "../../workers/merch-service/points/ranking-repo";
import type { bothStandings } from "../../workers/merch-service/points/ranking-status";
import type { SeasonDto } from "../../workers/merch-service/points/season-repo";
import type {
  DeadLetterDto,
  listDeadLetters,
  replayDeadLetters,
} from "../../workers/merch-service/points/dead-letter-repo";
import type { DeadLetterStatus } from "../../workers/db/points-schema";
import { RANKING_MAX_SKIP } from "../../shared/ranking";

export const POINTS_API = "/api/merch-service";

export type Season = SeasonDto;
export type RankingRow = RankRow;
export type Ranking = Awaited<ReturnType<typeof rankingOf>>;
export type MyStanding = Awaited<ReturnType<typeof bothStandings>>;

/** A ranking status mirror row as the admin list answers it (with the user's nickname). */
export interface RankingStatusRow {
  id: number;
  userUuid: string;
  seasonId?: number;
  balance: number;
  version: number;
  nickname: string | null;
  updatedAt: string;
}

/** A points dead letter as the admin API answers it, a page of them, and a replay's answer. */
export type DeadLetter = DeadLetterDto;
export type DeadLetterPage = Awaited<ReturnType<typeof listDeadLetters>>;
export type ReplayResult = Awaited<ReturnType<typeof replayDeadLetters>>;
export type { DeadLetterStatus };

/** The ranking page size. */
export const RANKING_PAGE = 20;
/** The deepest page the API serves (it reads at most RANKING_MAX_SKIP rows deep). */
export const RANKING_LAST_PAGE = Math.floor(RANKING_MAX_SKIP / RANKING_PAGE) + 1;

/** `<input type="datetime-local">` value (UTC) of an ISO time, and back. */
export const toLocalInput = (iso: string) => iso.slice(0, 16);
export const fromLocalInput = (v: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(v) ? `${v}:00Z` : null;
