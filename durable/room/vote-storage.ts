/**
 * Votes on the room's plays (`room_votes`) and each play's counts (`room_vote_counts`).
 *
 * Invariants:
 * - A vote row is keyed (play_id, user_uuid): a retried vote overwrites itself, it never
 *   counts twice. Votes of a play are deleted when the play stops.
 * - `room_vote_counts` holds each play's counts, moved by each vote's delta in the same
 *   synchronous step as the vote: counts stay equal to the votes, and a vote never sums.
 * - A vote costs one read (the voter's earlier vote) and two writes: the votes of the play
 *   on air are also kept in memory once read or written (`#mine`), so the voter's own
 *   `yourVote` after it, and a changed vote, read no row. The memory holds one play at a
 *   time and is emptied with its votes; it is never written inside a transaction.
 */
import type { VoteCounts } from "../../shared/protocol";

export type VoteRow = { vote_like: number | null; star: number };

export class VoteStorage {
  /** The play whose votes `#mine` holds, and each voter's row (null: read, none). */
  #play: string | null = null;
  #mine = new Map<string, VoteRow | null>();
  /**
   * Voters on `#play` since the last `takeChanged` (room/ttfm-state.ts: the bots' documents
   * hold each user's songVotes); bounded by the play's voters, emptied with them.
   */
  #changed = new Set<string>();

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS room_votes (play_id TEXT NOT NULL, user_uuid TEXT NOT NULL, vote_like INTEGER, star INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (play_id, user_uuid))`);
    const hadCounts = sql
      .exec<{ n: number }>(
        `SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'room_vote_counts'`,
      )
      .one().n;
    sql.exec(`CREATE TABLE IF NOT EXISTS room_vote_counts (play_id TEXT PRIMARY KEY, likes INTEGER NOT NULL DEFAULT 0,
      dislikes INTEGER NOT NULL DEFAULT 0, stars INTEGER NOT NULL DEFAULT 0)`);
    // An object from before the counters had only votes: counted once, when the table is new.
    if (!hadCounts)
      sql.exec(`INSERT INTO room_vote_counts (play_id, likes, dislikes, stars)
        SELECT play_id, sum(vote_like = 1), sum(vote_like = 0), sum(star) FROM room_votes GROUP BY play_id`);
  }

  #cache(playId: string): Map<string, VoteRow | null> {
    if (this.#play !== playId) {
      this.#play = playId;
      this.#mine = new Map();
      this.#changed = new Set();
    }
    return this.#mine;
  }

  /**
   * Sets one user's vote (undefined fields keep the earlier vote) and moves the play's
   * counters by the difference. Answers the vote as it now stands.
   */
  vote(
    playId: string,
    userUuid: string,
    like: boolean | undefined,
    star: boolean | undefined,
    before = this.userVote(playId, userUuid),
  ): VoteRow {
    const likeBefore = before?.vote_like ?? null;
    const starBefore = before?.star ?? 0;
    const after: VoteRow = {
      vote_like: like === undefined ? likeBefore : like ? 1 : 0,
      star: star === undefined ? starBefore : star ? 1 : 0,
    };
    this.sql.exec(
      `INSERT INTO room_votes (play_id, user_uuid, vote_like, star) VALUES (?, ?, ?, ?)
       ON CONFLICT (play_id, user_uuid) DO UPDATE SET vote_like = excluded.vote_like, star = excluded.star`,
      playId,
      userUuid,
      after.vote_like,
      after.star,
    );
    this.sql.exec(
      `INSERT INTO room_vote_counts (play_id, likes, dislikes, stars) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (play_id) DO UPDATE SET likes = likes + ?2, dislikes = dislikes + ?3, stars = stars + ?4`,
      playId,
      Number(after.vote_like === 1) - Number(likeBefore === 1),
      Number(after.vote_like === 0) - Number(likeBefore === 0),
      after.star - starBefore,
    );
    this.#cache(playId).set(userUuid, after);
    this.#changed.add(userUuid);
    return after;
  }

  /** Who voted on `playId` since the last call (an empty list for another play). */
  takeChanged(playId: string): string[] {
    if (this.#play !== playId) return [];
    const out = [...this.#changed];
    this.#changed.clear();
    return out;
  }

  /** Every vote on `playId`, by voter (a bot's join fills each user's songVotes from it). */
  all(playId: string): Map<string, VoteRow> {
    const rows = this.sql
      .exec<VoteRow & { user_uuid: string }>(
        `SELECT user_uuid, vote_like, star FROM room_votes WHERE play_id = ?`,
        playId,
      )
      .toArray();
    return new Map(rows.map((r) => [r.user_uuid, { vote_like: r.vote_like, star: r.star }]));
  }

  userVote(playId: string, userUuid: string): VoteRow | undefined {
    const mine = this.#cache(playId);
    const known = mine.get(userUuid);
    if (known !== undefined) return known ?? undefined;
    const row = this.sql
      .exec<VoteRow>(
        `SELECT vote_like, star FROM room_votes WHERE play_id = ? AND user_uuid = ?`,
        playId,
        userUuid,
      )
      .toArray()[0];
    mine.set(userUuid, row ?? null);
    return row;
  }

  counts(playId: string | null): VoteCounts {
    if (!playId) return { likes: 0, dislikes: 0, stars: 0 };
    const r = this.sql
      .exec<{ likes: number; dislikes: number; stars: number }>(
        `SELECT likes, dislikes, stars FROM room_vote_counts WHERE play_id = ?`,
        playId,
      )
      .toArray()[0];
    return r ?? { likes: 0, dislikes: 0, stars: 0 };
  }

  clear() {
    this.sql.exec(`DELETE FROM room_votes`);
    this.sql.exec(`DELETE FROM room_vote_counts`);
    this.#play = null;
    this.#mine = new Map();
    this.#changed = new Set();
  }
}
