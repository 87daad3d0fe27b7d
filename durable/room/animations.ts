/**
 * One-time animations (a jump, an emoji): every socket in the room plays them, so each is
 * paid for from the sender's own rate and the room's (room/budget.ts), and only accounts
 * send them (guests listen; ghosts watch).
 */
import type { ClientMessage, ServerMessage } from "../../shared/protocol";
import type { Who } from "./actions";
import { ROOM_ANIMATIONS, USER_CHAT, type Buckets } from "./budget";
import { STAGE_MSG } from "./messages";

export function animate(
  budgets: Buckets,
  who: Who,
  msg: Extract<ClientMessage, { action: "playOneTimeAnimation" }>,
  /** Sends to every socket in the room (the publisher's list). */
  broadcast: (text: string) => void,
): string | null {
  if (who.tokenType === "ghost") return STAGE_MSG.ghost;
  if (who.tokenType === "guest") return STAGE_MSG.guestAnimation;
  if (!budgets.take([`animation:${who.uuid}`, USER_CHAT], ["room:animations", ROOM_ANIMATIONS]))
    return STAGE_MSG.animationRate;
  const text = JSON.stringify({
    name: "playedOneTimeAnimation",
    params: { userUuid: who.uuid, animation: msg.animation, emoji: msg.emoji ?? null },
  } satisfies ServerMessage);
  broadcast(text);
  return null;
}
