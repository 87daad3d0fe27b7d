/**
 * Season points from votes (seed 000, points): what a listener's vote on the playing song
 * earns its DJ, sent to the points queue (workers/queues/points.ts).
 *
 * Rules (docs/DECISIONS.md, "Points"):
 * - A like earns the DJ 1 point, a star 2. A dislike earns nothing and takes nothing.
 * - Only accounts earn a DJ points: a user token, never a guest, bot or ghost, and never
 *   the DJ voting on their own song.
 * - The event id is `vote:<playId>:<voterUuid>:<kind>`: a listener who likes, unlikes and
 *   likes again, or stars twice, earns the DJ points once per kind. Taking a vote back
 *   does not take the points back (the id is spent).
 * - `occurredAt` is the vote's time, so the points land in the season the vote was cast in.
 * - The events go out through the room's outbox (effects.ts), keyed by the event id: retried
 *   until sent, and counted once by the boards however often they arrive.
 */
import type { TokenType } from "../../shared/roles";
import type { PointsMessage } from "../../workers/queues/points";

export const VOTE_POINTS = { like: 1, star: 2 } as const;

export interface VoteForPoints {
  playId: string;
  djUuid: string;
  voterUuid: string;
  voterType: TokenType;
  /** What the vote set now (undefined: left as it was). */
  like: boolean | undefined;
  star: boolean | undefined;
  /** The vote before this one: an unchanged like or star sends nothing again. */
  before?: { vote_like: number | null; star: number };
  at: number;
}

/** The points events one vote earns the DJ (none for a guest, a self-vote or a dislike). */
export function votePointsEvents(v: VoteForPoints): PointsMessage[] {
  if (v.voterType !== "user" || v.voterUuid === v.djUuid) return [];
  const kinds = [
    v.like === true && v.before?.vote_like !== 1 && ("like" as const),
    v.star === true && !v.before?.star && ("star" as const),
  ].filter((k): k is "like" | "star" => !!k);
  return kinds.map((kind) => ({
    eventId: `vote:${v.playId}:${v.voterUuid}:${kind}`,
    userUuid: v.djUuid,
    points: VOTE_POINTS[kind],
    occurredAt: v.at,
    source: "room",
    data: { playId: v.playId, voterUuid: v.voterUuid, kind },
  }));
}
