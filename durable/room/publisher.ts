/**
 * Coalescing publisher (DESIGN.md "Fan-out is what a room costs"): every change marks the
 * state keys it touched; one tick later (TICK_MS) the marked keys are recomputed, diffed
 * against what clients were last told, and sent as ONE patch frame with ONE seq to every
 * socket. A vote storm therefore costs a few frames carrying only the counts and the vibe.
 *
 * Invariants:
 * - The published state (what every client holds at seq N) and the pending key set are in
 *   SQLite, the published state per entry (published-storage.ts) and in memory too, so a
 *   tick reads only the keys it recomputes. The tick timer is only in memory: if the object hibernates or is evicted with a
 *   batch pending, the next start arms the timer again (Room constructor) and the batch
 *   goes out then. Nothing is lost, and no socket ever sees a seq twice or a gap.
 * - A frame is built and its seq taken in one transaction with the new published state,
 *   and sent only after (the output gate also holds it until the write is durable).
 * - A socket that has not had the full state yet (`needsState`) gets the full state at the
 *   new seq instead of the frame, so the state it starts from already contains its own
 *   arrival and every later frame applies to it.
 * - At most one frame per tick: a socket gets at most 1000 / TICK_MS frames a second, fewer
 *   when the room is behind (the tick widens, up to 1 s; see #adapt).
 * - Who hears a frame is kept in memory (`#live`: sockets that had their full state;
 *   `#fresh`: admitted sockets waiting for it), so a tick sends to a list, never asking
 *   each socket's attachment who it is (partyserver's iterator deserialises every
 *   socket's attachment on every pass: at 1,000 sockets, most of a frame's cost). A socket
 *   is in neither until the room admitted it (`admit`), so one still being checked at
 *   connect hears nothing. Both are rebuilt from the attachments once when the object
 *   starts (after hibernation or eviction), and a closed socket leaves them at its close
 *   or at the first send that finds it closed.
 * - Every socket gets every frame with the same seq; a socket whose user blocked someone
 *   the chat shows gets its own copy of the frame and of the full state, the chat filtered
 *   (room/blocks.ts), so the common case (nobody blocked anyone) sends one shared text.
 */
import type { Connection } from "partyserver";
import { applyPatch, type JsonValue } from "../../shared/json-patch";
import type {
  ChatMessage,
  RoomState,
  RoomStateMessage,
  StatefulMessage,
  StatefulMessageName,
} from "../../shared/protocol";
import type { Blocks, ChatChange } from "./blocks";
import { diff } from "./diff";
import type { RoomStorage } from "./storage";
import { RoomView, STATE_KEYS, type StateKey } from "./view";

export const TICK_MS = 50;
/** The widest tick (docs/DECISIONS.md "Rooms: live state and playback"): a socket still hears from the room every second. */
export const MAX_TICK_MS = 1000;
/** How the tick moves each frame: wider by this factor when the room is behind, narrower by 1 / it... */
export const TICK_WIDEN = 1.5;
/** ...or by this factor when it kept up. */
export const TICK_NARROW = 0.8;

/** What the publisher needs of a connection's state. */
export interface NeedsState {
  needsState: boolean;
}

/**
 * Sockets another object fans out to (a stadium room's relays, room/relays.ts): the
 * publisher sends each frame once per relay, and a joiner's full state comes from its
 * relay's copy of the published state.
 */
export interface Fanout {
  /** Whether a relay sends this socket the frames (it is then in neither list here). */
  fans(c: Connection): boolean;
  /** Its full state from its relay's copy; `own`: this text instead (its user's blocks). */
  admit(c: Connection, own: string | null): void;
  broadcast(text: string, own: ReadonlyMap<string, string | null> | null): void;
}

/** What the rest of the room needs of the publisher: marking a change. */
export interface Marks {
  mark(keys: readonly StateKey[], name: StatefulMessageName): void;
}

export class Publisher<C extends NeedsState & { uuid: string }> implements Marks {
  #timer: ReturnType<typeof setTimeout> | null = null;
  #tick = TICK_MS;
  #dueAt = 0;
  /** A probe measuring the last frame's cost is under way (see flush). */
  #probing = false;
  /** How late the last tick fired, in ms after it was due (0 for a flush called directly). */
  #lag = 0;
  /** Sockets that had their full state, by connection id: every frame goes to them. */
  #live = new Map<string, Connection<C>>();
  /** Admitted sockets whose full state goes out with the next tick. */
  #fresh = new Map<string, Connection<C>>();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly storage: RoomStorage,
    /** Every socket of the room (read once, when the object starts). */
    private readonly connections: () => Iterable<Connection<C>>,
    /** Called after a socket got its full state (the room sends what belongs right after it). */
    private readonly onFullState: (c: Connection<C>) => void = () => {},
    /** Who blocked whom here (null: nobody's blocks apply, e.g. a bare publisher). */
    private readonly blocks: Blocks | null = null,
    /** Relays (null: the room holds every socket). */
    private readonly fanout: Fanout | null = null,
  ) {}

  /** Frames sent, and the probed ticks' cost (see #measure): the bench's figures. */
  readonly ticks = { frames: 0, probed: 0, ms: 0 };

  /** Sockets the room sends frames to itself (its own, and bots' relay sockets). */
  get held(): number {
    return this.#live.size + this.#fresh.size;
  }

  /** Records that `keys` changed; the frame of this tick is named after its first change. */
  mark(keys: readonly StateKey[], name: StatefulMessageName) {
    // visibleDjs is computed from the seats as djs is: whatever changes one changes both, so
    // they are marked together here, once, rather than at every caller.
    const all =
      keys.includes("djs") && !keys.includes("visibleDjs")
        ? [...keys, "visibleDjs" as const]
        : keys;
    this.storage.frames.mark(all, name, Date.now());
    this.arm();
  }

  /** Starts the tick if it is not running (at the current, possibly widened, width). */
  arm() {
    if (this.#timer) return;
    this.#schedule(this.#tick);
  }

  /**
   * Starts the tick at its narrowest: a newcomer waits for its full state one TICK_MS at
   * most, whatever the tick's width (widening thins frames, it does not hold people back).
   */
  armSoon() {
    if (this.#timer && this.#dueAt <= Date.now() + TICK_MS) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#schedule(TICK_MS);
  }

  #schedule(width: number) {
    this.#dueAt = Date.now() + width;
    this.#timer = setTimeout(() => {
      this.#lag = Math.max(0, Date.now() - this.#dueAt);
      try {
        this.flush();
      } catch (e) {
        console.error("room: flush failed", e);
      }
    }, width);
  }

  /** The current tick width in ms (TICK_MS unless frames have been costing more). */
  get tick(): number {
    return this.#tick;
  }

  /**
   * Sets the next tick's width (TICK_MS..MAX_TICK_MS) from two signs that the room is
   * behind: its tick fired more than half a tick late (that much work was queued ahead of
   * it), or the frame and the work queued behind it took longer than a tick. Behind, the
   * tick widens (at least to that cost), so each socket gets fewer, larger frames instead
   * of the room falling further behind; keeping up, it narrows back, so a room with time to
   * spare spends it on latency (a vote is on every screen within about a tick).
   */
  #adapt(cost: number, lag: number) {
    const behind = lag > this.#tick / 2 || cost > this.#tick;
    const next = behind ? Math.max(this.#tick * TICK_WIDEN, cost) : this.#tick * TICK_NARROW;
    this.#tick = Math.min(MAX_TICK_MS, Math.max(TICK_MS, Math.round(next)));
  }

  /**
   * After a (re)start: who hears frames, from the sockets' attachments (the only full pass);
   * `each` sees every admitted socket on the way (a bot's gets its encoder back).
   */
  recover(each: (c: Connection<C>) => void = () => {}) {
    for (const c of this.connections()) {
      if (!c.state) continue; // never admitted: its close is under way
      each(c);
      (c.state.needsState ? this.#fresh : this.#live).set(c.id, c);
    }
  }

  /** An admitted socket (its state set, `needsState` true): its full state goes out next tick. */
  admit(c: Connection<C>) {
    this.#fresh.set(c.id, c);
    this.armSoon();
  }

  /** A closed socket hears nothing more. */
  forget(id: string) {
    this.#live.delete(id);
    this.#fresh.delete(id);
  }

  /**
   * Sends `text` to every socket that has had its full state (a message outside the patch
   * stream); `own` gives some sockets another text instead, or none (null).
   */
  broadcast(text: string, own: ReadonlyMap<string, string | null> | null = null) {
    for (const [id, c] of this.#live)
      if (c.readyState !== WebSocket.OPEN) this.#live.delete(id);
      else if (!own?.has(id)) send(c, text);
      else if (own.get(id)) send(c, own.get(id)!);
    this.fanout?.broadcast(text, own);
  }

  /** A message a user sends (an animation): every socket but those of users who blocked them. */
  broadcastFrom(sender: string, text: string) {
    const muted = this.blocks?.muting(sender);
    this.broadcast(text, muted ? new Map([...muted].map((id) => [id, null])) : null);
  }

  /** Sends `c` the full state now (a joinRoom): from its relay's copy if a relay fans out to it. */
  sendState(c: Connection<C>) {
    if (!this.fanout?.fans(c)) return send(c, JSON.stringify(this.stateMessageFor(c)));
    const own = c.state && this.blocks?.stateFor(c.state.uuid, this.stateMessage());
    this.fanout.admit(c, own ? JSON.stringify(own) : null);
  }

  /** The full state as this socket's user sees it (their blocks applied). */
  stateMessageFor(c: Connection<C>): RoomStateMessage {
    const shared = this.stateMessage();
    return (c.state && this.blocks?.stateFor(c.state.uuid, shared)) || shared;
  }

  /**
   * `uuid`'s blocks, read from D1 at `at` (the gateway's at connect, or a push after a block):
   * if what their chat shows changes, their live sockets get the full state again.
   */
  setBlocks(uuid: string, list: readonly string[], at: number) {
    const before = this.blocks?.set(uuid, list, at);
    if (!before) return;
    const chat = this.storage.published.get("chat") as ChatMessage[] | undefined;
    if (!chat || !this.blocks!.changesChat(uuid, before, chat)) return;
    let text: string | null = null;
    for (const c of this.blocks!.socketsOf(uuid))
      if (c.readyState !== WebSocket.OPEN) continue;
      else if (this.#live.has(c.id))
        send(c, (text ??= JSON.stringify(this.stateMessageFor(c as Connection<C>))));
      else if (this.fanout?.fans(c) && !(c.state as C | null)?.needsState)
        this.sendState(c as Connection<C>);
  }

  /** The first publication of a room (or of a key added by a later version): no frame, nobody holds it yet. */
  ensurePublished() {
    const missing = STATE_KEYS.filter((k) => !this.storage.published.has(k));
    if (!missing.length) return;
    const view = new RoomView(this.storage, Date.now());
    for (const k of missing) this.storage.published.set(k, view.compute(k));
  }

  /** Sends the pending batch now (the tick, or a caller that needs the state current). */
  flush() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const started = Date.now();
    const pending = this.storage.frames.pending();
    let frame: StatefulMessage | null = null;
    let chat: ChatChange | null = null;
    if (pending) {
      const view = new RoomView(this.storage, Date.now());
      try {
        ({ frame, chat } = this.#publish(view, pending));
      } catch (e) {
        // The transaction rolled back; memory may have taken some keys ahead of SQLite.
        this.storage.published.load();
        throw e;
      }
    }
    if (frame) this.ticks.frames++;
    if (frame)
      this.broadcast(JSON.stringify(frame), (chat && this.blocks?.frames(frame, chat)) ?? null);
    // The newcomers get the state that already includes this frame, then every later one.
    const fresh = [...this.#fresh.values()];
    this.#fresh.clear();
    let shared: RoomStateMessage | null = null;
    let full: string | null = null;
    for (const c of fresh) {
      if (c.readyState !== WebSocket.OPEN || !c.state) continue;
      shared ??= this.stateMessage();
      const own = this.blocks?.stateFor(c.state.uuid, shared);
      if (this.fanout?.fans(c)) this.fanout.admit(c, own ? JSON.stringify(own) : null);
      else {
        send(c, own ? JSON.stringify(own) : (full ??= JSON.stringify(shared)));
        this.#live.set(c.id, c);
      }
      c.setState({ ...(c.state as C), needsState: false });
      this.onFullState(c);
    }
    this.#measure(started);
  }

  /**
   * The frame's cost: the clock of a Worker stands still while code runs, so a zero-delay
   * probe reads it once the flush (and whatever was queued before the probe) is over.
   */
  #measure(started: number) {
    const lag = this.#lag;
    this.#lag = 0;
    if (this.#probing) return;
    this.#probing = true;
    setTimeout(() => {
      this.#probing = false;
      const cost = Date.now() - started;
      this.ticks.probed++;
      this.ticks.ms += cost;
      this.#adapt(cost, lag);
    }, 0);
  }

  /** Builds the frame and takes its seq in one transaction with the new published state. */
  #publish(
    view: RoomView,
    pending: { keys: string[]; name: StatefulMessageName },
  ): { frame: StatefulMessage | null; chat: ChatChange | null } {
    return this.ctx.storage.transactionSync(() => {
      const statePatch = [];
      let chat: ChatChange | null = null;
      for (const key of STATE_KEYS) {
        if (!pending.keys.includes(key)) continue;
        const before = this.storage.published.get(key) as JsonValue | undefined;
        const after = view.compute(key) as unknown as JsonValue;
        const ops =
          before === undefined
            ? [{ op: "add" as const, path: `/${key}`, value: after }]
            : diff(`/${key}`, before, after);
        if (!ops.length) continue; // nothing clients hold changed: nothing to write either
        statePatch.push(...ops);
        // What clients hold is the patch applied to what they held: stored as such, the
        // full state a joiner gets has the same key order as a patched client's (an object
        // key added by a patch goes last, whatever order the view computed).
        const held =
          before === undefined
            ? after
            : (applyPatch({ [key]: before }, ops) as Record<string, JsonValue>)[key];
        this.storage.published.set(key, held);
        // Blockers' copies of the frame diff the chat filtered (room/blocks.ts).
        if (key === "chat")
          chat = {
            before: (before ?? []) as unknown as ChatMessage[],
            after: held as unknown as ChatMessage[],
          };
      }
      this.storage.frames.clear();
      return statePatch.length
        ? { frame: { name: pending.name, statePatch, seq: this.storage.frames.nextSeq() }, chat }
        : { frame: null, chat: null };
    });
  }

  /** The state every client holds at the current seq. */
  publishedState(): RoomState {
    return Object.fromEntries(
      STATE_KEYS.map((k) => [k, this.storage.published.get(k)]),
    ) as unknown as RoomState;
  }

  stateMessage(): RoomStateMessage {
    return {
      name: "roomState",
      state: this.publishedState(),
      seq: this.storage.frames.seq(),
      serverTime: Date.now(),
    };
  }
}

/**
 * Sockets that speak another dialect (a tt.live bot, room/ttfm-dialect.ts): whatever the room
 * sends them goes through their encoder, so every sender in the room stays dialect-blind.
 * Keyed by the socket object, which partyserver wraps in place; rebuilt at boot (recover).
 */
const encoders = new WeakMap<Connection, (text: string) => void>();

export function setEncoder(c: Connection, encode: (text: string) => void) {
  encoders.set(c, encode);
}

/** The one way out of the room: the socket's encoder, or the text as is. */
export function send(c: Connection, text: string) {
  const encode = encoders.get(c);
  if (encode) return encode(text);
  sendRaw(c, text);
}

/** A socket whose send throws is going away; its close event tidies up. */
export function sendRaw(c: Connection, text: string) {
  try {
    c.send(text);
  } catch {
    /* closing */
  }
}
