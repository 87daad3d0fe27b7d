/**
 * Every text the Room object shows people: the `error` replies to refused actions, the
 * reasons it closes a socket with, the lines it posts into the chat as the room, and the
 * names it makes up. The Worker's texts are in its services' catalogues, not here.
 *
 * Invariants:
 * - The texts are word for word what clients (and tests) see: changing one changes what
 *   people read, so it is done here and nowhere else.
 * - No module of the room writes a user-facing text inline; it names one of these.
 */
import { guestName } from "../../shared/roles";

/** A socket refused at connect (presence.ts) and plain HTTP (room.ts). */
export const CONNECT_MSG = {
  unauthorized: "A verified caller is needed to join a room.",
  passwordProtected: "This room is password protected: join it from its page.",
  joinTicket: "Join ticket required.",
  /** The room was deleted: the object refuses sockets for good. */
  deleted: "This room was deleted.",
  /** The object has no settings yet: the room-service pushes them when it creates the room. */
  notReady: "This room is not open yet.",
  /** The account's sessions ended (password change) or it was deactivated. */
  sessionEnded: "Your session has ended: sign in again.",
  /** The answer to plain HTTP (the room-service uses RPC instead). */
  noRoute: (method: string, pathname: string) => `Cannot ${method} ${pathname}`,
} as const;

/** Stage actions (actions.ts) and one-time animations. */
export const STAGE_MSG = {
  full: "The DJ booth is full.",
  oneAction: "Invalid message: name one action, once.",
  ghost: "Ghost connections cannot do that.",
  alreadyDj: "You are already on the stage.",
  emptyQueue: "Your queue is empty: add a song to it before taking a seat.",
  notDj: "That user is not on the stage.",
  notMod: "Only a moderator or the room's owner can remove another DJ.",
  noSong: "No song is playing.",
  skipForbidden: "Only the current DJ, a moderator or the room's owner can skip the song.",
  nextSongNotDj: "Only a DJ has a next song.",
  queueUnavailable: "Your queue could not be read; try again.",
  animationRate: "You are sending animations too fast; wait a few seconds.",
  liveAudio: "This room is playing live audio: the DJ booth is closed.",
  guestVote: "Sign up to vote on songs.",
  guestAnimation: "Sign up to send animations.",
} as const;

/** The DJ waiting list (waitlist.ts). */
export const WAITLIST_MSG = {
  full: "The waiting list is full; try again when someone gets a seat.",
  notWaiting: "You are not on the waiting list.",
  emptyQueue: "Your queue is empty: add a song to it before joining the waiting list.",
} as const;

/** The seat rule (view.ts djRefusal, by the room's djType). */
export const SEAT_MSG = {
  guest: "Guests cannot DJ.",
  barred: "You may not DJ in this room.",
  verifiedOnly: "Only users with a verified e-mail may DJ in this room.",
  subscribersOnly: "Only subscribers may DJ in this room.",
  inviteOnly: "This room's DJ booth is invite only.",
} as const;

/** Chat actions (chat.ts). */
export const CHAT_MSG = {
  noChat: "Chat is turned off in this room.",
  guest: "Guests cannot chat.",
  noProfile: "Your profile could not be read; reconnect to chat.",
  disabled: "Chat is disabled for you in this room.",
  invalid: "A message needs text, or both an image and media.",
  rate: "You are sending messages too fast; wait a few seconds.",
  notEmoji: "A reaction must be a single emoji.",
  tooManyReactions: "This message has as many different reactions as it can hold.",
  notFound: "That message does not exist.",
  notAuthor: "Only the author can edit a message.",
  notText: "Only a text message can be edited.",
  tooLate: "A message can only be edited within 20 seconds.",
  notAllowed: "Only the author or a moderator can delete a message.",
  notMember: "Join the room's chat first (POST /roomUserRoles/cometchat/join/{roomId}).",
  kicked: "You were kicked from this room.",
} as const;

/** Kicks (moderation.ts). */
export const MOD_MSG = {
  notAllowed: "Only a moderator or the room's owner can kick a user.",
  owner: "The room's owner cannot be kicked.",
  self: "You cannot kick yourself.",
  target:
    "You can only kick someone below you in this room (moderators below co-owners, co-owners below the owner).",
} as const;

/** Budgets (budget.ts): a frame over its budget, and the close of a socket that floods. */
export const BUDGET_MSG = {
  over: "You are doing that too fast; wait a moment.",
  flooding: "Too many messages too fast.",
} as const;

/** Consumable deliveries (consumables.ts): refusals the merch-service passes on as 409. */
export const DELIVERY_MSG = {
  notInRoom: "You need to be in the room to send something there.",
  noChat: "This room has chat turned off, so nothing can be sent there.",
  closed: "This purchase was cancelled and nothing was charged.",
} as const;

/** Lines the room posts into its chat as itself (chat.ts roomMessage). */
export const ROOM_LINE = {
  skippedByModerator: "The song was skipped by a moderator.",
  kicked: (byModerator: boolean, reason: string) =>
    `A user was kicked from the room${byModerator ? " by a moderator" : ""}${reason ? `: ${reason}` : "."}`,
  away: (name: string) => `${name} left the stage (away)`,
  emptyQueue: (name: string) => `${name} left the stage (nothing left in their queue)`,
  turnOver: (name: string, songs: number, perTurn: number) =>
    `${name} left the stage after ${songs} ${songs === 1 ? "song" : "songs"} (the room allows ${perTurn} per turn)`,
} as const;

/** Names the room makes up when it has none from D1. */
export const NAMES = {
  /** A DJ whose profile the room does not hold, in a room line. */
  someDj: "A DJ",
  /** A guest's name, as the user-service gives it. */
  guest: guestName,
  user: (uuid: string) => `User ${uuid.slice(0, 4).toUpperCase()}`,
} as const;
