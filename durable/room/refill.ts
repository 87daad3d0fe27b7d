/**
 * A DJ's queue running low (issue 20): the room refills it from the crate the DJ chose
 * ("refill from crate X", workers/crates/queue-refill.ts), or tells them in time, instead
 * of dropping them from the stage without a word.
 *
 * - As each song starts, the DJ who plays next (or the lone DJ again) is looked at: if
 *   nothing in their queue could play on their turn, it is refilled now (`refilled`), or
 *   they are told to add songs (`empty`) while the song before theirs plays.
 * - On their turn, a queue with nothing to play is refilled once more (the DJ may have
 *   chosen a crate since); only then does the DJ step down, told so (`dropped`).
 * Nothing here writes the room's SQLite: Playback re-checks the stage after each await.
 */
import type { ServerMessage } from "../../shared/protocol";
import { refillQueue } from "../../workers/crates/queue-refill";
import type { Env } from "../../workers/env";
import { pickSong } from "./library";

type SendTo = (uuid: string, m: ServerMessage) => void;

/** Refills `uuid`'s queue on their turn; answers how many songs were added (0 on failure). */
export async function refillTurn(
  env: Env,
  uuid: string,
  recent: Set<string>,
  sendTo: SendTo,
): Promise<number> {
  let added = 0;
  try {
    added = await refillQueue(env, uuid, recent);
  } catch (e) {
    console.error("room: refilling a queue failed", e);
  }
  if (added) sendTo(uuid, { name: "queueNotice", params: { kind: "refilled", songs: added } });
  return added;
}

/** The look-ahead: refill `uuid`'s queue, or warn them, if nothing in it could play next. */
export async function refillOrWarn(
  env: Env,
  uuid: string,
  maxSeconds: number,
  recent: Set<string>,
  sendTo: SendTo,
): Promise<void> {
  if (await pickSong(env, uuid, maxSeconds, recent)) return;
  if (await refillTurn(env, uuid, recent, sendTo)) return;
  sendTo(uuid, { name: "queueNotice", params: { kind: "empty", songs: 0 } });
}
