/**
 * A synthetic crowd, for the bench and its test only (bench/lib/room-crowd.mjs through the
 * room-service's dev route, workers/room-service/room-crowd.ts): the room's figures at
 * 1,000 and 10,000 users without that many sockets. Refused outside development and test.
 *
 * One call, in this order:
 * - `fill`: the synthetic users present become `fill` (uuids CROWD_PREFIX + a 12-digit
 *   index, so they are uuid-shaped and sort by index). Each added one gets what a join
 *   writes (a user row and a profile row, as presence.ts writes at connect), in one
 *   transaction, and the people keys are marked as a join marks them.
 * - `votes`: the synthetic users `from`..`from + count - 1` each vote on the song playing
 *   (like when index + `round` is even, else dislike: the same users in the next round
 *   each change their vote, so a small room still gives many votes) by the code a socket's vote runs after
 *   its budget and parse: the activity touch, StageActions.voteOnSong (the vote row, the
 *   counters, the outbox, the publisher's mark, the auto-skip check) and the voter's
 *   yourVote.
 * - then what the tick does: the frame is built, stored and sent to every socket (flush).
 * - `settle` (room.ts): the answer waits until the outbox is sent (a like's points go out
 *   after the vote, asynchronously), so the next timed call does not share the object with it.
 * It answers counts, never a time: the clock stands still inside a request, so the caller
 * times the call, with `count` K and with 0; the difference is what K votes cost.
 */
import { z } from "zod";
import { isDevEnvironment } from "../../workers/lib/environments";
import type { VoteCounts } from "../../shared/protocol";
import type { Caller, StageActions } from "./actions";
import type { Publisher } from "./publisher";
import type { RoomStorage } from "./storage";
import { PEOPLE_KEYS } from "./view";

/** The first 24 characters of every synthetic user's uuid (a valid v4 uuid with the index). */
export const CROWD_PREFIX = "c0000000-0000-4000-8000-";
export const crowdUuid = (i: number) => `${CROWD_PREFIX}${String(i).padStart(12, "0")}`;

export const crowdArgs = z.object({
  fill: z.number().int().min(0).max(50_000).optional(),
  votes: z
    .object({
      from: z.number().int().min(0).max(49_999),
      count: z.number().int().min(0).max(10_000),
      round: z.number().int().min(0).max(1_000_000).optional(),
    })
    .optional(),
  /** Also answer the size of the full state a joiner gets (costly at scale: not in a timed call). */
  state: z.boolean().optional(),
  /** Answer only once the outbox is sent (the points of the votes so far): not in a timed call. */
  settle: z.boolean().optional(),
});
export type CrowdArgs = z.input<typeof crowdArgs>;

export interface CrowdResult {
  /** Synthetic users present after the call (null in a call with neither fill nor state: not counted). */
  synthetic: number | null;
  /** Synthetic users this call added. */
  added: number;
  /** Votes the room accepted, and the ones it answered with an error (first error text). */
  voted: number;
  refused: number;
  refusal: string | null;
  /** People present (every user row; null as synthetic), the song's counts and the seq after the tick. */
  present: number | null;
  voteCounts: VoteCounts;
  seq: number;
  /** Bytes (UTF-8) of the roomState frame a joiner would get now; only when asked. */
  fullStateBytes: number | null;
}

export function crowd(
  env: { ENVIRONMENT?: string },
  ctx: DurableObjectState,
  storage: RoomStorage,
  actions: StageActions,
  publisher: Publisher<Caller>,
  input: CrowdArgs,
): CrowdResult {
  if (!isDevEnvironment(env)) throw new Error("crowd is for development and test only.");
  const args = crowdArgs.parse(input);
  const sql = ctx.storage.sql;
  const range = [crowdUuid(0), crowdUuid(999_999_999_999)] as const;
  const have = () =>
    new Set(
      sql
        .exec<{ uuid: string }>(
          `SELECT uuid FROM room_users WHERE uuid BETWEEN ? AND ?`,
          range[0],
          range[1],
        )
        .toArray()
        .map((r) => r.uuid),
    );
  let added = 0;
  let synthetic: number | null = null;
  if (args.fill !== undefined) {
    const present = have();
    const now = Date.now();
    ctx.storage.transactionSync(() => {
      for (let i = 0; i < args.fill!; i++) {
        const uuid = crowdUuid(i);
        if (present.has(uuid)) continue;
        storage.upsertUser({ uuid, token_role: "user", guest: 0, email_verified: 1, pro: 0 }, now);
        storage.setProfile(uuid, {
          uuid,
          nickname: `Listener ${i}`,
          avatarId: "default",
          color: "562DF9",
          badges: [],
        });
        added++;
      }
    });
    if (added) publisher.mark(PEOPLE_KEYS, "userJoined");
    synthetic = present.size + added;
  }

  let voted = 0;
  let refused = 0;
  let refusal: string | null = null;
  const { from = 0, count = 0, round = 0 } = args.votes ?? {};
  for (let i = from; i < from + count; i++) {
    const who: Caller = {
      uuid: crowdUuid(i),
      tokenType: "user",
      roles: ["user"],
      sv: 0,
      emailVerified: true,
      pro: false,
      profile: null,
      needsState: false,
    };
    storage.touch(who.uuid, Date.now());
    const error = actions.voteOnSong(who, {
      action: "voteOnSong",
      songVotes: { like: (i + round) % 2 === 0 },
    });
    if (error) {
      refused++;
      refusal ??= error;
    } else {
      voted++;
      actions.yourVote(who.uuid);
    }
  }

  // The tick: the frame (if anything changed) built, stored and sent to every socket.
  publisher.flush();
  const np = storage.playing();
  // Counting the people scans the room: only in the calls that are not timed.
  const untimed = args.fill !== undefined || args.state;
  return {
    synthetic: synthetic ?? (args.state ? have().size : null),
    added,
    voted,
    refused,
    refusal,
    present: untimed
      ? sql.exec<{ n: number }>(`SELECT count(*) AS n FROM room_users`).one().n
      : null,
    voteCounts: storage.votes.counts(np?.play_id ?? null),
    seq: storage.frames.seq(),
    fullStateBytes: args.state
      ? new TextEncoder().encode(JSON.stringify(publisher.stateMessage())).length
      : null,
  };
}
