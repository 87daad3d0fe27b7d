import { abortAllDurableObjects, env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { applyPatch } from "../shared/json-patch";
import type {
  RoomState,
  RoomStateMessage,
  ServerMessage,
  StatefulMessage,
  StatelessMessage,
} from "../shared/protocol";
import { signToken } from "../workers/lib/jwt";
import { accountRow, endGrace, ensureRoom } from "./room-helpers";

/** A test-side websocket: messages queue up and are taken in order with `next()`, never with sleeps. */
class TestSocket {
  #queue: ServerMessage[] = [];
  #waiting: ((m: ServerMessage) => void)[] = [];
  readonly closed: Promise<CloseEvent>;

  constructor(readonly ws: WebSocket) {
    ws.addEventListener("message", (e) => {
      const m = JSON.parse(e.data as string) as ServerMessage;
      const waiter = this.#waiting.shift();
      if (waiter) waiter(m);
      else this.#queue.push(m);
    });
    ws.addEventListener("error", () => {}); // a dropped socket is expected in the eviction test
    this.closed = new Promise((resolve) => ws.addEventListener("close", resolve));
    ws.accept();
  }

  next(): Promise<ServerMessage> {
    const m = this.#queue.shift();
    return m ? Promise.resolve(m) : new Promise((resolve) => this.#waiting.push(resolve));
  }

  async nextState(): Promise<RoomStateMessage> {
    const m = await this.next();
    expect(m.name).toBe("roomState");
    return m as RoomStateMessage;
  }

  async nextPatch(name: StatefulMessage["name"]): Promise<StatefulMessage> {
    const m = await this.next();
    expect(m.name).toBe(name);
    return m as StatefulMessage;
  }

  async nextStateless<N extends StatelessMessage["name"]>(
    name: N,
  ): Promise<Extract<StatelessMessage, { name: N }>> {
    const m = await this.next();
    expect(m.name).toBe(name);
    return m as Extract<StatelessMessage, { name: N }>;
  }

  send(data: unknown) {
    this.ws.send(typeof data === "string" ? data : JSON.stringify(data));
  }

  close() {
    this.ws.close(1000, "done");
  }
}

const token = (sub: string, type: "user" | "guest" = "user") =>
  signToken(env, { sub, type, roles: type === "guest" ? [] : ["user"] });

async function join(room: string, sub: string, type: "user" | "guest" = "user") {
  // The gateway admits only a room that exists and a user token whose account does.
  await ensureRoom(room);
  if (type === "user") await accountRow(sub);
  const res = await SELF.fetch(`http://x/parties/room/${room}?token=${await token(sub, type)}`, {
    headers: { Upgrade: "websocket" },
  });
  expect(res.status).toBe(101);
  const socket = new TestSocket(res.webSocket!);
  const joined = await socket.nextState();
  // The full state is followed by the joiner's own vote, and a guest's by their free plays.
  await socket.nextStateless("yourVote");
  if (type === "guest") await socket.nextStateless("freePlays");
  return { socket, joined };
}

const uuids = (users: { uuid: string }[]) => users.map((u) => u.uuid);

describe("Room: connecting", () => {
  it("refuses a websocket without a valid token with a JSON 401", async () => {
    const room = crypto.randomUUID();
    for (const query of ["", "?token=not.a.jwt"]) {
      const res = await SELF.fetch(`http://x/parties/room/${room}${query}`, {
        headers: { Upgrade: "websocket" },
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ statusCode: 401, error: "Unauthorized" });
    }
  });

  it("closes with 4001 a connection that reaches the object without the gateway's caller header", async () => {
    const room = crypto.randomUUID();
    const res = await env.Room.getByName(room).fetch(`http://x/parties/room/${room}`, {
      headers: { Upgrade: "websocket" },
    });
    expect(res.status).toBe(101);
    const socket = new TestSocket(res.webSocket!);
    const closed = await socket.closed;
    expect(closed.code).toBe(4001);
  });

  it("sends the joiner the full state, its seq and the server time", async () => {
    const room = crypto.randomUUID();
    const alice = crypto.randomUUID();
    const before = Date.now();
    const { socket, joined } = await join(room, alice);
    expect(joined.seq).toBeGreaterThan(0);
    expect(joined.serverTime).toBeGreaterThanOrEqual(before - 1000);
    const { settings, ...rest } = joined.state;
    expect(rest).toEqual({
      allUsers: [{ uuid: alice, tokenRole: "user", highestRole: null, canDj: true }],
      audienceUsers: [{ uuid: alice, tokenRole: "user", highestRole: null, canDj: true }],
      djs: [],
      visibleDjs: [],
      floorUsers: [{ uuid: alice, tokenRole: "user", highestRole: null, canDj: true }],
      // The bare D1 account (test setup) holds the made-up name and the default colour; the
      // spot on the floor is the uuid's.
      allUserData: {
        [alice]: {
          userProfile: {
            uuid: alice,
            nickname: `User ${alice.slice(0, 4).toUpperCase()}`,
            avatarId: "default",
            color: "562DF9",
            badges: [],
          },
          position: { x: expect.any(Number), y: expect.any(Number) },
        },
      },
      userCount: 1,
      audienceCount: 1,
      nowPlaying: null,
      voteCounts: { likes: 0, dislikes: 0, stars: 0 },
      vibeMeter: 0,
      chat: [],
      waitlist: [],
    } satisfies Omit<RoomState, "settings">);
    // The default settings the test setup pushed, with the object's name as slug.
    expect(settings).toMatchObject({
      slug: room,
      uuid: room,
      numberOfDjs: 5,
      djType: "EVERYONE",
      roomRoles: [],
    });
    socket.close();
  });
});

describe("Room: presence patches", () => {
  it("tells the others of a join and a leave with the next seqs; the patches rebuild the joiner's state", async () => {
    const room = crypto.randomUUID();
    const a = await join(room, crypto.randomUUID());
    const bob = crypto.randomUUID();
    const b = await join(room, bob);

    const joined = await a.socket.nextPatch("userJoined");
    expect(joined.seq).toBe(a.joined.seq + 1);
    expect(b.joined.seq).toBe(joined.seq);
    const afterJoin = applyPatch(a.joined.state, joined.statePatch);
    expect(afterJoin).toEqual(b.joined.state);
    expect(uuids(afterJoin.allUsers)).toContain(bob);

    b.socket.close();
    await endGrace(room); // userLeft only after the 30 s grace
    const left = await a.socket.nextPatch("userLeft");
    expect(left.seq).toBe(joined.seq + 1);
    expect(applyPatch(afterJoin, left.statePatch)).toEqual(a.joined.state);
    a.socket.close();
  });

  it("counts a user with two tabs once: one userJoined, and userLeft only when the last tab closes", async () => {
    const room = crypto.randomUUID();
    const a = await join(room, crypto.randomUUID());
    const bob = crypto.randomUUID();
    const tab1 = await join(room, bob);
    const joined = await a.socket.nextPatch("userJoined");
    const tab2 = await join(room, bob);
    expect(tab2.joined.seq).toBe(joined.seq); // the second tab changed nothing
    expect(uuids(tab2.joined.state.allUsers).filter((u) => u === bob)).toHaveLength(1);

    tab1.socket.close();
    tab2.socket.close();
    await endGrace(room);
    // The next thing the first user hears is the single userLeft, with the very next seq:
    // nothing was broadcast for the second tab's arrival or the first tab's departure.
    const left = await a.socket.nextPatch("userLeft");
    expect(left.seq).toBe(joined.seq + 1);
    expect(
      uuids(applyPatch(applyPatch(a.joined.state, joined.statePatch), left.statePatch).allUsers),
    ).not.toContain(bob);
    a.socket.close();
  });

  it("lists a guest in the audience but not in allUsers", async () => {
    const room = crypto.randomUUID();
    const a = await join(room, crypto.randomUUID());
    const guest = crypto.randomUUID();
    const g = await join(room, guest, "guest");
    expect(uuids(g.joined.state.allUsers)).not.toContain(guest);
    expect(g.joined.state.audienceUsers).toContainEqual({
      uuid: guest,
      tokenRole: "guest",
      highestRole: null,
      canDj: false,
    });

    const joined = await a.socket.nextPatch("userJoined");
    // A guest changes the audience (and the floor and allUserData, which list guests too, and
    // the audience's count), never allUsers nor the user count.
    expect(
      joined.statePatch.every((op) =>
        /^\/(audienceUsers\/|floorUsers\/|allUserData\/|audienceCount$)/.test(op.path),
      ),
    ).toBe(true);
    expect(g.joined.state).toMatchObject({ userCount: 1, audienceCount: 2 });
    expect(applyPatch(a.joined.state, joined.statePatch)).toEqual(g.joined.state);
    g.socket.close();
    a.socket.close();
  });
});

describe("Room: client messages", () => {
  it("answers a ping with a pong carrying the client's time and the server's", async () => {
    const { socket } = await join(crypto.randomUUID(), crypto.randomUUID());
    socket.send({ action: "ping", clientTime: 12345 });
    const pong = await socket.nextStateless("pong");
    expect(pong.params.clientTime).toBe(12345);
    expect(typeof pong.params.serverTime).toBe("number");
    socket.close();
  });

  it("answers joinRoom with the full state again, at the current seq", async () => {
    const { socket, joined } = await join(crypto.randomUUID(), crypto.randomUUID());
    socket.send({ action: "joinRoom" });
    const again = await socket.nextState();
    expect(again.seq).toBe(joined.seq);
    expect(again.state).toEqual(joined.state);
    socket.close();
  });

  it("answers anything that does not parse with an error to that socket alone and changes nothing", async () => {
    const room = crypto.randomUUID();
    const a = await join(room, crypto.randomUUID());
    const b = await join(room, crypto.randomUUID());
    const joined = await a.socket.nextPatch("userJoined");

    const bad = [
      "not json",
      JSON.stringify({ action: "nope" }),
      JSON.stringify({ action: "ping" }),
      JSON.stringify({ action: "ping", clientTime: "soon" }),
      "x".repeat(20_000),
    ];
    for (const frame of bad) {
      b.socket.send(frame);
      const error = await b.socket.nextStateless("error");
      expect(error.params.message).toEqual(expect.any(String));
    }
    b.socket.ws.send(new Uint8Array([1, 2, 3]));
    expect((await b.socket.nextStateless("error")).params.message).toMatch(/JSON text/);

    // A third user's arrival is the next thing the first user hears, with the very next seq.
    const c = await join(room, crypto.randomUUID());
    const next = await a.socket.nextPatch("userJoined");
    expect(next.seq).toBe(joined.seq + 1);
    expect(c.joined.seq).toBe(next.seq);
    for (const s of [a, b, c]) s.socket.close();
  });
});

describe("Room: eviction", () => {
  it("keeps seq in SQLite: after the object is reset it never goes backwards; dropped sockets leave the lists after the grace", async () => {
    const room = crypto.randomUUID();
    const alice = crypto.randomUUID();
    const a = await join(room, alice);
    await abortAllDurableObjects();
    await a.socket.closed; // the reset dropped the socket without the object hearing a close

    const bob = crypto.randomUUID();
    const b = await join(room, bob);
    expect(b.joined.seq).toBeGreaterThan(a.joined.seq);
    // Alice's socket vanished without a close: she is in her 30 s grace, still listed.
    expect(uuids(b.joined.state.allUsers)).toEqual([alice, bob]);
    await endGrace(room);
    const left = await b.socket.nextPatch("userLeft");
    expect(uuids(applyPatch(b.joined.state, left.statePatch).allUsers)).toEqual([bob]);
    b.socket.close();
  });
});
