/**
 * Coalescing publisher (DESIGN.md "Fan-out is what a room costs"): every change marks the
 * state keys it touched; one tick later (TICK_MS) the marked keys are recomputed, diffed
 * against what clients were last told, and sent as ONE patch frame with ONE seq to every
 * socket. A vote storm therefore costs a few frames carrying only the counts and the vibe.
 *
 * Invariants:
 * - The published state (what every client holds at seq N) and the pending key set are in
 *   SQLite. The tick timer is only in memory: if the object hibernates or is evicted with a
 *   batch pending, the next start arms the timer again (Room constructor) and the batch
 *   goes out then. Nothing is lost, and no socket ever sees a seq twice or a gap.
 * - A frame is built and its seq taken in one transaction with the new published state,
 *   and sent only after (the output gate also holds it until the write is durable).
 * - A socket that has not had the full state yet (`needsState`) gets the full state at the
 *   new seq instead of the frame, so the state it starts from already contains its own
 *   arrival and every later frame applies to it.
 * - At most one frame per tick: a socket gets at most 1000 / TICK_MS frames a second.
 */
import type { Connection } from "partyserver";
import { applyPatch, type JsonValue } from "../../shared/json-patch";
import type {
  RoomState,
  RoomStateMessage,
  StatefulMessage,
  StatefulMessageName,
} from "../../shared/protocol";
import { diff } from "./diff";
import type { RoomStorage } from "./storage";
import { RoomView, STATE_KEYS, type StateKey } from "./view";

export const TICK_MS = 50;

/** What the publisher needs of a connection's state. */
export interface NeedsState {
  needsState: boolean;
}

/** What the rest of the room needs of the publisher: marking a change. */
export interface Marks {
  mark(keys: readonly StateKey[], name: StatefulMessageName): void;
}

export class Publisher<C extends NeedsState> implements Marks {
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly storage: RoomStorage,
    private readonly connections: () => Iterable<Connection<C>>,
  ) {}

  /** Records that `keys` changed; the frame of this tick is named after its first change. */
  mark(keys: readonly StateKey[], name: StatefulMessageName) {
    // visibleDjs is computed from the seats as djs is: whatever changes one changes both, so
    // they are marked together here, once, rather than at every caller.
    const all =
      keys.includes("djs") && !keys.includes("visibleDjs")
        ? [...keys, "visibleDjs" as const]
        : keys;
    this.storage.markPending(all, name, Date.now());
    this.arm();
  }

  /** Starts the tick if it is not running. */
  arm() {
    this.#timer ??= setTimeout(() => {
      try {
        this.flush();
      } catch (e) {
        console.error("room: flush failed", e);
      }
    }, TICK_MS);
  }

  /** The first publication of a room (or of a key added by a later version): no frame, nobody holds it yet. */
  ensurePublished() {
    const have = this.storage.published();
    const missing = STATE_KEYS.filter((k) => !have.has(k));
    if (!missing.length) return;
    const view = new RoomView(this.storage, Date.now());
    for (const k of missing) this.storage.setPublished(k, view.compute(k));
  }

  /** Sends the pending batch now (the tick, or a caller that needs the state current). */
  flush() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const pending = this.storage.pending();
    let frame: StatefulMessage | null = null;
    if (pending) {
      const view = new RoomView(this.storage, Date.now());
      frame = this.ctx.storage.transactionSync(() => {
        const statePatch = [];
        for (const key of STATE_KEYS) {
          if (!pending.keys.includes(key)) continue;
          const before = this.storage.publishedKey(key) as JsonValue | undefined;
          const after = view.compute(key) as unknown as JsonValue;
          const ops =
            before === undefined
              ? [{ op: "add" as const, path: `/${key}`, value: after }]
              : diff(`/${key}`, before, after);
          statePatch.push(...ops);
          // What clients hold is the patch applied to what they held: stored as such, the
          // full state a joiner gets has the same key order as a patched client's (an object
          // key added by a patch goes last, whatever order the view computed).
          const held =
            before === undefined || !ops.length
              ? after
              : (applyPatch({ [key]: before }, ops) as Record<string, JsonValue>)[key];
          this.storage.setPublished(key, held);
        }
        this.storage.clearPending();
        return statePatch.length
          ? { name: pending.name, statePatch, seq: this.storage.nextSeq() }
          : null;
      });
    }
    const text = frame && JSON.stringify(frame);
    let full: string | null = null;
    for (const c of this.connections()) {
      if (!c.state) continue;
      if (c.state.needsState) {
        full ??= JSON.stringify(this.stateMessage());
        send(c, full);
        c.setState({ ...(c.state as C), needsState: false });
      } else if (text) send(c, text);
    }
  }

  /** The state every client holds at the current seq. */
  publishedState(): RoomState {
    const map = this.storage.published();
    return Object.fromEntries(STATE_KEYS.map((k) => [k, map.get(k)])) as unknown as RoomState;
  }

  stateMessage(): RoomStateMessage {
    return {
      name: "roomState",
      state: this.publishedState(),
      seq: this.storage.seq(),
      serverTime: Date.now(),
    };
  }
}

/** A socket whose send throws is going away; its close event tidies up. */
export function send(c: Connection, text: string) {
  try {
    c.send(text);
  } catch {
    /* closing */
  }
}
