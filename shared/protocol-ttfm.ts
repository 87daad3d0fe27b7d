/**
 * The tt.live bot dialect (`ttfm-socket` 1.0.0, /work/shared/TTFM-PROTOCOL.md): what a bot
 * and our server say at `/primus`. Imported by the gateway's bridge (workers/primus.ts: the
 * Primus transport) and the Room object (durable/room/ttfm-*.ts: the dialect); the room
 * protocol itself stays shared/protocol.ts, which every bot action is turned into.
 *
 * Invariants:
 * - Frames are JSON text; Primus control messages are JSON strings (`"primus::ping::<ms>"`).
 * - A request is `{event, params, messageId}`; its answer carries `context:"response"` and
 *   the same messageId, with `error` as a string when refused. A frame the client cannot
 *   read (JSON null, a user frame without `message`) is never sent: it crashes the bot.
 * - `"primus::server::close"` goes before every close the server means (kick, ban, bad token,
 *   reset, flood): without it the client reconnects, forever.
 */
import { z } from "zod";
import {
  CLOSE_FLOODING,
  CLOSE_KICKED,
  CLOSE_NO_ROOM,
  CLOSE_UNAUTHORIZED,
  MAX_CLIENT_MESSAGE_BYTES,
} from "./protocol";

/** The close a bot must not retry (TTFM-PROTOCOL.md 4: no reconnect after it). */
export const PRIMUS_SERVER_CLOSE = JSON.stringify("primus::server::close");
export const primusPing = (ms: number) => JSON.stringify(`primus::ping::${ms}`);
export const PRIMUS_PONG = /^"primus::pong::(\d{1,16})"$/;

/** The room closes a bot's socket with this after `roomReset`: the bot must join again. */
export const CLOSE_RESET = 4009;
/** Room closes the gateway turns into `primus::server::close` (the server meant them). */
export const SERVER_MEANT_CLOSES: ReadonlySet<number> = new Set([
  CLOSE_UNAUTHORIZED,
  CLOSE_KICKED,
  CLOSE_NO_ROOM,
  CLOSE_FLOODING,
  CLOSE_RESET,
]);

/** Actionhero's refusal of an action it does not know (the client shows it as is). */
export const UNKNOWN_ACTION = "unknown action or invalid apiVersion";

/**
 * The actions a bot may send: the client's own, and `sendChat` (ours, documented in
 * README.md; bots also chat through the chat-token calls, GET/POST /rooms/{id}/chat).
 */
export const TTFM_ACTIONS = [
  "joinRoom",
  "addDj",
  "removeDj",
  "updateNextSong",
  "voteOnSong",
  "skipSong",
  "playOneTimeAnimation",
  "sendChat",
] as const;
export type TtfmAction = (typeof TTFM_ACTIONS)[number];

/**
 * The seat actions whose answer carries the room's `ServerRoomState` (ttfm-socket's action
 * types: addDj, removeDj, updateNextSong). voteOnSong may answer none (its type allows
 * `undefined`) and does: a vote storm's answers stay a few bytes, not the room's user list
 * each; the vote itself arrives in `votedOnSong`.
 */
export const TTFM_STATE_ANSWERS: ReadonlySet<TtfmAction> = new Set([
  "addDj",
  "removeDj",
  "updateNextSong",
]);

/** Stateful message names the client knows; ours that it does not are renamed (ttfm-state.ts). */
export const TTFM_STATEFUL_NAMES: ReadonlySet<string> = new Set([
  "addedDj",
  "lookedUpSong",
  "playedSong",
  "removedDj",
  "updatedRoomSettings",
  "updatedGuestPassword",
  "updatedNextSong",
  "updatedUserData",
  "updatedUserProfile",
  "userJoined",
  "userLeft",
  "votedOnSong",
]);

const messageId = z.union([
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  z.string().max(32),
]);

/** One request frame, bounded before anything reads it. */
export const ttfmRequest = z.object({
  event: z.string().max(32),
  params: z.record(z.string().max(64), z.unknown()).optional(),
  messageId,
});
export type TtfmRequest = z.infer<typeof ttfmRequest>;

/**
 * Parses a bot's frame: a request, or null for anything that is not one (a stray frame
 * has no messageId to answer).
 */
export function parseTtfmRequest(raw: unknown): TtfmRequest | null {
  if (typeof raw !== "string" || raw.length > MAX_CLIENT_MESSAGE_BYTES) return null;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const parsed = ttfmRequest.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** The answer to request `messageId`: `fields` on success, or the refusal string. */
export function ttfmResponse(
  id: TtfmRequest["messageId"],
  error: string | null,
  fields: Record<string, unknown> = {},
): string {
  return JSON.stringify(
    error
      ? { error, context: "response", messageId: id }
      : { ...fields, context: "response", messageId: id },
  );
}

/** A broadcast: `{message:{name, statePatch}}` (stateful) or `{message:{name, params}}`. */
export function ttfmUserFrame(
  room: string,
  message: { name: string; statePatch: unknown[] } | { name: string; params: unknown },
): string {
  return JSON.stringify({ message, room, from: "server", context: "user", sentAt: Date.now() });
}
