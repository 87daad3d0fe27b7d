/**
 * One client frame, paid for, parsed and acted on: the path every action takes whichever
 * dialect its socket speaks (a browser's protocol, or a tt.live bot's, room/ttfm-dialect.ts
 * turns its frames into this protocol's text first). Moved out of room.ts, which keeps the
 * partyserver hooks.
 *
 * Invariants:
 * - The budget is paid before anything else, even the parse (room/budget.ts): a frame over
 *   budget changes nothing, not even `touch`, and costs a scan.
 * - Every action is refused or allowed by the same checks (shared/permissions.ts through
 *   actions.ts, chat.ts, moderation.ts), so a bot can do exactly what a browser can.
 * - The answer is the refusal (`Outcome`) for the caller to encode for its dialect; what an
 *   action says to other sockets (frames, yourVote, chat) leaves through the publisher and
 *   each socket's own encoder.
 */
import type { Connection, WSMessage } from "partyserver";
import {
  assertNever,
  parseClientMessage,
  peekAction,
  type ClientAction,
  type ServerMessage,
} from "../../shared/protocol";
import type { Caller, StageActions, Who } from "./actions";
import { animate } from "./animations";
import type { Blocks } from "./blocks";
import { admit, type Buckets } from "./budget";
import type { ChatActions } from "./chat";
import { BUDGET_MSG, ROOM_LINE, STAGE_MSG } from "./messages";
import type { Moderation } from "./moderation";
import type { Notices } from "./notices";
import { DJ_ACTIONS, type Playback } from "./playback";
import { send, type Publisher } from "./publisher";
import type { RoomStorage } from "./storage";
import type { Waitlist } from "./waitlist";

/** A refused frame: the message, the action it named, and whether the budget already said so. */
export type Outcome = { error: string; action?: ClientAction; sent?: boolean } | null;

export interface DispatchDeps {
  storage: RoomStorage;
  publisher: Publisher<Caller>;
  actions: StageActions;
  playback: Playback;
  chat: ChatActions;
  notices: Notices;
  blocks: Blocks;
  moderation: Moderation;
  budgets: Buckets;
  waitlist: Waitlist;
  /** Sends to every socket of one user (room.ts: a push when they are away). */
  sendTo: (uuid: string, m: ServerMessage) => void;
}

export class Dispatcher {
  constructor(private readonly d: DispatchDeps) {}

  /**
   * Runs one frame from `c`. `join` answers `joinRoom` in the socket's dialect (a browser
   * gets the full state; a bot its join answer).
   */
  async run(
    c: Connection<Caller>,
    who: Who,
    raw: WSMessage,
    join: (c: Connection<Caller>) => void,
  ): Promise<Outcome> {
    const { storage, actions, chat, moderation, publisher } = this.d;
    const action = peekAction(raw);
    if (!admit(this.d.budgets, c, who.uuid, action))
      return { error: BUDGET_MSG.over, ...(action ? { action } : {}), sent: true };
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) return { error: parsed.error };
    const msg = parsed.message;
    // The budget paid was the scanned action's; a frame that hides another is refused.
    if (msg.action !== action) return { error: STAGE_MSG.oneAction };
    // Any action but the clock sync makes its sender an active listener (auto-skip, vibe).
    if (msg.action !== "ping") storage.touch(who.uuid, Date.now());
    // A DJ's AFK clock counts only what shows them at the decks (docs/DECISIONS.md).
    if (DJ_ACTIONS.has(msg.action)) this.d.playback.acted(who.uuid, Date.now());
    let error: string | null = null;
    switch (msg.action) {
      case "joinRoom":
        join(c);
        return null;
      case "ping":
        this.#send(c, {
          name: "pong",
          params: { clientTime: msg.clientTime, serverTime: Date.now() },
        });
        return null;
      case "addDj":
        error = await actions.addDj(who, msg);
        if (!error) this.d.waitlist.seated(who.uuid);
        break;
      case "joinWaitlist":
        error = await this.d.waitlist.join(who);
        break;
      case "leaveWaitlist":
        error = this.d.waitlist.leave(who);
        break;
      case "removeDj":
        error = actions.removeDj(who, msg);
        break;
      case "skipSong": {
        const dj = storage.playing()?.dj_uuid;
        error = actions.skipSong(who);
        if (!error && dj !== who.uuid) chat.roomMessage(ROOM_LINE.skippedByModerator);
        break;
      }
      case "voteOnSong":
        error = actions.voteOnSong(who, msg);
        // songVotes stays out of the shared state: only the voter's own sockets hear it.
        if (!error)
          this.d.sendTo(who.uuid, {
            name: "yourVote",
            params: { songVotes: actions.yourVote(who.uuid) },
          });
        break;
      case "updateNextSong":
        error = actions.updateNextSong(who, msg);
        break;
      case "sendChat":
        error = chat.send(who, who.profile, msg);
        if (!error) this.d.notices.mentions(who, msg.message);
        break;
      case "reactChat":
        error = chat.react(who, who.profile, msg);
        break;
      case "editChat":
        error = chat.edit(who, who.profile, msg);
        break;
      case "deleteChat":
        error = chat.delete(who, msg);
        break;
      case "loadChat":
        this.#send(c, {
          name: "chatHistory",
          params: {
            messages: this.d.blocks.chatFor(who.uuid, chat.page(msg.before ?? null, msg.limit)),
            before: msg.before ?? null,
          },
        });
        return null;
      case "kickUser":
        error = moderation.kickRefusal(who, msg.userUuid);
        if (!error) moderation.kick(msg.userUuid, msg.reason ?? "", who.uuid);
        break;
      case "playOneTimeAnimation":
        error = animate(this.d.budgets, who, msg, (t) => publisher.broadcastFrom(who.uuid, t));
        break;
      default:
        return assertNever(msg);
    }
    return error ? { error, action: msg.action } : null;
  }

  #send(c: Connection, m: ServerMessage) {
    send(c, JSON.stringify(m));
  }
}
