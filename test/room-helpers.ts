import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { expect, vi } from "vitest";
import { applyPatch } from "../shared/json-patch";
import type {
  ClientMessage,
  RoomState,
  RoomStateMessage,
  ServerMessage,
  StatefulMessage,
} from "../shared/protocol";
import { roomSettingsSchema, type RoomSettings } from "../shared/rooms";
import type { UserRole } from "../shared/roles";
import { db } from "../workers/db/client";
import { rooms, users, type SongRow } from "../workers/db/schema";
import { signToken } from "../workers/lib/jwt";
import { appendSongs, specialCrate } from "../workers/crates/crate-repo";
import { seedSong } from "./crate-helpers";
import { signUp } from "./helpers";
import { setSubscriptionLevel } from "./payment-helpers";

// ---- the live room (websocket protocol) ---------------------------------------------------

/**
 * A room client for tests: it keeps the state the way a browser does (full state, then
 * patches) and checks the protocol on every frame: each stateful frame's seq is exactly the
 * previous + 1 and its patch applies. Tests wait on the state (`until`) or on a message
 * (`waitFor`), never on sleeps.
 */
export class RoomClient {
  /** Every message received, in order. */
  readonly messages: ServerMessage[] = [];
  state: RoomState | null = null;
  seq = 0;
  /** Protocol breaches seen (a seq gap, a patch that fails); tests expect none. */
  readonly breaches: string[] = [];
  readonly closed: Promise<CloseEvent>;
  #waiters: { pred: () => boolean; resolve: () => void }[] = [];

  constructor(readonly ws: WebSocket) {
    ws.addEventListener("message", (e) =>
      this.#receive(JSON.parse(e.data as string) as ServerMessage),
    );
    ws.addEventListener("error", () => {}); // a dropped socket is expected in the eviction tests
    this.closed = new Promise((resolve) => ws.addEventListener("close", resolve));
    ws.accept();
  }

  #receive(m: ServerMessage) {
    this.messages.push(m);
    if (m.name === "roomState") {
      const s = m as RoomStateMessage;
      this.state = s.state;
      this.seq = s.seq;
    } else if ("statePatch" in m && this.state) {
      const f = m as StatefulMessage;
      if (f.seq !== this.seq + 1) this.breaches.push(`seq gap: had ${this.seq}, got ${f.seq}`);
      try {
        this.state = applyPatch(this.state, f.statePatch);
      } catch (e) {
        this.breaches.push(`patch ${f.seq} failed: ${e}`);
      }
      this.seq = f.seq;
    }
    this.#waiters = this.#waiters.filter((w) => (w.pred() ? (w.resolve(), false) : true));
  }

  /** Resolves once `pred` holds (checked now and after every message). */
  async until(pred: (s: RoomState) => boolean, what = "state condition"): Promise<RoomState> {
    const check = () => this.state !== null && pred(this.state);
    if (!check())
      await withTimeout(
        new Promise<void>((resolve) => this.#waiters.push({ pred: check, resolve })),
        what,
      );
    return this.state!;
  }

  /** Resolves with the first message (from index `from`) that matches. */
  async waitFor<M extends ServerMessage>(
    pred: (m: ServerMessage) => m is M,
    from?: number,
  ): Promise<M>;
  async waitFor(pred: (m: ServerMessage) => boolean, from?: number): Promise<ServerMessage>;
  async waitFor(pred: (m: ServerMessage) => boolean, from = 0): Promise<ServerMessage> {
    const find = () => this.messages.slice(from).find(pred);
    if (!find())
      await withTimeout(
        new Promise<void>((resolve) => this.#waiters.push({ pred: () => !!find(), resolve })),
        "message",
      );
    return find()!;
  }

  /** The next error reply after index `from`. */
  async error(from: number): Promise<string> {
    const m = await this.waitFor((x) => x.name === "error", from);
    return (m as { params: { message: string } }).params.message;
  }

  send(data: ClientMessage | string) {
    this.ws.send(typeof data === "string" ? data : JSON.stringify(data));
  }

  /** Sends and answers the error reply the room gives (the test expects one). */
  async refused(data: ClientMessage | string): Promise<string> {
    const from = this.messages.length;
    this.send(data);
    return this.error(from);
  }

  frames(): StatefulMessage[] {
    return this.messages.filter((m): m is StatefulMessage => "statePatch" in m);
  }

  close() {
    this.ws.close(1000, "done");
  }
}

function withTimeout<T>(p: Promise<T>, what: string, ms = 8000): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms),
    ),
  ]);
}

export interface RoomPerson {
  uuid: string;
  token: string;
}

/**
 * A token for a fresh uuid. A user gets the bare D1 account row the gateway checks (with
 * these roles, since roles come from D1, and the made-up name a room gives); a guest none.
 */
export async function person(
  type: "user" | "guest" = "user",
  roles: UserRole[] = type === "guest" ? [] : ["user"],
): Promise<RoomPerson> {
  const uuid = crypto.randomUUID();
  if (type !== "guest") await accountRow(uuid, roles);
  return { uuid, token: await signToken(env, { sub: uuid, type, roles }) };
}

/** The least D1 account the room gateway admits a user token for (nickname as a room makes one up). */
export async function accountRow(uuid: string, roles: UserRole[] = ["user"]) {
  await db(env)
    .insert(users)
    .values({ uuid, nickname: `User ${uuid.slice(0, 4).toUpperCase()}`, roles })
    .onConflictDoNothing()
    .run();
}

/**
 * Makes `room` a room the gateway admits sockets to, as creating it through the
 * room-service does: a D1 row (if none), and the default settings in the object unless it
 * already holds some (a test's applySettings stays).
 */
export async function ensureRoom(room: string) {
  // Room names are fresh per test, so one made ready stays ready for the test's later sockets.
  if (ready.has(room)) return;
  await db(env)
    .insert(rooms)
    .values({ uuid: room, slug: `t-${room}`, name: room, ownerUuid: crypto.randomUUID() })
    .onConflictDoNothing()
    .run();
  const set = await runInDurableObject(
    stub(room),
    (_o, state) =>
      state.storage.sql.exec(`SELECT 1 FROM room_settings WHERE id = 1`).toArray().length,
  );
  if (!set) await applySettings(room);
  ready.add(room);
}
const ready = new Set<string>();

/** A signed-up account, with its e-mail verified or a running subscription if asked. */
export async function account(
  over: { emailVerified?: boolean; subscriptionLevel?: string } = {},
): Promise<RoomPerson> {
  const a = await signUp();
  await db(env)
    .update(users)
    .set({ emailVerified: over.emailVerified ?? false })
    .where(eq(users.uuid, a.uuid));
  if (over.subscriptionLevel) await setSubscriptionLevel(a.uuid, over.subscriptionLevel);
  return { uuid: a.uuid, token: a.token };
}

/** Puts `count` new songs (each `seconds` long unless `over` says) in the user's queue crate; answers them in order. */
export async function seedQueue(
  uuid: string,
  count: number,
  over: Partial<SongRow> = {},
): Promise<SongRow[]> {
  const list: SongRow[] = [];
  for (let i = 0; i < count; i++) list.push(await seedSong({ duration: 200, ...over }));
  const queue = await specialCrate(env, uuid, "queue");
  await appendSongs(
    env,
    queue.id,
    list.map((s) => ({ crateSongUuid: crypto.randomUUID(), songId: s.id })),
  );
  return list;
}

/** Opens a socket through the real gateway (with a join ticket, if given) and waits for the full state. */
export async function connect(room: string, who: RoomPerson, ticket?: string): Promise<RoomClient> {
  await ensureRoom(room);
  const q = new URLSearchParams({ token: who.token, ...(ticket ? { ticket } : {}) });
  const res = await SELF.fetch(`http://x/parties/room/${room}?${q}`, {
    headers: { Upgrade: "websocket" },
  });
  expect(res.status).toBe(101);
  const client = new RoomClient(res.webSocket!);
  await client.waitFor((m) => m.name === "roomState");
  return client;
}

/**
 * A socket that reaches the object with the caller header the gateway would set, for a
 * user the gateway would now refuse (no D1 account): what the object sees when its own D1
 * read of the caller fails, e.g. no profile to chat with.
 */
export async function connectPastGateway(room: string, uuid: string): Promise<RoomClient> {
  await ensureRoom(room);
  const res = await stub(room).fetch(`http://x/parties/room/${room}`, {
    headers: {
      Upgrade: "websocket",
      "x-partykit-room": room,
      "x-hangout-caller": JSON.stringify({ uuid, type: "user", roles: ["user"] }),
    },
  });
  expect(res.status).toBe(101);
  const client = new RoomClient(res.webSocket!);
  await client.waitFor((m) => m.name === "roomState");
  return client;
}

/**
 * A DJ on stage with a song playing, auto-skip off (so the test's votes cannot skip it
 * away): the DJ and their socket.
 */
export async function djPlaying(room: string, songs = 2) {
  await applySettings(room, { autoSkipRatio: 0 });
  const dj = await person();
  await seedQueue(dj.uuid, songs);
  const d = await connect(room, dj);
  await takeSeat(d, dj.uuid);
  await d.until((s) => s.nowPlaying !== null, "a song playing");
  return { dj, d };
}

export const stub = (room: string) => env.Room.getByName(room);

/** Pushes settings as the room-service would: defaults plus `over`. */
export async function applySettings(
  room: string,
  over: Partial<RoomSettings> = {},
): Promise<RoomSettings> {
  const settings = roomSettingsSchema.parse({ uuid: room, slug: room, name: room, ...over });
  await stub(room).applySettings(settings);
  return settings;
}

export const uuids = (list: { uuid: string }[]) => list.map((u) => u.uuid);
export const newRoom = () => crypto.randomUUID();

/** Takes a seat and waits until the client sees itself on the stage. */
export async function takeSeat(c: RoomClient, uuid: string) {
  c.send({ action: "addDj" });
  await c.until((s) => s.djs.some((d) => d.uuid === uuid), `${uuid} on stage`);
}

/** Applying every frame a client got reproduces the room's state (its own tracking did that). */
export async function expectInSync(room: string, c: RoomClient) {
  const state = await stub(room).getState();
  await c.until(
    (s) => JSON.stringify(s) === JSON.stringify(state),
    "client state equal to getState()",
  );
  expect(c.state).toEqual(state);
  expect(c.breaches).toEqual([]);
}

/**
 * Runs the room's alarm once it is set: the earliest schedule entry runs (a grace end, a
 * song end). Waits for the room to have set one (a close is handled asynchronously). The
 * object runs only entries that are due, so the earliest entries are made due first.
 */
export async function runAlarm(room: string) {
  await vi.waitFor(
    async () => {
      await runInDurableObject(stub(room), (_o, state) => {
        state.storage.sql.exec(
          `UPDATE room_schedule SET due = ? WHERE due = (SELECT MIN(due) FROM room_schedule)`,
          Date.now(),
        );
      });
      expect(await runDurableObjectAlarm(stub(room))).toBe(true);
    },
    { timeout: 5000, interval: 20 },
  );
}
export const endGrace = runAlarm;

/** Opens a socket through the gateway without waiting for anything (a refused join). */
export async function open(room: string, who: RoomPerson): Promise<RoomClient> {
  await ensureRoom(room);
  const res = await SELF.fetch(`http://x/parties/room/${room}?token=${who.token}`, {
    headers: { Upgrade: "websocket" },
  });
  expect(res.status).toBe(101);
  return new RoomClient(res.webSocket!);
}

/** A signed-up account that can chat (it has a D1 profile), as a RoomPerson. */
export const chatter = () => account();
