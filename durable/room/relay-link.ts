/**
 * The link between a Room and one of its Relays (durable/relay.ts): one websocket the relay
 * opens to the room, carrying batches of lines both ways (docs/ARCHITECTURE.md "Stadium
 * rooms"). A batch is its lines joined by "\n": JSON never holds a raw newline, so a frame
 * the room publishes travels as the very text its own sockets get, never re-encoded.
 *
 * Room -> relay, each line one of:
 * - a protocol message (`{"name":...`): every browser socket of the relay that had its full
 *   state hears it; a stateful one (seq) is applied to the relay's copy first;
 * - `s` the link's full state (the relay's copy starts there), `a` admit sockets (they get
 *   the copy's full state, or with `own` the text sent just before, then every broadcast), `d` a text for one socket, `o` other texts
 *   for some sockets in place of the next broadcast (blocks), `c` close a socket.
 * Relay -> room: `j` a socket joined (its verified caller, and its DJ facts read by the
 * relay), `m` a socket's frame, `l` a socket left, `k` still here (keeps the room awake).
 */
import { z } from "zod";
import type { RoomStateMessage } from "../../shared/protocol";
import { chatProfile } from "./profile";

/** The header a relay's link carries; the gateway deletes it from every client request. */
export const RELAY_HEADER = "x-hangout-relay";
/** The gateway's word to a relay: `{ room, index }` (deleted from client requests too). */
export const RELAY_OF_HEADER = "x-hangout-relay-of";
/** The tag of relay links among the room's sockets (never a user's). */
export const RELAY_LINK_TAG = "relay-link";
/** The close code of a link the room drops (restart, a room that is gone): the relay reconnects. */
export const CLOSE_LINK_RESET = 4012;

/** The relay of `room` at `index`: its object name. */
export const relayName = (room: string, index: number) => `${room}#${index}`;

export type ToRelay =
  | { t: "s"; x: RoomStateMessage }
  | { t: "a"; s: string[]; own?: true }
  | { t: "d"; s: string; x: string }
  | { t: "o"; own: Record<string, string | null> }
  | { t: "c"; s: string; c: number; r: string };

const sid = z.string().min(1).max(80);
const facts = z
  .object({
    emailVerified: z.boolean(),
    pro: z.boolean(),
    // room/profile.ts ChatProfile, as the relay read it from D1 (room/library.ts djFacts).
    profile: chatProfile.nullable(),
  })
  .nullable();

/** What a relay may say; a line that is none of these is dropped (and logged). */
export const fromRelay = z.discriminatedUnion("t", [
  z.object({ t: z.literal("j"), s: sid, c: z.unknown(), f: facts }),
  z.object({ t: z.literal("m"), s: sid, x: z.string().max(65_536) }),
  z.object({ t: z.literal("l"), s: sid }),
  // Keepalive: the relay still holds sockets (the room's registry of them is in memory).
  z.object({ t: z.literal("k") }),
]);
export type FromRelay = z.infer<typeof fromRelay>;

/** One line as text. */
export const line = (m: ToRelay | FromRelay) => JSON.stringify(m);

/** Whether a line is an envelope (not a protocol message to fan out). */
export const isEnvelope = (text: string) => text.startsWith('{"t":');

/**
 * A sender that batches lines per turn of the event loop: everything one event (a tick, a
 * vote) sends on a link leaves as one websocket message, in order.
 */
export class Batcher {
  #lines: string[] = [];
  #scheduled = false;
  constructor(
    private readonly out: (batch: string) => void,
    private readonly later: (f: () => void) => void = (f) => queueMicrotask(f),
  ) {}

  push(text: string) {
    this.#lines.push(text);
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.later(() => this.flush());
  }

  flush() {
    this.#scheduled = false;
    if (!this.#lines.length) return;
    const batch = this.#lines.join("\n");
    this.#lines = [];
    this.out(batch);
  }

  get size() {
    return this.#lines.length;
  }
}
