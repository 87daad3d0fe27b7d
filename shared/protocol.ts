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
import { CONSUMABLE_DISPLAY_TYPES } from "./shop";
import type { CrateSongDto } from "./songs";
import type { JsonPatchOp } from "./json-patch";
import type { RoomRoleName, RoomSettings } from "./rooms";

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

/**
 * A song as a client names it (addDj's first song, updateNextSong). Only these fields are
 * kept (zod strips the rest) and every string is bounded, so a client cannot grow the state
 * every other socket receives.
 */
const shortText = z.string().max(512);
const providerMap = z
  .record(z.string().max(32), z.string().max(2048))
  .refine((m) => Object.keys(m).length <= 16, "at most 16 providers");
export const clientSong = z.object({
  songId: z.string().min(1).max(64),
  songShortId: z.string().max(32).optional(),
  crateSongUuid: z.string().max(64).optional(),
  trackName: shortText,
  artistName: shortText,
  albumName: shortText.nullable().optional(),
  genre: shortText.nullable().optional(),
  isrc: z.string().max(32).nullable().optional(),
  duration: z
    .number()
    .min(0)
    .max(24 * 3600),
  musicProviders: providerMap.optional(),
  thumbnails: providerMap.optional(),
});
export type ClientSong = z.infer<typeof clientSong>;

/** Take a DJ seat; `song` is shown as the DJ's next song. */
const addDj = z.object({ action: z.literal("addDj"), song: clientSong.optional() });
/** Leave one's seat, or (a moderator or the owner) take `djUuid` off the stage. */
const removeDj = z.object({
  action: z.literal("removeDj"),
  djUuid: z.string().min(1).max(64).optional(),
});
/**
 * The DJ waiting list (plug.dj's): join it when the seats are full (with a free seat and
 * nobody waiting, joining seats you at once); the room seats the first in line as a seat
 * frees. Leave it at any time; leaving the room leaves it too.
 */
const joinWaitlist = z.object({ action: z.literal("joinWaitlist") });
const leaveWaitlist = z.object({ action: z.literal("leaveWaitlist") });
/** End the current song now: its DJ, a moderator or the owner. */
const skipSong = z.object({ action: z.literal("skipSong") });
/**
 * One like-or-dislike (`like: true` / `like: false`) and one star per user per song; a
 * field left out keeps the earlier vote. A star also puts the song in the voter's likes.
 */
const voteOnSong = z.object({
  action: z.literal("voteOnSong"),
  songVotes: z
    .object({ like: z.boolean().optional(), star: z.boolean().optional() })
    .refine((v) => v.like !== undefined || v.star !== undefined, "songVotes needs like or star"),
});
/** What a DJ shows as their next song (null clears it). */
const updateNextSong = z.object({
  action: z.literal("updateNextSong"),
  song: clientSong.nullable(),
});

/** Chat text: trimmed, at most 1000 characters, no control characters (a newline is allowed). */
export const CHAT_MAX_CHARS = 1000;
const chatText = z
  .string()
  .max(4 * CHAT_MAX_CHARS)
  .trim()
  .max(CHAT_MAX_CHARS)
  .refine((t) => !/[\u0000-\u0009\u000B-\u001F\u007F]/.test(t), "no control characters");
const messageId = z.string().min(1).max(64);
/** A chat line; valid only with text, or with both an image and media (checked by the room). */
export const sendChat = z.object({
  action: z.literal("sendChat"),
  message: chatText.optional(),
  imageUrls: z.array(z.string().max(2048).url()).max(4).optional(),
  media: z.string().min(1).max(2048).optional(),
  replyTo: messageId.optional(),
  /** The sender's own id for its optimistic copy; echoed in the message. */
  clientId: z.string().min(1).max(64),
});
/** Toggles the caller's reaction `emoji` on a message. */
const reactChat = z.object({
  action: z.literal("reactChat"),
  messageId,
  emoji: z.string().min(1).max(32),
});
/** The author's own text message, within 20 s of its date. */
const editChat = z.object({
  action: z.literal("editChat"),
  messageId,
  message: chatText.refine((t) => t.length > 0, "message is empty"),
});
/** The author or a moderator. */
const deleteChat = z.object({ action: z.literal("deleteChat"), messageId });
/** Older history (before the message `before`), answered to this socket alone as `chatHistory`. */
const loadChat = z.object({
  action: z.literal("loadChat"),
  before: messageId.optional(),
  limit: z.number().int().min(1).max(50).default(50),
});
/** A moderator (room role) or a platform moderator takes a user out of the room for 5 minutes. */
const kickUser = z.object({
  action: z.literal("kickUser"),
  userUuid: z.string().min(1).max(64),
  reason: z.string().trim().max(300).optional(),
});
/** A one-off animation every socket plays; nothing is stored. */
const playOneTimeAnimation = z.object({
  action: z.literal("playOneTimeAnimation"),
  animation: z.enum(["emoji", "jump"]),
  emoji: z.string().min(1).max(32).optional(),
});

export const ClientMessage = z.discriminatedUnion("action", [
  joinRoom,
  ping,
  addDj,
  removeDj,
  joinWaitlist,
  leaveWaitlist,
  skipSong,
  voteOnSong,
  updateNextSong,
  sendChat,
  reactChat,
  editChat,
  deleteChat,
  loadChat,
  kickUser,
  playOneTimeAnimation,
]);
export type ClientMessage = z.infer<typeof ClientMessage>;
export type ClientAction = ClientMessage["action"];

const ACTIONS = new Set<string>(ClientMessage.options.map((o) => o.shape.action.value));
const ACTION_FIELD = /"action"\s*:\s*"([A-Za-z]{1,32})"/;

/**
 * The action a frame names, found by a scan instead of a parse: a room pays for a frame
 * (durable/room/budget.ts) before it parses it, so a flood costs a scan a frame. Null when
 * no known action is named; parseClientMessage must then agree (room.ts refuses a frame
 * whose parsed action is not this one, so a nested "action" cannot pick a cheaper budget).
 */
export function peekAction(raw: string | ArrayBuffer | ArrayBufferView): ClientAction | null {
  if (typeof raw !== "string" || raw.length > MAX_CLIENT_MESSAGE_BYTES) return null;
  const name = ACTION_FIELD.exec(raw)?.[1];
  return name && ACTIONS.has(name) ? (name as ClientAction) : null;
}

/**
 * Parses one websocket frame. Never throws: the answer is the message, or an error string
 * fit to send back to the client.
 */
export function parseClientMessage(
  raw: string | ArrayBuffer | ArrayBufferView,
): { ok: true; message: ClientMessage } | { ok: false; error: string } {
  if (typeof raw !== "string") return { ok: false, error: "Messages must be JSON text." };
  if (raw.length > MAX_CLIENT_MESSAGE_BYTES)
    return { ok: false, error: `Messages are limited to ${MAX_CLIENT_MESSAGE_BYTES} bytes.` };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, error: "Messages must be valid JSON." };
  }
  const parsed = ClientMessage.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  const detail = parsed.error.issues
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
  return { ok: false, error: `Invalid message: ${detail}` };
}

// ---- room state --------------------------------------------------------------------------

/** The role a token carries, as the room sees it (REFERENCE.md "Token roles"). */
export const TOKEN_ROLES = [
  "globalModerator",
  "staff",
  "superUser",
  "promoter",
  "user",
  "bot",
  "admin",
  "moderator",
  "guest",
] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

/** Roles a user can hold in one room (REFERENCE.md "A room role"). */
export { ROOM_ROLES } from "./rooms";
export type RoomRole = RoomRoleName;

export interface RoomUser {
  uuid: string;
  tokenRole: TokenRole;
  /** The user's highest room role (owner, coOwner, moderator, dj), or null. */
  highestRole: RoomRole | null;
  /** Whether the room's djType and the user's roles let them take a seat now. */
  canDj: boolean;
}

/** A DJ seat: the user plus the song they show as next (what they sent, or null). */
export interface RoomDj extends RoomUser {
  nextSong: ClientSong | null;
}

export interface VoteCounts {
  likes: number;
  dislikes: number;
  stars: number;
}

/** What is playing, in server time (epoch ms); the song is the DJ's crate song. */
export interface NowPlaying {
  song: CrateSongDto;
  startTime: number;
  endTime: number;
  djUuid: string;
  /** Unique per play: play tracking and recent plays carry it. */
  playId: string;
}

/** A room role as the room lists it (REFERENCE.md "A room role"). */
export interface RoomRoleEntry {
  userUuid: string;
  role: RoomRole;
  /** Epoch ms, or null for no expiry. */
  expirationTime: number | null;
}

/**
 * Who a user is, read from D1 at connect (guests: their guest name) and replaced when the
 * account changes (`updatedUserProfile`).
 */
export interface UserProfile {
  uuid: string;
  nickname: string;
  avatarId: string;
  color: string | null;
  badges: string[];
}

/** A user's vote on the current song (`like: true` a like, `like: false` a dislike). */
export interface SongVotes {
  like?: boolean;
  star?: boolean;
}

/**
 * One user's entry in `allUserData`. `songVotes` is NOT in the shared state (a vote storm
 * would reach every socket): each user learns their own vote from the stateless `yourVote`
 * message (docs/DECISIONS.md), and a client may merge it in locally.
 */
export interface UserData {
  userProfile: UserProfile;
  /** A stable spot on the floor, each coordinate in [0, 1), derived from the uuid. */
  position: { x: number; y: number };
}

/**
 * How many present people the state's lists name besides those always named (the DJs, the
 * waiting list and holders of a room role: owner, co-owner, moderator, dj). A stadium room
 * of 10,000 would otherwise send every joiner a list of 10,000 and every socket a frame per
 * join (O(people²) bytes); past this many the lists name the first arrivals and
 * `userCount` / `audienceCount` say how many there are (docs/DECISIONS.md, "Rooms: stadium
 * relays").
 */
export const ROOM_SHOWN_USERS = 200;

export interface RoomState {
  /**
   * Everyone present except guests ("Guests are excluded from the user count list"); at most
   * ROOM_SHOWN_USERS of them besides the always named (`userCount` is the whole count).
   */
  allUsers: RoomUser[];
  /** Everyone present who is not in a DJ seat, guests included (named as `allUsers` is). */
  audienceUsers: RoomUser[];
  /** DJ seats in play order; the first is the current DJ. */
  djs: RoomDj[];
  /** The DJs a client shows on the stage; the product hides DJs in some modes, ours shows all (= djs). */
  visibleDjs: RoomDj[];
  /** Users present who are not DJs, guests included, ghosts never (ghosts are never listed). */
  floorUsers: RoomUser[];
  /** Every present user the lists name (guests included), by uuid. */
  allUserData: Record<string, UserData>;
  /** How many are present, guests excepted: what `allUsers` would list without the cap. */
  userCount: number;
  /** How many present people are not in a DJ seat, guests included. */
  audienceCount: number;
  nowPlaying: NowPlaying | null;
  voteCounts: VoteCounts;
  /** (likes - dislikes) / max(1, active listeners), clamped to -1..1. */
  vibeMeter: number;
  /** The room's settings (the room-service pushes them) plus its live roles. */
  settings: RoomSettings & { roomRoles: RoomRoleEntry[] };
  /** The last 50 chat messages, oldest first; older ones come from `loadChat`. */
  chat: ChatMessage[];
  /** The DJ waiting list, first in line first (uuids; at most 50). */
  waitlist: string[];
}

/** A chat message (seed 001 "Chat message"); `uuid` equals `id` so lists diff by identity. */
export interface ChatMessage {
  id: string;
  uuid: string;
  /** "consumable": something a user bought and sent into the room (the token shop). */
  type: "user" | "room" | "consumable";
  message: string | null;
  userUuid: string | null;
  userName: string | null;
  avatarId: string | null;
  color: string | null;
  badges: string[];
  /** Epoch ms (server time). */
  date: number;
  /** The id of the message this one answers, or null. */
  replyTo: string | null;
  /** emoji to the uuids of users who reacted with it. */
  reactions: Record<string, string[]>;
  imageUrls: string[];
  media: string | null;
  /** Links on the song hosts, for the client to resolve through the song-data API. */
  songs: { link: string }[];
  clientId: string | null;
  edited: boolean;
  /** Only on a "consumable" message: what was sent. */
  consumable?: ChatConsumable;
}

/**
 * A consumable as the room shows it (the merch-service's purchase, delivered once). The Room
 * checks a delivery against this schema (durable/room/consumables.ts).
 */
export const chatConsumable = z.object({
  purchaseId: z.string().min(1).max(64),
  consumableId: z.number().int().positive(),
  name: z.string().min(1).max(100),
  imageUrl: z.string().max(300).nullable(),
  displayType: z.enum(CONSUMABLE_DISPLAY_TYPES),
  tokenCost: z.number().int().positive(),
});
export type ChatConsumable = z.infer<typeof chatConsumable>;

// ---- server to client ----------------------------------------------------------------------

/** The full state: sent on connect and in answer to `joinRoom`. */
export interface RoomStateMessage {
  name: "roomState";
  state: RoomState;
  seq: number;
  /** The room's clock (epoch ms), for `serverTimeOffset = serverTime - Date.now()`. */
  serverTime: number;
}

/**
 * Stateful message names. Changes inside one tick leave as one frame, named after the
 * first change of the tick (a vote storm is a few `votedOnSong` frames).
 */
export const STATEFUL_MESSAGE_NAMES = [
  "userJoined",
  "userLeft",
  "addedDj",
  "removedDj",
  "playedSong",
  "updatedNextSong",
  "votedOnSong",
  "updatedRoomSettings",
  "updatedChat",
  "updatedWaitlist",
  /** Someone present changed their nickname, avatar, colour or badges (`allUserData`). */
  "updatedUserProfile",
] as const;
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
  | { name: "error"; params: { message: string; action?: ClientAction } }
  | { name: "kickedFromRoom"; params: { reason: string } }
  | {
      name: "playedOneTimeAnimation";
      params: { userUuid: string; animation: "emoji" | "jump"; emoji: string | null };
    }
  /** The answer to `loadChat`: older messages, oldest first (empty: no more). */
  | { name: "chatHistory"; params: { messages: ChatMessage[]; before: string | null } }
  /** The room's live state was cleared: rejoin after a random delay below `rejoinWithinMs`. */
  | { name: "roomReset"; params: { rejoinWithinMs: number } }
  /** To the DJ whose song is next, as the song before theirs starts. */
  | { name: "youAreNext"; params: Record<string, never> }
  /**
   * To a DJ about their queue (durable/room/refill.ts): `refilled` songs were added from the
   * crate they chose; `empty` nothing can play on their next turn (add songs, or they leave
   * the stage then); `dropped` they left the stage because nothing could play.
   */
  | { name: "queueNotice"; params: { kind: QueueNoticeKind; songs: number } }
  /** To a user the waiting list just seated. */
  | { name: "seatedFromWaitlist"; params: Record<string, never> }
  /**
   * To the voter's own sockets only: their whole vote on the current song (replaces what the
   * client holds), after each accepted vote and in answer to `joinRoom`; `{}` for no vote.
   */
  | { name: "yourVote"; params: { songVotes: SongVotes } }
  /**
   * To a guest's own sockets: the songs they have heard against the free-play limit
   * (GUEST_FREE_PLAYS), on connect and as each song starts; `used > limit` means this song
   * does not play for them.
   */
  | { name: "freePlays"; params: { used: number; limit: number } };

export const QUEUE_NOTICE_KINDS = ["refilled", "empty", "dropped"] as const;
export type QueueNoticeKind = (typeof QUEUE_NOTICE_KINDS)[number];

export type ServerMessage = RoomStateMessage | StatefulMessage | StatelessMessage;

/** The stateless message names, as a list (the audit-service's socket-events-names). */
export const STATELESS_MESSAGE_NAMES = [
  "pong",
  "error",
  "kickedFromRoom",
  "playedOneTimeAnimation",
  "chatHistory",
  "roomReset",
  "youAreNext",
  "queueNotice",
  "seatedFromWaitlist",
  "yourVote",
  "freePlays",
] as const satisfies readonly StatelessMessage["name"][];
// A stateless message added above but not to the list fails to compile here.
type OnlyNever<T extends never> = T;
export type UnlistedStatelessNames = OnlyNever<
  Exclude<StatelessMessage["name"], (typeof STATELESS_MESSAGE_NAMES)[number]>
>;

/** Every client action name, from the schema itself. */
export const CLIENT_ACTIONS = ClientMessage.options.map((o) => o.shape.action.value);

/** Close code the room uses when a connection arrives without a verified caller. */
export const CLOSE_UNAUTHORIZED = 4001;
/** Close code for a banned or kicked user (after `kickedFromRoom`). */
export const CLOSE_KICKED = 4003;
/** Close code for a room that is gone (deleted) or not set up yet (no settings pushed). */
export const CLOSE_NO_ROOM = 4004;
/** Close code for a socket that kept sending far beyond its budget (durable/room/budget.ts). */
export const CLOSE_FLOODING = 4008;
