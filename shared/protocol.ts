/**
 * The room protocol: what a browser (or bot) and the Room durable object say to each other
 * over `/parties/room/<slug>`. Imported by both sides; never copied.
 *
 * Invariants:
 * - Client messages are one zod discriminated union on `action`. The room runs
 *   `parseClientMessage` on every frame; anything that fails gets an `error` reply to that
 *   socket alone and changes nothing.
 * - Server messages come in three shapes (names from the live product, REFERENCE.md):
 *     `{ name: "roomState", state, seq, serverTime }`  the full state, on connect and on request;
 *     `{ name, statePatch, seq }`                      a stateful change as RFC 6902 operations;
 *     `{ name, params }`                               stateless (pong, error, kickedFromRoom, ...).
 * - `seq` increases by exactly one per stateful message and never goes backwards (the room
 *   keeps it in SQLite). A `roomState` with seq N already includes every patch up to N. A
 *   client holding seq N applies a patch only if its seq is N + 1; on a gap, or if applying
 *   fails, it sends `joinRoom` again and replaces its state with the answer.
 */
import { z } from "zod";
import type { JsonPatchOp } from "./json-patch";

export type { JsonPatchOp } from "./json-patch";
export { assertNever } from "./json-patch";

/** A frame larger than this is refused before it is parsed (a ping is ~40 bytes). */
export const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024;

// ---- client to server ------------------------------------------------------------------

/** Ask for the room's full state (the join answer, and the resync after a missed seq). */
const joinRoom = z.object({
  action: z.literal("joinRoom"),
  roomUuid: z.string().max(64).optional(),
  password: z.string().max(256).optional(),
  guestPassword: z.string().max(256).optional(),
});

/** Clock sync: the room answers `pong` with its time, so the client can estimate its offset. */
const ping = z.object({
  action: z.literal("ping"),
  clientTime: z.number(),
});

// addDj, removeDj, skipSong, voteOnSong, updateNextSong, playOneTimeAnimation join this
// union as their issues land; the room's switch then fails to type-check until it handles them.
export const ClientMessage = z.discriminatedUnion("action", [joinRoom, ping]);
export type ClientMessage = z.infer<typeof ClientMessage>;
export type ClientAction = ClientMessage["action"];

/**
 * Parses one websocket frame. Never throws: the answer is the message, or an error string
 * fit to send back to the client.
 */
export function parseClientMessage(raw: string | ArrayBuffer | ArrayBufferView): { ok: true; message: ClientMessage } | { ok: false; error: string } {
  if (typeof raw !== "string") return { ok: false, error: "Messages must be JSON text." };
  if (raw.length > MAX_CLIENT_MESSAGE_BYTES) return { ok: false, error: `Messages are limited to ${MAX_CLIENT_MESSAGE_BYTES} bytes.` };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, error: "Messages must be valid JSON." };
  }
  const parsed = ClientMessage.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  const detail = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
  return { ok: false, error: `Invalid message: ${detail}` };
}

// ---- room state --------------------------------------------------------------------------

/** The role a token carries, as the room sees it (REFERENCE.md "Token roles"). */
export const TOKEN_ROLES = ["globalModerator", "staff", "superUser", "promoter", "user", "bot", "admin", "moderator", "guest"] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

/** Roles a user can hold in one room (REFERENCE.md "A room role"). */
export const ROOM_ROLES = ["moderator", "owner", "coOwner", "banned", "kicked", "chatDisabled", "djDisabled", "dj"] as const;
export type RoomRole = (typeof ROOM_ROLES)[number];

export interface RoomUser {
  uuid: string;
  tokenRole: TokenRole;
  /** The user's highest room role; null until room roles are loaded (a later issue). */
  highestRole: RoomRole | null;
  canDj: boolean;
}

export interface VoteCounts {
  likes: number;
  dislikes: number;
  stars: number;
}

export interface RoomState {
  /** Everyone present except guests ("Guests are excluded from the user count list"). */
  allUsers: RoomUser[];
  /** Everyone present who is not in a DJ seat, guests included. */
  audienceUsers: RoomUser[];
  /** DJ seats; the first is the current DJ. Always empty until seats land. */
  djs: (RoomUser & { nextSong: null })[];
  /** Always null until playback lands. */
  nowPlaying: null;
  voteCounts: VoteCounts;
  vibeMeter: number;
  /** The room's settings; only the slug (the object's name) so far. */
  settings: { slug: string };
}

// ---- server to client ----------------------------------------------------------------------

/** The full state: sent on connect and in answer to `joinRoom`. */
export interface RoomStateMessage {
  name: "roomState";
  state: RoomState;
  seq: number;
  /** The room's clock (epoch ms), for `serverTimeOffset = serverTime - Date.now()`. */
  serverTime: number;
}

export const STATEFUL_MESSAGE_NAMES = ["userJoined", "userLeft"] as const;
export type StatefulMessageName = (typeof STATEFUL_MESSAGE_NAMES)[number];

/** A change to the state: apply `statePatch` to the state at `seq - 1`. */
export interface StatefulMessage {
  name: StatefulMessageName;
  statePatch: JsonPatchOp[];
  seq: number;
}

/** Messages that change no state, each `{ name, params }`. */
export type StatelessMessage =
  | { name: "pong"; params: { clientTime: number; serverTime: number } }
  | { name: "error"; params: { message: string } }
  | { name: "kickedFromRoom"; params: Record<string, never> }
  | { name: "roomReset"; params: Record<string, never> };

export type ServerMessage = RoomStateMessage | StatefulMessage | StatelessMessage;

/** Close code the room uses when a connection arrives without a verified caller. */
export const CLOSE_UNAUTHORIZED = 4001;
