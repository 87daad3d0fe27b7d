/**
 * The room's side of its relays (durable/relay.ts; docs/ARCHITECTURE.md "Stadium rooms"):
 * which relay links are open, the sockets each relay holds, where the gateway should put a
 * new socket, and the one batch per tick each link gets.
 *
 * Invariants:
 * - A socket a relay holds is a `RelaySocket` here: the few parts of a partyserver
 *   Connection the room's modules use (id, state, send, close, readyState), so presence,
 *   moderation, identity, blocks and the dispatcher treat it as any socket, and "this user's
 *   sockets" (`connections(tag)`) finds it whichever object holds it.
 * - A browser socket on a relay is never in the publisher's lists: a frame goes once to each
 *   link (`broadcast`), and its full state comes from the relay's copy (`admit`). A bot's
 *   relay socket is (its dialect is encoded per socket, room/ttfm-dialect.ts), and the relay
 *   only passes its texts on.
 * - The registry is in memory: a room that restarts (eviction, hibernation) closes the links
 *   it finds (`recover`), and each relay links again and re-joins all its sockets from its
 *   own list. A link that closes takes its sockets with it (their users' grace starts).
 * - The link's full state and its registration happen in one synchronous step, so the link
 *   gets exactly the frames after that state's seq.
 */
import type { Connection } from "partyserver";
import { CLOSE_NO_ROOM, type RoomStateMessage } from "../../shared/protocol";
import type { Env } from "../../workers/env";
import { isDevEnvironment } from "../../workers/lib/environments";
import type { Caller } from "./actions";
import { parseCaller, type CallerHeader, type Facts } from "./presence";
import { sendRaw } from "./publisher";
import { Batcher, CLOSE_LINK_RESET, fromRelay, line, type FromRelay } from "./relay-link";

/** Sockets the room serves itself before new ones go to relays (env ROOM_RELAY_THRESHOLD). */
export const DEFAULT_RELAY_THRESHOLD = 1000;
/** Sockets a relay is given before the next relay opens (env ROOM_RELAY_SOCKETS). */
export const DEFAULT_RELAY_SOCKETS = 500;
/** A room's relays at most: 100 x 500 sockets, and a tick's cost stays 100 sends. */
export const MAX_RELAYS = 100;
/** Placements counted as sockets on their way for this long (a burst spreads over relays). */
const PLACEMENT_WINDOW_MS = 10_000;

/** A room's fan-out figures (the bench reads them through a dev route). */
export interface RelayStats {
  config: RelayConfig;
  /** Sockets the room sends to itself, sockets its relays hold, relays linked. */
  held: number;
  relayed: number;
  links: number;
  /** Relays the gateway shards over now (0: none). */
  assigned: number;
  /** Frames published, and the cost of the ticks the publisher probed (ms, wall time). */
  frames: number;
  probedTicks: number;
  probedTickMs: number;
}

export interface RelayConfig {
  threshold: number;
  perRelay: number;
}

/** What the registry needs of the room: its partyserver hooks, for sockets it holds. */
export interface RelayHost {
  /** The tags of a socket with this caller (its user's). */
  tags(caller: CallerHeader | null): string[];
  /** A relay socket arrived: admit it as onConnect admits one (facts: the relay's D1 read). */
  join(c: Connection<Caller>, caller: CallerHeader | null, facts: Facts | null): Promise<void>;
  /** A relay socket's frame (onMessage). */
  message(c: Connection<Caller>, raw: string): Promise<void>;
  /** A relay socket left (onClose). */
  gone(c: Connection<Caller>): void;
  /** Why the room admits nobody (deleted, never set up), or null. */
  refusal(): string | null;
  /** The full state at the current seq. */
  state(): RoomStateMessage;
}

/** One relay's link: its socket at the room, its batch, the sockets it holds. */
class Link {
  readonly sockets = new Map<string, RelaySocket>();
  readonly out: Batcher;
  constructor(
    readonly conn: Connection,
    readonly index: number,
  ) {
    this.out = new Batcher((batch) => sendRaw(conn, batch));
  }
}

/** A socket a relay holds, as the room's modules see a socket (see the invariants). */
export class RelaySocket {
  readyState: number = WebSocket.OPEN;
  state: Caller | null = null;
  constructor(
    readonly id: string,
    readonly link: Link,
    readonly tags: readonly string[],
    /** A bot's socket: the room encodes its texts itself; the relay passes them on. */
    readonly direct: boolean,
  ) {}

  setState(next: Caller | null) {
    this.state = next;
    return next;
  }

  send(text: string) {
    if (this.readyState === WebSocket.OPEN)
      this.link.out.push(line({ t: "d", s: this.id, x: text }));
  }

  /** The relay closes the socket and answers `l` (then the room forgets it, as at a close event). */
  close(code = 1000, reason = "") {
    if (this.readyState !== WebSocket.OPEN) return;
    this.readyState = WebSocket.CLOSING;
    this.link.out.push(line({ t: "c", s: this.id, c: code, r: reason }));
  }

  /** The room's modules take it for a partyserver Connection (the parts above are all they use). */
  get asConnection(): Connection<Caller> {
    return this as unknown as Connection<Caller>;
  }
}

export class Relays {
  #links = new Map<string, Link>();
  /** Links found open when the room started: closed, and whatever they still send is dropped. */
  #dead = new Set<string>();
  #sockets = new Map<string, RelaySocket>();
  #byTag = new Map<string, Set<RelaySocket>>();
  /** Relays the gateway has been told of; it only grows while relays are in use. */
  #assigned = 0;
  #placed = 0;
  #placedAt = 0;
  /** Sockets told "the room" whose connect has not reached it yet (a burst at the threshold). */
  #direct = 0;

  constructor(
    private readonly sql: SqlStorage,
    private readonly env: Env,
    private readonly host: RelayHost,
  ) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS relay_config (id INTEGER PRIMARY KEY CHECK (id = 1), threshold INTEGER NOT NULL, per_relay INTEGER NOT NULL)`,
    );
  }

  /** The room's threshold and relay size: its own (set in development and test), else the environment's. */
  config(): RelayConfig {
    const row = this.sql
      .exec<{ threshold: number; per_relay: number }>(
        `SELECT threshold, per_relay FROM relay_config`,
      )
      .toArray()[0];
    if (row) return { threshold: row.threshold, perRelay: row.per_relay };
    return {
      threshold: positive(this.env.ROOM_RELAY_THRESHOLD, DEFAULT_RELAY_THRESHOLD),
      perRelay: positive(this.env.ROOM_RELAY_SOCKETS, DEFAULT_RELAY_SOCKETS),
    };
  }

  /** Sets this room's threshold and relay size (tests and the bench; refused elsewhere). */
  configure(c: RelayConfig) {
    if (!isDevEnvironment(this.env))
      throw new Error("configureRelays is for development and test only.");
    this.sql.exec(
      `INSERT OR REPLACE INTO relay_config (id, threshold, per_relay) VALUES (1, ?, ?)`,
      c.threshold,
      c.perRelay,
    );
  }

  stats(held: number, ticks: { frames: number; probed: number; ms: number }): RelayStats {
    return {
      config: this.config(),
      held,
      relayed: this.#sockets.size,
      links: this.#links.size,
      assigned: this.#assigned,
      frames: ticks.frames,
      probedTicks: ticks.probed,
      probedTickMs: ticks.ms,
    };
  }

  isLink(id: string): boolean {
    return this.#links.has(id) || this.#dead.has(id);
  }

  /** Sockets relays hold. */
  get count(): number {
    return this.#sockets.size;
  }

  /** How many relays the room has links from. */
  get linked(): number {
    return this.#links.size;
  }

  /**
   * Where the gateway puts a new socket: 0 (the room holds it) below the threshold, else the
   * number of relays to shard over (the gateway picks one by the caller, workers/room-route.ts).
   * A relay is added for every `perRelay` sockets, counting sockets placed but not yet joined.
   */
  placement(held: number, now = Date.now()): number {
    const { threshold, perRelay } = this.config();
    if (now - this.#placedAt > PLACEMENT_WINDOW_MS) this.#placed = this.#direct = 0;
    if (held + this.#direct < threshold && this.#sockets.size === 0 && this.#placed === 0) {
      this.#assigned = 0;
      this.#direct++;
      this.#placedAt = now;
      return 0;
    }
    this.#placed++;
    this.#placedAt = now;
    const want = Math.ceil(Math.max(this.#sockets.size, this.#placed) / perRelay);
    this.#assigned = Math.min(MAX_RELAYS, Math.max(this.#assigned, want, 1));
    return this.#assigned;
  }

  /** A socket the gateway sent to the room itself arrived (it counts as held from now). */
  arrived() {
    if (this.#direct > 0) this.#direct--;
  }

  /** After a restart: links whose sockets the room no longer knows are closed, so their relays link again. */
  recover(links: Iterable<Connection>) {
    for (const c of links) {
      this.#dead.add(c.id);
      try {
        c.close(CLOSE_LINK_RESET, "room restarted");
      } catch {
        /* already closing */
      }
    }
  }

  /** A relay linked: it gets the full state and, from now on, every frame. */
  opened(conn: Connection, index: number) {
    const gone = this.host.refusal();
    if (gone) return conn.close(CLOSE_NO_ROOM, gone);
    const link = new Link(conn, index);
    this.#links.set(conn.id, link);
    link.out.push(line({ t: "s", x: this.host.state() }));
  }

  /** A link closed: its sockets are gone (their users' grace starts). */
  closed(conn: Connection) {
    this.#dead.delete(conn.id);
    const link = this.#links.get(conn.id);
    if (!link) return;
    this.#links.delete(conn.id);
    for (const c of [...link.sockets.values()]) this.#leave(link, c.id);
  }

  /** A batch from a relay, its lines in order. */
  async receive(conn: Connection, raw: string | ArrayBuffer) {
    const link = this.#links.get(conn.id);
    if (!link || typeof raw !== "string") return;
    for (const text of raw.split("\n")) {
      const m = parseLine(text);
      if (!m) {
        console.error(`room: relay ${link.index} sent a line that is not one`, text.slice(0, 200));
        continue;
      }
      if (m.t === "j") await this.#join(link, m);
      else if (m.t === "m") {
        const c = link.sockets.get(m.s);
        if (c) await this.host.message(c.asConnection, m.x);
      } else if (m.t === "l") this.#leave(link, m.s);
    }
  }

  async #join(link: Link, m: Extract<FromRelay, { t: "j" }>) {
    if (this.#sockets.has(m.s)) return; // a join said twice
    const caller = parseCaller(m.c);
    const tags = this.host.tags(caller);
    const c = new RelaySocket(m.s, link, tags, caller?.dialect === "ttfm");
    link.sockets.set(c.id, c);
    this.#sockets.set(c.id, c);
    for (const t of tags) {
      let set = this.#byTag.get(t);
      if (!set) this.#byTag.set(t, (set = new Set()));
      set.add(c);
    }
    if (this.#placed > 0) this.#placed--;
    await this.host.join(c.asConnection, caller, m.f);
  }

  #leave(link: Link, sid: string) {
    const c = link.sockets.get(sid);
    if (!c) return;
    link.sockets.delete(sid);
    this.#sockets.delete(sid);
    for (const t of c.tags) {
      const set = this.#byTag.get(t);
      set?.delete(c);
      if (set && !set.size) this.#byTag.delete(t);
    }
    c.readyState = WebSocket.CLOSED;
    this.host.gone(c.asConnection);
  }

  /** The sockets relays hold (with `tag`: that tag's). */
  *connections<T>(tag?: string): Generator<Connection<T>> {
    const from = tag === undefined ? this.#sockets.values() : (this.#byTag.get(tag) ?? []);
    for (const c of from) yield c as unknown as Connection<T>;
  }

  /** Whether the relay sends this socket the frames (a browser's relay socket). */
  fans(c: Connection): boolean {
    return c instanceof RelaySocket && !c.direct;
  }

  /** A fanned socket's full state: the relay's copy (`own`: this text instead, its user's blocks applied). */
  admit(c: Connection, own: string | null) {
    const s = c as unknown as RelaySocket;
    if (s.readyState !== WebSocket.OPEN) return;
    if (own !== null) s.send(own);
    s.link.out.push(line(own === null ? { t: "a", s: [s.id] } : { t: "a", s: [s.id], own: true }));
  }

  /**
   * A message for every socket: once per link, as the very text (`own`: some sockets get
   * another text, or none; only the entries of that link's sockets travel with it).
   */
  broadcast(text: string, own: ReadonlyMap<string, string | null> | null) {
    for (const link of this.#links.values()) {
      if (own) {
        const mine: Record<string, string | null> = {};
        let any = false;
        for (const [id, t] of own)
          if (link.sockets.has(id)) {
            mine[id] = t;
            any = true;
          }
        if (any) link.out.push(line({ t: "o", own: mine }));
      }
      link.out.push(text);
    }
  }
}

function positive(v: string | undefined, fallback: number): number {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

function parseLine(text: string): FromRelay | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  // The frequent lines (a frame, a leave) are checked by hand; a join by its schema.
  const v = value as { t?: unknown; s?: unknown; x?: unknown };
  if (v?.t === "m" && typeof v.s === "string" && typeof v.x === "string")
    return { t: "m", s: v.s, x: v.x };
  if (v?.t === "l" && typeof v.s === "string") return { t: "l", s: v.s };
  const parsed = fromRelay.safeParse(value);
  return parsed.success ? parsed.data : null;
}
