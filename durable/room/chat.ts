/**
 * Chat actions (seed 001 "Chat message", Validation rules): send, react, edit, delete, and
 * the history pages. Each answers an error message (sent to that socket alone, nothing
 * changed) or null when it succeeded.
 *
 * Invariants:
 * - A message is valid only with text, or with both an image and media; a user message
 *   carries the sender's uuid, name and avatar (read from D1 at connect, kept in the
 *   connection state). Guests, ghosts and users without a profile cannot chat.
 * - Chat is refused while the room has no chat or the user holds chatDisabled in force
 *   (no expiry or a future one); the alarm removes an expired role (room.ts).
 * - Only the author edits, only a text message, only while `now - date < 20 s`; `now`
 *   comes from the injected clock so tests can move it.
 * - A user's lines are paid from their chat bucket (about 5 per 5 s) and the room's
 *   (budget.ts: in memory, a rate and not state). Animations have their own buckets.
 * - A reaction is one emoji (shared/reactions.ts); a message holds at most 50 distinct
 *   reactions, each a toggle of one user's uuid, so a stored line stays small.
 * - Every change marks `chat` in the publisher: clients see it as a patch on /chat.
 * - Every chat line (a user's, the room's, a delivered consumable) is made by `chatLine`, so
 *   each carries every ChatMessage field.
 */
import type { ChatMessage, ClientMessage } from "../../shared/protocol";
import { isReactionEmoji, MAX_REACTIONS_PER_MESSAGE } from "../../shared/reactions";
import { Buckets, ROOM_CHAT, USER_CHAT } from "./budget";
import { CHAT_MSG, STAGE_MSG } from "./messages";
import type { Marks } from "./publisher";
import type { RoomStorage } from "./storage";
import { RoomView } from "./view";
import type { Who } from "./actions";
import type { Effects } from "./effects";
import type { ChatProfile } from "./profile";

type ChatTopic = "chat.message" | "chat.edited" | "chat.deleted";

export const EDIT_WINDOW_MS = 20_000;

const SONG_HOSTS = [
  "apple",
  "audius",
  "napster",
  "soundcloud",
  "spotify",
  "youtube",
  "youtu.be",
  "pandora",
  "deezer",
  "tidal",
  "amazon",
  "yandex",
  "spinrilla",
];

type Act<A extends ClientMessage["action"]> = Extract<ClientMessage, { action: A }>;

/** A new chat line with a fresh id: every field empty (nobody's, no media, unedited) unless given. */
export function chatLine(
  type: ChatMessage["type"],
  date: number,
  fields: Partial<Omit<ChatMessage, "id" | "uuid" | "type" | "date">>,
): ChatMessage {
  const id = crypto.randomUUID();
  return {
    id,
    uuid: id,
    type,
    message: null,
    userUuid: null,
    userName: null,
    avatarId: null,
    color: null,
    badges: [],
    date,
    replyTo: null,
    reactions: {},
    imageUrls: [],
    media: null,
    songs: [],
    clientId: null,
    edited: false,
    ...fields,
  };
}

/** Links whose host names a song provider (the client resolves them; the room never calls providers). */
export function songLinks(text: string | null): { link: string }[] {
  if (!text) return [];
  const out: { link: string }[] = [];
  for (const raw of text.match(/https?:\/\/[^\s<>"]+/g) ?? []) {
    let host: string;
    try {
      host = new URL(raw).hostname.toLowerCase();
    } catch {
      continue;
    }
    if (SONG_HOSTS.some((h) => host.includes(h)) && !out.some((o) => o.link === raw))
      out.push({ link: raw });
  }
  return out.slice(0, 5);
}

export class ChatActions {
  constructor(
    private readonly storage: RoomStorage,
    private readonly publisher: Marks,
    readonly budgets: Buckets,
    /** The room's outbox: each chat change owes its audit event there. */
    private readonly effects: Pick<Effects, "add" | "drain"> | null = null,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Owes the audit event of a chat change (seed 001: audit events include chat), written in
   * the same step as the change: an eviction cannot lose it, and the message id makes a
   * resend store it once. The text is kept (bounded by CHAT_MAX_CHARS) for trust and safety.
   */
  #audit(topic: ChatTopic, who: Who, m: ChatMessage, targetUuid: string | null = null) {
    if (!this.effects) return;
    const eventId = `${topic}:${m.id}:${this.now()}`;
    this.effects.add(eventId, {
      kind: "audit",
      message: {
        eventId,
        topic,
        userUuid: who.uuid,
        actorUuid: who.uuid,
        targetUuid,
        data: {
          roomUuid: this.storage.settings().uuid,
          messageId: m.id,
          message: m.message,
          imageUrls: m.imageUrls,
          media: m.media,
        },
        occurredAt: this.now(),
      },
    });
    void this.effects.drain();
  }

  /** Why `who` may not chat now, or null. */
  #refusal(who: Who, profile: ChatProfile | null): string | null {
    const view = new RoomView(this.storage, this.now());
    if (!view.settings.hasChat) return CHAT_MSG.noChat;
    if (who.tokenType === "ghost") return STAGE_MSG.ghost;
    if (who.tokenType === "guest") return CHAT_MSG.guest;
    if (!profile) return CHAT_MSG.noProfile;
    if (view.rolesOf(who.uuid).has("chatDisabled") || view.rolesOf(who.uuid).has("banned"))
      return CHAT_MSG.disabled;
    return null;
  }

  send(who: Who, profile: ChatProfile | null, msg: Act<"sendChat">): string | null {
    const refused = this.#refusal(who, profile);
    if (refused) return refused;
    const text = msg.message ? msg.message : null;
    const images = msg.imageUrls ?? [];
    if (!text && !(images.length && msg.media)) return CHAT_MSG.invalid;
    if (msg.replyTo && !this.storage.chat.get(msg.replyTo)) return CHAT_MSG.notFound;
    // The sender's own rate, and the room's: every socket receives every line.
    if (!this.budgets.take([`chat:${who.uuid}`, USER_CHAT], ["room:chat", ROOM_CHAT]))
      return CHAT_MSG.rate;
    const line = chatLine("user", this.now(), {
      message: text,
      userUuid: who.uuid,
      userName: profile!.name,
      avatarId: profile!.avatarId,
      color: profile!.color,
      badges: [...profile!.badges],
      replyTo: msg.replyTo ?? null,
      imageUrls: images,
      media: msg.media ?? null,
      songs: songLinks(text),
      clientId: msg.clientId,
    });
    this.storage.chat.add(line);
    this.#audit("chat.message", who, line);
    this.publisher.mark(["chat"], "updatedChat");
    return null;
  }

  /** A message from the room itself (a kick, a moderator's skip). */
  roomMessage(text: string) {
    this.storage.chat.add(chatLine("room", this.now(), { message: text }));
    this.publisher.mark(["chat"], "updatedChat");
  }

  react(who: Who, profile: ChatProfile | null, msg: Act<"reactChat">): string | null {
    const refused = this.#refusal(who, profile);
    if (refused) return refused;
    if (!isReactionEmoji(msg.emoji)) return CHAT_MSG.notEmoji;
    const m = this.storage.chat.get(msg.messageId);
    if (!m) return CHAT_MSG.notFound;
    // A stored line must never grow without bound: a new key only while there are fewer than 50.
    if (!m.reactions[msg.emoji] && Object.keys(m.reactions).length >= MAX_REACTIONS_PER_MESSAGE)
      return CHAT_MSG.tooManyReactions;
    const list = m.reactions[msg.emoji] ?? [];
    const next = list.includes(who.uuid) ? list.filter((u) => u !== who.uuid) : [...list, who.uuid];
    if (next.length) m.reactions[msg.emoji] = next;
    else delete m.reactions[msg.emoji];
    this.storage.chat.put(m);
    this.publisher.mark(["chat"], "updatedChat");
    return null;
  }

  edit(who: Who, profile: ChatProfile | null, msg: Act<"editChat">): string | null {
    const refused = this.#refusal(who, profile);
    if (refused) return refused;
    const m = this.storage.chat.get(msg.messageId);
    if (!m) return CHAT_MSG.notFound;
    if (m.type !== "user" || m.userUuid !== who.uuid) return CHAT_MSG.notAuthor;
    if (m.message === null || m.imageUrls.length || m.media) return CHAT_MSG.notText;
    if (this.now() - m.date >= EDIT_WINDOW_MS) return CHAT_MSG.tooLate;
    m.message = msg.message;
    m.songs = songLinks(msg.message);
    m.edited = true;
    this.storage.chat.put(m);
    this.#audit("chat.edited", who, m);
    this.publisher.mark(["chat"], "updatedChat");
    return null;
  }

  delete(who: Who, msg: Act<"deleteChat">): string | null {
    const m = this.storage.chat.get(msg.messageId);
    if (!m) return CHAT_MSG.notFound;
    // Someone else's line only by someone who outranks its author (a room line has none).
    if (
      m.userUuid !== who.uuid &&
      new RoomView(this.storage, this.now()).refusalFor(who, "deleteChat", m.userUuid)
    )
      return CHAT_MSG.notAllowed;
    this.storage.chat.delete(m.id);
    // Someone else's line deleted: the author is the target (a moderator's action).
    this.#audit("chat.deleted", who, m, m.userUuid !== who.uuid ? m.userUuid : null);
    this.publisher.mark(["chat"], "updatedChat");
    return null;
  }

  /**
   * The chat-token calls (GET/POST /rooms/{id}/chat, for bots and chat clients without a
   * socket): only a member of the room's chat (the CometChat group join, which refused the
   * banned and kicked) reads or posts, and one kicked or banned since is refused now. A post
   * is a socket's sendChat in every rule and budget; it answers the line it made.
   */
  overHttp(uuid: string): string | null {
    if (!this.storage.chat.isMember(uuid)) return CHAT_MSG.notMember;
    const roles = new RoomView(this.storage, this.now()).rolesOf(uuid);
    if (roles.has("kicked") || roles.has("banned")) return CHAT_MSG.kicked;
    return null;
  }

  post(who: Who, msg: Act<"sendChat">): { error: string | null; message: ChatMessage | null } {
    const error = this.overHttp(who.uuid) ?? this.send(who, who.profile, msg);
    // send() added the line synchronously: it is the newest one.
    return { error, message: error ? null : this.storage.chat.page(null, 1)[0]! };
  }

  /** Older history, oldest first. */
  page(before: string | null, limit: number): ChatMessage[] {
    return this.storage.chat.page(before, Math.max(1, Math.min(50, limit)));
  }
}
