import { z } from "zod";
import type { HiddenResult } from "../../durable/leaderboard";
import type { Env } from "../env";
import { LIFETIME_BOARD, seasonBoard } from "./points";

/**
 * Deactivated accounts leave the rankings (issue 15): the job that copies an account's
 * `users.deactivated` to every Leaderboard it may be on (the lifetime board and every
 * season's board, ended ones included), through the notifications queue (channel "boards").
 *
 * The message names the account, not a value: the consumer reads the flag from D1 as it is
 * now, sets every board to it (Leaderboard.setHidden: a value, never a toggle), then reads the
 * flag again. Should it have changed meanwhile (a reactivation racing a deactivation's job)
 * the message is retried, and the retry sets the new value; so repeats, retries and
 * deliveries in any order all end with the boards agreeing with D1.
 *
 * The routes send one message with a delay before they write D1 and one at once after
 * (sendBoardSync), so a request that dies between its D1 write and its send is still
 * followed by a job. A board that starts after a deactivation copies the deactivated
 * accounts itself (durable/leaderboard-hidden.ts).
 */
export const boardsMessage = z.object({
  channel: z.literal("boards"),
  id: z.string().min(1).max(100),
  userUuid: z.string().min(1).max(64),
});
export type BoardsMessage = z.output<typeof boardsMessage>;

/**
 * How long the send made before the D1 write waits: past the route's own end, so it runs
 * after the write it guards whether or not the request lived to send the second message.
 */
export const GUARD_DELAY_SECONDS = 60;

/** Queues the job for an account; `delaySeconds` for the guard sent before the write. */
export async function sendBoardSync(env: Env, userUuid: string, delaySeconds = 0) {
  const body: BoardsMessage = { channel: "boards", id: crypto.randomUUID(), userUuid };
  await env.NOTIFICATIONS.send(body, delaySeconds > 0 ? { delaySeconds } : undefined);
}

/** The account's flag now, or null for no such account. */
async function deactivatedNow(env: Env, userUuid: string): Promise<boolean | null> {
  const row = await env.DB.prepare(`SELECT deactivated FROM users WHERE uuid = ?`)
    .bind(userUuid)
    .first<{ deactivated: number }>();
  return row ? row.deactivated === 1 : null;
}

/** Every board a user may be on: lifetime and each season's (one D1 read). */
async function allBoards(env: Env): Promise<string[]> {
  const { results } = await env.DB.prepare(`SELECT id FROM seasons ORDER BY id`).all<{
    id: number;
  }>();
  return [LIFETIME_BOARD, ...results.map((s) => seasonBoard(s.id))];
}

/** Boards set at once (a small fan-out; seasons are few, one a month or so). */
const PARALLEL = 10;

/**
 * Sets every board to the account's flag. Answers true when the flag was the same after as
 * before (done); false when it changed meanwhile (the caller retries). An account that no
 * longer exists is done: there is nothing to copy.
 */
export async function syncBoards(env: Env, msg: BoardsMessage): Promise<boolean> {
  const hidden = await deactivatedNow(env, msg.userUuid);
  if (hidden === null) return true;
  const boards = await allBoards(env);
  for (let i = 0; i < boards.length; i += PARALLEL)
    await Promise.all(
      boards
        .slice(i, i + PARALLEL)
        .map((name): Promise<HiddenResult> =>
          env.Leaderboard.getByName(name).setHidden(msg.userUuid, hidden),
        ),
    );
  return (await deactivatedNow(env, msg.userUuid)) === hidden;
}
