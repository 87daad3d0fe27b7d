/**
 * `GET /primus?token=<JWT>`: where tt.live bots (`ttfm-socket` 1.0.0) connect, unchanged
 * (issue 17, /work/shared/TTFM-PROTOCOL.md). The client names its room only in its first
 * request (`joinRoom`), after the socket is open, so this Worker holds the bot's socket and
 * bridges it to the Room object's own socket once it knows which room:
 *
 *   bot ──/primus──> PrimusBridge (here: the Primus transport) ──/parties/room/<uuid>──> Room
 *
 * Here: the heartbeat (`"primus::ping::<ms>"` every 25 s; a socket that did not answer the
 * last one is dropped), `detailsView`, the join (the REST join checks the token, the room,
 * its password and the caller's bans and issues the ticket; the gateway's
 * authorizeRoomConnection admits the socket as for a browser, marked "ttfm"), and
 * `"primus::server::close"` before every close the server means. In the Room
 * (durable/room/ttfm-dialect.ts): every action and every frame, in the bot's dialect.
 *
 * Invariants:
 * - A bad token still gets its upgrade: the join is refused with the reason as a string,
 *   then `primus::server::close` (a 401 at the upgrade leaves the client hanging).
 * - Every request forwarded or refused here gets one answer with its messageId; a join the
 *   room closes before answering is answered here with the close's reason.
 * - Bounded: one join at a time, at most 30 a minute per token (RULES.botJoinPerToken), at
 *   most MAX_BUFFERED frames held while it runs, frames over MAX_CLIENT_MESSAGE_BYTES
 *   dropped unread.
 */
import { MAX_CLIENT_MESSAGE_BYTES } from "../shared/protocol";
import {
  parseTtfmRequest,
  PRIMUS_PONG,
  PRIMUS_SERVER_CLOSE,
  primusPing,
  SERVER_MEANT_CLOSES,
  ttfmResponse,
  ttfmUserFrame,
  type TtfmRequest,
} from "../shared/protocol-ttfm";
import { api } from "./api";
import type { Env } from "./env";
import { ApiError } from "./lib/errors";
import { takeAttempt } from "./lib/rate-limit";
import { routeRoomSocket } from "./room-route";

/** Primus's server heartbeat; the client gives up after 45 s without one. */
export const PING_MS = 25_000;
/** Frames a bot may send while its join is under way; more are refused. */
export const MAX_BUFFERED = 32;
const MAX_TOKEN = 4096;

export const PRIMUS_MSG = {
  joinFirst: "Join a room first: send joinRoom.",
  joinBusy: "A join is already under way on this socket.",
  roomUuid: "roomUuid is required.",
  busy: "Too many requests before the join finished.",
  refused: "The room did not let this socket in.",
  upgrade: "Expected a websocket upgrade.",
  tooManyJoins: "Too many joins with this token.",
} as const;

/** The upgrade: always accepted, whatever the token (see the invariants). */
export function primus(request: Request, env: Env, ctx: ExecutionContext): Response {
  if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket")
    return Response.json(
      { statusCode: 426, message: PRIMUS_MSG.upgrade, error: "Upgrade Required" },
      { status: 426 },
    );
  const url = new URL(request.url);
  const token = (url.searchParams.get("token") ?? "").slice(0, MAX_TOKEN);
  const { 0: client, 1: server } = new WebSocketPair();
  server.accept();
  new PrimusBridge(server, token, url.origin, env, ctx).start();
  return new Response(null, { status: 101, webSocket: client });
}

const messageOf = async (res: Response): Promise<string> => {
  const body = (await res.json().catch(() => null)) as { message?: string | string[] } | null;
  const m = body?.message;
  return Array.isArray(m) ? m.join("; ") : m || PRIMUS_MSG.refused;
};

/** One bot's socket and, once it joined, its socket to the room. */
export class PrimusBridge {
  #upstream: WebSocket | null = null;
  #room: string | null = null;
  #joining = false;
  /** The join request the room has not answered yet. */
  #pendingJoin: TtfmRequest["messageId"] | null = null;
  #buffer: string[] = [];
  #awaitingPong = false;
  #timer: ReturnType<typeof setInterval> | null = null;
  #closed = false;
  #actions = 0;
  readonly #id = crypto.randomUUID();
  readonly #connectedAt = Date.now();

  constructor(
    private readonly bot: WebSocket,
    private readonly token: string,
    private readonly origin: string,
    private readonly env: Env,
    private readonly ctx: ExecutionContext,
    private readonly pingMs = PING_MS,
  ) {}

  start() {
    this.bot.addEventListener("message", (e) => {
      if (typeof e.data === "string") void this.#fromBot(e.data);
    });
    this.bot.addEventListener("close", () => this.#end(null));
    this.bot.addEventListener("error", () => this.#end(null));
    this.#timer = setInterval(() => this.#heartbeat(), this.pingMs);
  }

  /** A silent socket (no pong to the last ping) is dropped without server::close: it may retry. */
  #heartbeat() {
    if (this.#awaitingPong) return this.#end(1001);
    this.#awaitingPong = true;
    this.#send(primusPing(Date.now()));
  }

  async #fromBot(raw: string) {
    if (PRIMUS_PONG.test(raw)) {
      this.#awaitingPong = false;
      return;
    }
    if (raw.length > MAX_CLIENT_MESSAGE_BYTES) return;
    const req = parseTtfmRequest(raw);
    if (req?.event === "detailsView") return this.#details(req);
    if (req?.event === "action" && req.params?.action === "joinRoom") return this.#join(req, raw);
    if (req) this.#actions++;
    if (this.#joining) {
      if (this.#buffer.length < MAX_BUFFERED) this.#buffer.push(raw);
      else if (req) this.#send(ttfmResponse(req.messageId, PRIMUS_MSG.busy));
      return;
    }
    if (this.#upstream) return this.#toRoom(raw);
    if (req) this.#send(ttfmResponse(req.messageId, PRIMUS_MSG.joinFirst));
  }

  /** Actionhero's connection details, as the client's private detailsView reads them. */
  #details(req: TtfmRequest) {
    this.#send(
      JSON.stringify({
        status: "OK",
        data: {
          id: this.#id,
          fingerprint: this.#id,
          remoteIP: "",
          remotePort: 0,
          params: {},
          connectedAt: this.#connectedAt,
          rooms: this.#room ? [this.#room] : [],
          totalActions: this.#actions,
          pendingActions: this.#pendingJoin === null ? 0 : 1,
        },
        context: "response",
        messageId: req.messageId,
      }),
    );
  }

  async #join(req: TtfmRequest, raw: string) {
    if (this.#joining) return this.#send(ttfmResponse(req.messageId, PRIMUS_MSG.joinBusy));
    const id = req.params?.roomUuid;
    if (typeof id !== "string" || !id || id.length > 64)
      return this.#send(ttfmResponse(req.messageId, PRIMUS_MSG.roomUuid));
    this.#joining = true;
    this.#actions++;
    try {
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(this.token));
      const key = [...new Uint8Array(digest).slice(0, 12)]
        .map((b) => b.toString(16).padStart(2, "0"))
        .join("");
      await takeAttempt(
        this.env,
        [{ rule: "botJoinPerToken", key }],
        (wait) => `${PRIMUS_MSG.tooManyJoins} Try again in ${wait}.`,
      );
      // A new join leaves the room this socket was in (the client opens a new socket to
      // rejoin; a raw client may reuse this one).
      this.#leaveRoom();
      const str = (v: unknown) => (typeof v === "string" ? v.slice(0, 256) : undefined);
      const joined = await api.fetch(
        new Request(`${this.origin}/api/room-service/rooms/${encodeURIComponent(id)}/join`, {
          method: "POST",
          headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json" },
          body: JSON.stringify({
            password: str(req.params?.password),
            guestPassword: str(req.params?.guestPassword),
          }),
        }),
        this.env,
        this.ctx,
      );
      if (!joined.ok) return this.#refuse(req, await messageOf(joined), joined.status === 401);
      const { roomUuid, ticket } = (await joined.json()) as { roomUuid: string; ticket: string };
      const q = new URLSearchParams({ token: this.token, ticket });
      // The gateway's own route: the Room, or one of its relays past its threshold.
      const res = await routeRoomSocket(
        new Request(`${this.origin}/parties/room/${encodeURIComponent(roomUuid)}?${q}`, {
          headers: { Upgrade: "websocket" },
        }),
        this.env,
        "ttfm",
      );
      if (!res?.webSocket)
        return this.#refuse(
          req,
          res ? await messageOf(res) : PRIMUS_MSG.refused,
          res?.status === 401,
        );
      if (this.#closed) return res.webSocket.close(1000, "bot gone");
      this.#connect(res.webSocket, roomUuid);
      this.#pendingJoin = req.messageId;
      this.#toRoom(raw);
    } catch (e) {
      if (e instanceof ApiError) this.#send(ttfmResponse(req.messageId, e.message));
      else {
        console.error("primus: join failed", e);
        this.#send(ttfmResponse(req.messageId, PRIMUS_MSG.refused));
      }
    } finally {
      this.#joining = false;
    }
    const held = this.#buffer;
    this.#buffer = [];
    for (const f of held) void this.#fromBot(f);
  }

  #refuse(req: TtfmRequest, message: string, end: boolean) {
    this.#send(ttfmResponse(req.messageId, message));
    if (end) this.#serverClose();
  }

  #connect(ws: WebSocket, room: string) {
    ws.accept();
    this.#upstream = ws;
    this.#room = room;
    ws.addEventListener("message", (e) => {
      if (typeof e.data !== "string") return;
      if (this.#pendingJoin !== null && e.data.includes('"context":"response"')) {
        const m = JSON.parse(e.data) as { messageId?: unknown };
        if (m.messageId === this.#pendingJoin) this.#pendingJoin = null;
      }
      this.#send(e.data);
    });
    ws.addEventListener("close", (e) => this.#roomClosed(ws, e.code, e.reason));
    ws.addEventListener("error", () => this.#roomClosed(ws, 1006, ""));
  }

  /**
   * The room closed the bot's socket. Meant (kick, ban, reset, flood, a session ended):
   * `primus::server::close`, so the client does not retry. Not meant (the object restarted):
   * `roomReset` first, the client's documented signal to join again.
   */
  #roomClosed(ws: WebSocket, code: number, reason: string) {
    if (ws !== this.#upstream) return; // a room this socket already left
    this.#upstream = null;
    if (this.#pendingJoin !== null) {
      this.#send(ttfmResponse(this.#pendingJoin, reason || PRIMUS_MSG.refused));
      this.#pendingJoin = null;
    }
    if (!SERVER_MEANT_CLOSES.has(code) && this.#room)
      this.#send(ttfmUserFrame(this.#room, { name: "roomReset", params: {} }));
    this.#serverClose();
  }

  #toRoom(raw: string) {
    try {
      this.#upstream?.send(raw);
    } catch {
      /* its close event follows */
    }
  }

  #leaveRoom() {
    const up = this.#upstream;
    this.#upstream = null;
    this.#room = null;
    try {
      up?.close(1000, "left");
    } catch {
      /* already closed */
    }
  }

  #serverClose() {
    this.#send(PRIMUS_SERVER_CLOSE);
    this.#end(1000);
  }

  #send(text: string) {
    if (this.#closed) return;
    try {
      this.bot.send(text);
    } catch {
      /* closing */
    }
  }

  /** Closes both sockets (code null: the bot closed first). */
  #end(code: number | null) {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#leaveRoom();
    if (code !== null)
      try {
        this.bot.close(code, "bye");
      } catch {
        /* already closed */
      }
  }
}
