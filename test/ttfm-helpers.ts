import { env, SELF } from "cloudflare:test";
import { expect } from "vitest";
import { applyPatch, type JsonPatchOp } from "../shared/json-patch";
import { signToken } from "../workers/lib/jwt";
import { accountRow, type RoomPerson } from "./room-helpers";

/** What a ttfm-socket client holds (ClientRoomState), loosely typed for assertions. */
export interface BotState {
  allUsers: { uuid: string }[];
  audienceUsers: { uuid: string }[];
  djs: { uuid: string; nextSong: unknown }[];
  visibleDjs: { uuid: string }[];
  floorUsers: { uuid: string }[];
  allUserData: Record<
    string,
    {
      userProfile: { uuid: string; nickname: string };
      songVotes: { like?: boolean; star?: boolean };
    }
  >;
  nowPlaying: { song: { songId: string }; startTime: number; endTime: number } | null;
  voteCounts: { likes: number; dislikes: number; stars: number };
  vibeMeter: number;
  settings: { uuid: string; name: string };
  songsRemainingForDj: number;
}

export interface UserFrame {
  message: { name: string; statePatch?: JsonPatchOp[]; params?: Record<string, unknown> };
  context: "user";
  at: number;
}

/**
 * A bot speaking exactly the frames TTFM-PROTOCOL.md documents, as ttfm-socket 1.0.0 does:
 * JSON text, pongs to pings, requests by an ever-growing messageId, responses settled by it
 * (rejected with the `error` string), and the state kept by applying every statePatch with
 * validation to the join snapshot. Breaches (a patch that fails, a frame the real client
 * would crash on) are collected; tests expect none.
 */
export class TtfmBot {
  messageId = 0;
  roomUuid: string | null = null;
  state: BotState | null = null;
  joinedAt = 0;
  readonly frames: UserFrame[] = [];
  readonly breaches: string[] = [];
  readonly pings: string[] = [];
  /** Control frames and closes, in order (e.g. "primus::server::close", "close 1000"). */
  readonly events: string[] = [];
  readonly closed: Promise<CloseEvent>;
  #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  #waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    ws.addEventListener("message", (e) => this.#receive(e.data as string));
    ws.addEventListener("error", () => {});
    this.closed = new Promise((resolve) =>
      ws.addEventListener("close", (e) => {
        this.events.push(`close ${e.code}`);
        this.#wake();
        resolve(e);
      }),
    );
    ws.accept();
  }

  /** Opens `/primus?token=` as the client does (a `_primuscb` cache-buster included). */
  static async open(token: string): Promise<TtfmBot> {
    const res = await SELF.fetch(`http://x/primus?token=${token}&_primuscb=Oa1b2c3`, {
      headers: { Upgrade: "websocket" },
    });
    expect(res.status).toBe(101);
    return new TtfmBot(res.webSocket!);
  }

  #receive(data: string) {
    const m = JSON.parse(data) as unknown;
    if (m === null) this.breaches.push("a JSON null frame");
    else if (typeof m === "string") {
      if (m.startsWith("primus::ping::")) {
        this.pings.push(m);
        this.ws.send(JSON.stringify(m.replace("ping", "pong")));
      } else this.events.push(m);
    } else {
      const f = m as Record<string, unknown>;
      if (f.context === "response") {
        const p = this.#pending.get(Number(f.messageId));
        this.#pending.delete(Number(f.messageId));
        if (f.error) p?.reject(f.error);
        else {
          if (f.state && f.roomUuid) {
            this.state = f.state as BotState;
            this.roomUuid = f.roomUuid as string;
            this.joinedAt = Date.now();
          }
          p?.resolve(f);
        }
      } else if (f.context === "user") {
        if (!f.message) this.breaches.push("a user frame without message");
        else {
          const frame = { ...(f as unknown as UserFrame), at: Date.now() };
          this.frames.push(frame);
          if ("statePatch" in frame.message && this.state) {
            try {
              this.state = applyPatch(
                this.state as never,
                frame.message.statePatch ?? [],
              ) as unknown as BotState;
            } catch (e) {
              this.breaches.push(`${frame.message.name}: ${String(e)}`);
            }
          }
        }
      }
    }
    this.#wake();
  }

  #wake() {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }

  request(event: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = ++this.messageId;
    const p = new Promise<Record<string, unknown>>((resolve, reject) =>
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject }),
    );
    this.ws.send(JSON.stringify({ event, ...(params ? { params } : {}), messageId: id }));
    return p;
  }

  action(action: string, params: Record<string, unknown> = {}) {
    return this.request("action", { ...params, roomUuid: this.roomUuid, action });
  }

  join(roomUuid: string, extra: Record<string, unknown> = {}) {
    return this.request("action", { roomUuid, ...extra, action: "joinRoom" });
  }

  /** The refusal string of a request that must fail. */
  async refused(p: Promise<unknown>): Promise<string> {
    try {
      await p;
    } catch (e) {
      expect(typeof e).toBe("string");
      return e as string;
    }
    throw new Error("the request succeeded");
  }

  /** Resolves once `pred` holds, checked after every frame; fails after `ms`. */
  async until(pred: () => boolean, what: string, ms = 8000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  has(pred: (s: BotState) => boolean, what: string) {
    return this.until(() => !!this.state && pred(this.state), what);
  }

  named(name: string): UserFrame[] {
    return this.frames.filter((f) => f.message.name === name);
  }
}

/** A bot account (a D1 row with the bot role) and its bot token. */
export async function botPerson(): Promise<RoomPerson> {
  const uuid = crypto.randomUUID();
  await accountRow(uuid, ["bot"]);
  return { uuid, token: await signToken(env, { sub: uuid, type: "bot", roles: ["bot"] }) };
}

/** The song a ttfm-socket bot sends (MinimalCrateSongResDTO). */
export const botSong = (name = "Bot Anthem") => ({
  artistName: "The Bots",
  trackName: name,
  genre: null,
  duration: 180,
  isrc: null,
  musicProviders: { youtube: `yt-${name.replace(/\W/g, "")}` },
  playbackToken: null,
  thumbnails: {},
  songShortId: `short-${name.replace(/\W/g, "")}`.slice(0, 32),
  crateSongUuid: crypto.randomUUID(),
  status: "READY",
  position: 0,
});
