/**
 * Relay: part of a stadium room's audience (docs/ARCHITECTURE.md "Stadium rooms"). Past its
 * threshold a Room stops taking sockets itself; the gateway (workers/room-route.ts) shards
 * new ones over relays named `<room>#<index>`, by the caller, so a reconnect lands on the
 * same relay. A relay holds its sockets, keeps ONE link to its Room (durable/room/relays.ts
 * is the room's side, room/relay-link.ts the lines on it), and per tick turns the room's one
 * batch into a send to each of its sockets: the Room's cost per tick is O(relays), a
 * relay's O(its sockets).
 *
 * Invariants:
 * - The Room stays the only writer of the state and the seq. The relay keeps a copy of the
 *   published state (the link's full state, then every frame applied in seq order); a
 *   joiner's full state comes from it, so full states never cost the Room.
 * - A socket hears broadcasts only once it had its full state (`live`), so it gets every
 *   frame after that state's seq exactly once, in order.
 * - A socket's frames go to the Room with the caller the gateway verified (never one the
 *   client states); the relay pays each frame from the socket's own bucket first
 *   (room/budget.ts paySocket) and the Room pays the user's and the room's.
 * - A lost link (the Room restarted, was evicted, or a frame's seq skipped) drops the copy:
 *   the relay links again and re-joins every socket, and each gets the Room's current state
 *   from the new copy before any later frame. Frames sockets send meanwhile wait in order.
 * - The sockets' callers are in memory only (too big for an attachment); a relay that
 *   restarted without them closes its sockets with 1012 and their clients come back.
 */
import { DurableObject } from "cloudflare:workers";
import { applyPatch, type JsonPatchOp, type JsonValue } from "../shared/json-patch";
import {
  CLOSE_FLOODING,
  MAX_CLIENT_MESSAGE_BYTES,
  parseClientMessage,
  peekAction,
} from "../shared/protocol";
import type { Env } from "../workers/env";
import { CALLER_HEADER } from "../workers/room-connect";
import { Buckets, paySocket } from "./room/budget";
import { djFacts } from "./room/library";
import { BUDGET_MSG } from "./room/messages";
import {
  Batcher,
  CLOSE_LINK_RESET,
  RELAY_HEADER,
  RELAY_OF_HEADER,
  isEnvelope,
  line,
  type ToRelay,
} from "./room/relay-link";

/** Lines to the Room wait this long to leave together (a vote storm: one message, not 100). */
export const RELAY_BATCH_MS = 5;
/** While it holds sockets a relay says so this often: the Room stays awake (its registry is in memory). */
export const KEEPALIVE_MS = 5_000;
/** A relay refuses sockets past this (the gateway spreads them long before). */
export const MAX_RELAY_SOCKETS = 5_000;
/** Frames sent while the link is down wait for it, up to this many. */
const MAX_WAITING = 10_000;
/** Link retries back off up to this. */
const MAX_RETRY_MS = 10_000;

interface Held {
  sid: string;
  ws: WebSocket;
  caller: { uuid: string; type: string; dialect?: string } & Record<string, unknown>;
  facts: Awaited<ReturnType<typeof djFacts>> | null;
  /** A bot (tt.live dialect): the Room encodes its texts; no broadcast reaches it from here. */
  direct: boolean;
  /** Had its full state: hears every broadcast. */
  live: boolean;
}

interface Copy {
  state: Record<string, JsonValue>;
  seq: number;
  /** The state as JSON, made once per seq for joiners. */
  json: string | null;
}

export class Relay extends DurableObject<Env> {
  #room: string | null = null;
  #index = 0;
  #held = new Map<string, Held>();
  #bySocket = new Map<WebSocket, Held>();
  #copy: Copy | null = null;
  #link: WebSocket | null = null;
  #linking = false;
  #retryMs = 250;
  #out: Batcher | null = null;
  /** Frames sockets sent while the link was down, in order. */
  #waiting: string[] = [];
  /** Other texts for some sockets in place of the next broadcast (their users' blocks). */
  #own: Record<string, string | null> | null = null;
  #budgets = new Buckets();
  #timer: ReturnType<typeof setInterval> | null = null;
  /** The bench's figures: batches from the room, sends to sockets, probed batch costs. */
  #stats = { batches: 0, sends: 0, forwarded: 0, probed: 0, ms: 0 };
  #probing = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Sockets from before a restart: their callers are gone with the memory, so they go too.
    for (const ws of ctx.getWebSockets()) ws.close(1012, "relay restarted");
  }

  async fetch(request: Request): Promise<Response> {
    const refuse = (status: number, message: string) =>
      Response.json({ statusCode: status, message }, { status });
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket")
      return refuse(404, "A relay only takes room sockets.");
    const of = safeJson(request.headers.get(RELAY_OF_HEADER)) as {
      room?: unknown;
      index?: unknown;
    };
    const caller = safeJson(request.headers.get(CALLER_HEADER)) as Held["caller"] | null;
    if (typeof of?.room !== "string" || !Number.isInteger(of.index) || !caller?.uuid)
      return refuse(400, "A relay takes sockets from the gateway only.");
    if (this.#room !== null && (this.#room !== of.room || this.#index !== of.index))
      return refuse(400, "This relay belongs to another room.");
    if (this.#held.size >= MAX_RELAY_SOCKETS) return refuse(503, "This room is full right now.");
    this.#room = of.room;
    this.#index = of.index as number;
    const user = caller.type === "user" || caller.type === "bot";
    // The Room would read these at connect: read here, a relay's share of a join's cost.
    const facts = user ? await djFacts(this.env, caller.uuid).catch(() => null) : null;
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.ctx.acceptWebSocket(server);
    const h: Held = {
      sid: `${this.#index}.${crypto.randomUUID()}`,
      ws: server,
      caller,
      facts,
      direct: caller.dialect === "ttfm",
      live: false,
    };
    this.#held.set(h.sid, h);
    this.#bySocket.set(server, h);
    if (this.#out) this.#out.push(this.#joinLine(h));
    else void this.#connect(); // its join goes with every other one once linked
    this.#keepAlive();
    return new Response(null, { status: 101, webSocket: client });
  }

  webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer) {
    const h = this.#bySocket.get(ws);
    if (!h) return;
    if (typeof raw !== "string" || raw.length > MAX_CLIENT_MESSAGE_BYTES) {
      const parsed = parseClientMessage(raw);
      if (!parsed.ok) this.#error(h, parsed.error);
      return;
    }
    if (!h.direct) {
      const action = peekAction(raw);
      const paid = paySocket(this.#budgets, h.sid, action);
      if (paid === "flooding") return this.#close(h, CLOSE_FLOODING, BUDGET_MSG.flooding);
      if (paid === "over") return this.#error(h, BUDGET_MSG.over, action);
    }
    this.#stats.forwarded++;
    this.#toRoom(line({ t: "m", s: h.sid, x: raw }));
  }

  webSocketClose(ws: WebSocket) {
    const h = this.#bySocket.get(ws);
    if (h) this.#drop(h);
  }

  webSocketError(ws: WebSocket) {
    this.webSocketClose(ws);
  }

  // ---- the link ---------------------------------------------------------------------------

  async #connect() {
    if (this.#link || this.#linking || this.#room === null) return;
    this.#linking = true;
    try {
      const room = this.#room;
      const res = await this.env.Room.getByName(room).fetch(
        `https://room/parties/room/${encodeURIComponent(room)}`,
        {
          headers: {
            Upgrade: "websocket",
            "x-partykit-room": room,
            [RELAY_HEADER]: String(this.#index),
          },
        },
      );
      const ws = res.webSocket;
      if (!ws) throw new Error(`the room answered ${res.status}`);
      ws.accept();
      this.#link = ws;
      this.#copy = null;
      this.#retryMs = 250;
      const out = new Batcher(
        (batch) => {
          try {
            ws.send(batch);
          } catch {
            /* the close event follows */
          }
        },
        (f) => setTimeout(f, RELAY_BATCH_MS),
      );
      this.#out = out;
      ws.addEventListener("message", (e) => this.#fromRoom(e.data));
      ws.addEventListener("close", (e) => this.#lost(ws, e.code, e.reason));
      ws.addEventListener("error", () => this.#lost(ws, 1006, ""));
      // Every socket joins (again): the Room knows a link's sockets only from this link.
      for (const h of this.#held.values()) {
        h.live = false;
        out.push(this.#joinLine(h));
      }
      for (const m of this.#waiting) out.push(m);
      this.#waiting = [];
    } catch (e) {
      console.error(`relay ${this.#room}#${this.#index}: link failed`, e);
      this.#retry();
    } finally {
      this.#linking = false;
    }
  }

  #retry() {
    if (!this.#held.size) return;
    const wait = this.#retryMs;
    this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
    setTimeout(() => void this.#connect(), wait);
  }

  #lost(ws: WebSocket, code: number, reason: string) {
    if (this.#link !== ws) return;
    this.#out?.flush();
    this.#link = null;
    this.#out = null;
    this.#copy = null;
    for (const h of this.#held.values()) h.live = false;
    // A room that is gone ends its sockets the same way; any other loss links again.
    if (code >= 4000 && code !== CLOSE_LINK_RESET) {
      for (const h of [...this.#held.values()]) this.#close(h, code, reason);
      return;
    }
    if (code === CLOSE_LINK_RESET) void this.#connect();
    else this.#retry();
  }

  /** A gap in the link's seq cannot be repaired by waiting: the link starts again. */
  #resync() {
    const ws = this.#link;
    if (!ws) return;
    this.#lost(ws, CLOSE_LINK_RESET, "");
    try {
      ws.close(1000, "resync");
    } catch {
      /* already closed */
    }
  }

  #toRoom(text: string) {
    if (this.#out) return this.#out.push(text);
    if (this.#waiting.length < MAX_WAITING) this.#waiting.push(text);
    void this.#connect();
  }

  #joinLine(h: Held): string {
    return line({ t: "j", s: h.sid, c: h.caller, f: h.facts });
  }

  /** Sockets held and fan-out figures (the bench, through the room-service's dev route). */
  stats(): {
    sockets: number;
    live: number;
    batches: number;
    sends: number;
    /** Client frames passed on to the room (the rest were over their socket's budget). */
    forwarded: number;
    probed: number;
    ms: number;
  } {
    let live = 0;
    for (const h of this.#held.values()) if (h.live) live++;
    return { sockets: this.#held.size, live, ...this.#stats };
  }

  #fromRoom(data: unknown) {
    if (typeof data !== "string") return;
    this.#stats.batches++;
    // The clock stands still while code runs: a zero-delay probe reads what the batch cost.
    if (!this.#probing) {
      this.#probing = true;
      const started = Date.now();
      setTimeout(() => {
        this.#probing = false;
        this.#stats.probed++;
        this.#stats.ms += Date.now() - started;
      }, 0);
    }
    for (const text of data.split("\n")) {
      if (!isEnvelope(text)) {
        this.#broadcast(text);
        continue;
      }
      const m = JSON.parse(text) as ToRelay;
      if (m.t === "s") this.#copy = { state: m.x.state as never, seq: m.x.seq, json: null };
      else if (m.t === "a")
        for (const sid of m.s) {
          const h = this.#held.get(sid);
          if (!h || !this.#copy) continue;
          if (!m.own) this.#sendTo(h, this.#fullState());
          h.live = true;
        }
      else if (m.t === "d") {
        const h = this.#held.get(m.s);
        if (h) this.#sendTo(h, m.x);
      } else if (m.t === "o") this.#own = m.own;
      else if (m.t === "c") {
        const h = this.#held.get(m.s);
        if (h) this.#close(h, m.c, m.r);
      }
    }
  }

  /** A protocol message for every live socket; a frame moves the copy first (in seq order). */
  #broadcast(text: string) {
    const own = this.#own;
    this.#own = null;
    let m: { seq?: unknown; statePatch?: JsonPatchOp[] };
    try {
      m = JSON.parse(text) as typeof m;
    } catch {
      return console.error(`relay: the room sent a line that is not JSON`);
    }
    if (typeof m.seq === "number" && Array.isArray(m.statePatch)) {
      const copy = this.#copy;
      if (!copy || m.seq <= copy.seq) return; // before the copy's state: already in it
      if (m.seq !== copy.seq + 1) return this.#resync();
      try {
        applyByKey(copy.state, m.statePatch);
      } catch (e) {
        console.error("relay: a frame did not apply to the copy", e);
        return this.#resync();
      }
      copy.seq = m.seq;
      copy.json = null;
    }
    for (const h of this.#held.values()) {
      if (!h.live || h.direct) continue;
      if (own && h.sid in own) {
        const t = own[h.sid];
        if (t !== null) this.#sendTo(h, t);
      } else this.#sendTo(h, text);
    }
  }

  #fullState(): string {
    const copy = this.#copy!;
    copy.json ??= JSON.stringify(copy.state);
    return `{"name":"roomState","state":${copy.json},"seq":${copy.seq},"serverTime":${Date.now()}}`;
  }

  // ---- sockets ----------------------------------------------------------------------------

  #sendTo(h: Held, text: string) {
    this.#stats.sends++;
    try {
      h.ws.send(text);
    } catch {
      /* closing: its close event tidies up */
    }
  }

  #error(h: Held, message: string, action?: string | null) {
    this.#sendTo(
      h,
      JSON.stringify({ name: "error", params: { message, ...(action ? { action } : {}) } }),
    );
  }

  #close(h: Held, code: number, reason: string) {
    try {
      h.ws.close(code, reason.slice(0, 120));
    } catch {
      /* already closed */
    }
    this.#drop(h);
  }

  /** A socket is gone: the Room hears it once. */
  #drop(h: Held) {
    if (!this.#held.delete(h.sid)) return;
    this.#bySocket.delete(h.ws);
    this.#budgets.forgetSocket(h.sid);
    if (this.#out) this.#out.push(line({ t: "l", s: h.sid }));
    else this.#waiting = this.#waiting.filter((w) => !w.includes(`"s":"${h.sid}"`));
  }

  /**
   * While sockets are held, a line every KEEPALIVE_MS keeps the Room from hibernating (its
   * registry of relay sockets is in memory); with none left, the link closes.
   */
  #keepAlive() {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#held.size) return this.#out?.push(line({ t: "k" }));
      clearInterval(this.#timer!);
      this.#timer = null;
      const ws = this.#link;
      this.#link = null;
      this.#out = null;
      this.#copy = null;
      try {
        ws?.close(1000, "no sockets");
      } catch {
        /* already closed */
      }
    }, KEEPALIVE_MS);
  }
}

/**
 * Applies a frame to the copy key by key: only the keys it touches are copied (applyPatch
 * never mutates), as the Room's publisher does, so the copy keeps the Room's key order.
 */
function applyByKey(state: Record<string, JsonValue>, patch: readonly JsonPatchOp[]) {
  const byKey = new Map<string, JsonPatchOp[]>();
  for (const op of patch) {
    const key = op.path.split("/")[1] ?? "";
    const list = byKey.get(key);
    if (list) list.push(op);
    else byKey.set(key, [op]);
  }
  const next = new Map<string, JsonValue>();
  // All or nothing, as applyPatch is: nothing is written until every key applied.
  for (const [key, ops] of byKey) {
    const doc = key in state ? { [key]: state[key] } : {};
    next.set(key, (applyPatch(doc, ops) as Record<string, JsonValue>)[key]);
  }
  for (const [key, v] of next)
    if (v === undefined) delete state[key];
    else state[key] = v;
}

function safeJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
