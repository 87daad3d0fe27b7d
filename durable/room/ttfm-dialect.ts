/**
 * The tt.live bot dialect inside the Room (shared/protocol-ttfm.ts): a bot's socket reaches
 * this object through the gateway's /primus bridge (workers/primus.ts, which owns the
 * Primus transport: heartbeats, `primus::server::close`, picking the room). Here, a bot's
 * request becomes our protocol's frame and takes the browsers' path (room/dispatch.ts), and
 * what the room sends a bot goes through its encoder (publisher.ts `send`).
 *
 * Invariants:
 * - One encoder per socket; one translation per frame shared by every bot (ttfm-state.ts),
 *   so a bot and a browser see the same changes in the same order.
 * - A bot hears the room only after its joinRoom answer: the answer holds the state at seq
 *   N (the publisher flushed first), and the bot then gets exactly the frames after N.
 * - Nothing leaves for a bot within JOIN_DEFER_MS of its join answer: the client attaches
 *   its listeners after `await joinRoom()`, so `updatedUserData` and the frames queued
 *   behind it wait (TTFM-PROTOCOL.md 3, "Race").
 * - Every request gets exactly one answer with its messageId, refused or not; what our
 *   protocol says to browsers alone (yourVote, pong, errors, full states) is not sent.
 * - Whether a socket joined is in its attachment (`ttfmJoined`), so a hibernated room wakes
 *   up still sending its bots their frames.
 */
import type { Connection, WSMessage } from "partyserver";
import type { ChatMessage, ServerMessage, StatefulMessage } from "../../shared/protocol";
import {
  CLOSE_RESET,
  parseTtfmRequest,
  TTFM_ACTIONS,
  ttfmResponse,
  TTFM_STATE_ANSWERS,
  ttfmUserFrame,
  UNKNOWN_ACTION,
  type TtfmAction,
  type TtfmRequest,
} from "../../shared/protocol-ttfm";
import type { Caller, Who } from "./actions";
import { admit, type Buckets } from "./budget";
import type { Dispatcher } from "./dispatch";
import { BUDGET_MSG } from "./messages";
import { sendRaw, setEncoder, type Publisher } from "./publisher";
import type { RoomStorage } from "./storage";
import { chatLines, TtfmState } from "./ttfm-state";

/** How long a bot's frames wait after its join answer (the client's listeners attach then). */
export const JOIN_DEFER_MS = 20;

interface Joined {
  /** The last seq this socket was sent (or that its join answer included). */
  seq: number;
  /** Frames held back during JOIN_DEFER_MS (null: sent as they come). */
  queue: string[] | null;
}

/** What one of our texts becomes for bots, shared by all of them. */
interface Encoded {
  texts: string[];
  seq?: number;
  /** Close the socket after these (roomReset: the bot joins again on a new socket). */
  close?: number;
  /** Sent to a bot not in the room yet too (a kick at connect: the bridge answers its join). */
  always?: true;
}

const isAction = (a: unknown): a is TtfmAction =>
  typeof a === "string" && (TTFM_ACTIONS as readonly string[]).includes(a);

/** A song as the client sends it (MinimalCrateSongResDTO) as our protocol names one. */
function songFrom(s: unknown): unknown {
  if (!s || typeof s !== "object") return s;
  const o = s as Record<string, unknown>;
  const providers = (o.musicProviders ?? {}) as Record<string, unknown>;
  const firstProvider = Object.values(providers).find((v) => typeof v === "string");
  return {
    songId: o.songId ?? o.crateSongUuid ?? o.songShortId ?? firstProvider,
    songShortId: o.songShortId,
    crateSongUuid: o.crateSongUuid,
    trackName: o.trackName,
    artistName: o.artistName,
    genre: o.genre,
    isrc: o.isrc,
    duration: o.duration,
    musicProviders: o.musicProviders,
    thumbnails: o.thumbnails,
  };
}

/** A bot's action as our protocol's frame (the action first: peekAction reads the first). */
export function toClientFrame(action: TtfmAction, p: Record<string, unknown>, id: unknown) {
  switch (action) {
    case "joinRoom":
    case "skipSong":
      return { action };
    case "addDj":
      return p.song === undefined ? { action } : { action, song: songFrom(p.song) };
    case "updateNextSong":
      return { action, song: p.song == null ? null : songFrom(p.song) };
    case "removeDj":
      return { action, djUuid: p.djUuid };
    case "voteOnSong":
      return { action, songVotes: p.songVotes };
    case "playOneTimeAnimation":
      return { action, animation: p.animation, emoji: p.emoji };
    case "sendChat":
      return { action, message: p.message, clientId: p.clientId ?? `bot-${String(id)}` };
  }
}

export class TtfmDialect {
  readonly #state: TtfmState;
  #joined = new Map<string, Joined>();
  #cache: { text: string; out: Encoded } | null = null;

  constructor(
    private readonly storage: RoomStorage,
    private readonly publisher: Publisher<Caller>,
    private readonly dispatcher: Dispatcher,
    private readonly budgets: Buckets,
  ) {
    this.#state = new TtfmState(storage);
  }

  #room(): string {
    return this.storage.settings().uuid;
  }

  /** A bot's socket (at connect, or when the object wakes): its encoder, and its join. */
  attach(c: Connection<Caller>) {
    if (c.state?.dialect !== "ttfm") return;
    setEncoder(c, (text) => this.#deliver(c, text));
    if (c.state.ttfmJoined && !this.#joined.has(c.id))
      this.#joined.set(c.id, { seq: this.storage.frames.seq(), queue: null });
  }

  forget(id: string) {
    this.#joined.delete(id);
  }

  /** One frame from a bot: a request, answered by its messageId. */
  async onMessage(c: Connection<Caller>, who: Who, raw: WSMessage) {
    const req = parseTtfmRequest(raw);
    if (!req) {
      // Nothing to answer; a flood of it still pays (and ends in the flood close).
      admit(this.budgets, c, who.uuid, null);
      return;
    }
    const action = req.params?.action;
    if (req.event !== "action" || !isAction(action)) {
      const paid = admit(this.budgets, c, who.uuid, null);
      return this.#answer(c, req, paid ? UNKNOWN_ACTION : BUDGET_MSG.over);
    }
    const frame = JSON.stringify(toClientFrame(action, req.params ?? {}, req.messageId));
    let joined = false;
    const outcome = await this.dispatcher.run(c, who, frame, (conn) => {
      joined = true;
      this.#join(conn, req);
    });
    if (joined) return;
    const error = outcome?.error ?? null;
    const state =
      !error && TTFM_STATE_ANSWERS.has(action)
        ? this.#state.serverRoomState(this.publisher.publishedState())
        : undefined;
    this.#answer(c, req, error, state);
  }

  #answer(c: Connection, req: TtfmRequest, error: string | null, fields?: object) {
    sendRaw(c, ttfmResponse(req.messageId, error, fields as Record<string, unknown> | undefined));
  }

  /** The join answer: the state at the published seq; the frames after it follow. */
  #join(c: Connection<Caller>, req: TtfmRequest) {
    // Not joined while the publisher flushes: the frame it sends now is in the snapshot.
    this.#joined.delete(c.id);
    this.publisher.flush();
    const seq = this.storage.frames.seq();
    const { state, userData } = this.#state.snapshot(this.publisher.publishedState(), seq);
    if (c.state && !c.state.ttfmJoined) c.setState({ ...(c.state as Caller), ttfmJoined: true });
    const room = this.#room();
    sendRaw(
      c,
      ttfmResponse(req.messageId, null, {
        roomUuid: room,
        allowedRooms: [room],
        didCreate: false,
        state,
        serverTime: Date.now(),
      }),
    );
    const entry: Joined = {
      seq,
      queue: [ttfmUserFrame(room, { name: "updatedUserData", statePatch: userData })],
    };
    this.#joined.set(c.id, entry);
    setTimeout(() => {
      const queued = entry.queue ?? [];
      entry.queue = null;
      for (const t of queued) sendRaw(c, t);
    }, JOIN_DEFER_MS);
  }

  /** The encoder: what the room sends this bot, in its dialect. */
  #deliver(c: Connection<Caller>, text: string) {
    const out = this.#encode(text);
    const entry = this.#joined.get(c.id);
    if (entry && out.texts.length) {
      if (out.seq !== undefined) {
        if (out.seq <= entry.seq) return; // in its join answer already
        entry.seq = out.seq;
      }
      if (entry.queue) entry.queue.push(...out.texts);
      else for (const t of out.texts) sendRaw(c, t);
    } else if (!entry && out.always) for (const t of out.texts) sendRaw(c, t);
    if (out.close !== undefined) {
      try {
        c.close(out.close, "The room was reset: join again.");
      } catch {
        /* already closing */
      }
    }
  }

  /** One text of ours for every bot (cached: a broadcast encodes once). */
  #encode(text: string): Encoded {
    if (this.#cache?.text === text) return this.#cache.out;
    const out = this.#translate(JSON.parse(text) as ServerMessage);
    this.#cache = { text, out };
    return out;
  }

  #translate(m: ServerMessage): Encoded {
    const room = this.#room();
    if ("statePatch" in m) {
      const f = this.#state.translate(m as StatefulMessage);
      const texts = f.statePatch.length
        ? [ttfmUserFrame(room, { name: f.name, statePatch: f.statePatch })]
        : [];
      for (const chat of chatLines(m as StatefulMessage)) texts.push(chatFrame(room, chat));
      return { texts, seq: f.seq };
    }
    switch (m.name) {
      case "kickedFromRoom":
        return { texts: [ttfmUserFrame(room, { name: m.name, params: m.params })], always: true };
      case "playedOneTimeAnimation": {
        const { emoji, ...rest } = m.params;
        const params = emoji === null ? rest : { ...rest, emoji };
        return { texts: [ttfmUserFrame(room, { name: m.name, params })] };
      }
      case "roomReset":
        return { texts: [ttfmUserFrame(room, { name: m.name, params: {} })], close: CLOSE_RESET };
      default:
        // The full state, pong, yourVote (the vote is in allUserData), errors (a request's
        // refusal is its answer), chat pages, free plays, youAreNext: browsers' alone.
        return { texts: [] };
    }
  }
}

/** A chat line as bots read it: a stateless `chatMessage` (the client emits unknown names). */
function chatFrame(room: string, m: ChatMessage): string {
  const { id, type, message, userUuid, userName, date, replyTo, imageUrls, media } = m;
  return ttfmUserFrame(room, {
    name: "chatMessage",
    params: { id, type, message, userUuid, userName, date, replyTo, imageUrls, media },
  });
}
