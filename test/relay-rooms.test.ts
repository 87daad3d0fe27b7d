import { SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { CLOSE_FLOODING, CLOSE_KICKED } from "../shared/protocol";
import {
  connect,
  djPlaying,
  newRoom,
  person,
  RoomClient,
  seedQueue,
  stub,
  takeSeat,
} from "./room-helpers";
import {
  expectSameEverywhere,
  relayCounts,
  relayRoom,
  relaySockets,
  relayStub,
} from "./relay-helpers";

vi.setConfig({ testTimeout: 60_000 });

/** Stadium rooms (issue 19): past its threshold a room's new sockets go through relays. */
describe("Relay rooms", () => {
  it("sockets on several relays and on the room: votes from every relay, the same frames and counts everywhere", async () => {
    const room = newRoom();
    await relayRoom(room, 2, 2);
    const { d } = await djPlaying(room); // the room holds the DJ's socket...
    const direct = await connect(room, await person()); // ...and this one: its threshold
    const listeners: RoomClient[] = [];
    for (let i = 0; i < 12; i++) listeners.push(await connect(room, await person()));
    // A relay opens per 2 sockets: the 12 listeners are spread over several, none on the room.
    const counts = await relayCounts(room, 8);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(12);
    expect(counts.filter((n) => n > 0).length).toBeGreaterThan(1);
    const everyone = [d, direct, ...listeners];
    await Promise.all(everyone.map((c) => c.until((s) => s.allUsers.length === 14, "all 14")));
    const from = Math.max(...everyone.map((c) => c.seq));

    listeners.forEach((l, i) => l.send({ action: "voteOnSong", songVotes: { like: i % 3 !== 0 } }));
    direct.send({ action: "voteOnSong", songVotes: { like: true, star: true } });
    await Promise.all(
      everyone.map((c) =>
        c.until((s) => s.voteCounts.likes === 9 && s.voteCounts.dislikes === 4, "the counts"),
      ),
    );
    await expectSameEverywhere(room, everyone, from);
    // A relayed voter hears its own vote back (yourVote goes to its socket through its relay).
    await listeners[1].waitFor(
      (m) =>
        m.name === "yourVote" &&
        (m.params as { songVotes: { like?: boolean } }).songVotes.like === true,
    );
    for (const c of everyone) c.close();
  });

  it("a room crossing its threshold keeps its own sockets and sends the new ones to a relay", async () => {
    const room = newRoom();
    await relayRoom(room, 3, 100);
    const own: RoomClient[] = [];
    for (let i = 0; i < 3; i++) own.push(await connect(room, await person()));
    expect(await relaySockets(room, 0)).toBe(0);
    const newcomers: RoomClient[] = [];
    for (let i = 0; i < 3; i++) newcomers.push(await connect(room, await person()));
    expect(await relaySockets(room, 0)).toBe(3);
    // The room's own sockets stay open and hear the newcomers; a newcomer's seat reaches them.
    const all = [...own, ...newcomers];
    await Promise.all(all.map((c) => c.until((s) => s.allUsers.length === 6, "all 6")));
    const from = Math.max(...all.map((c) => c.seq));
    const seated = await person();
    await seedQueue(seated.uuid, 1);
    const s = await connect(room, seated);
    await takeSeat(s, seated.uuid);
    await Promise.all(own.map((c) => c.until((st) => st.djs.some((x) => x.uuid === seated.uuid))));
    await expectSameEverywhere(room, all, from);
    expect(own.every((c) => c.ws.readyState === WebSocket.OPEN)).toBe(true);
    for (const c of [...all, s]) c.close();
  });

  it("a kicked user is closed on whichever relay holds them and leaves the lists", async () => {
    const room = newRoom();
    await relayRoom(room, 1, 100);
    const watcher = await connect(room, await person()); // the room's own socket
    const bob = await person();
    const b1 = await connect(room, bob);
    const b2 = await connect(room, bob); // a second tab: the same relay (the shard is by user)
    expect(await relaySockets(room, 0)).toBe(2);
    await watcher.until((s) => s.allUsers.some((u) => u.uuid === bob.uuid), "bob present");
    expect(await stub(room).kickUser(bob.uuid, "spam", null)).toBe(true);
    expect((await b1.closed).code).toBe(CLOSE_KICKED);
    expect((await b2.closed).code).toBe(CLOSE_KICKED);
    await watcher.until((s) => !s.allUsers.some((u) => u.uuid === bob.uuid), "bob gone");
    await vi.waitFor(async () => expect(await relaySockets(room, 0)).toBe(0));
    // Kicked means kicked for a while, through a relay too.
    const again = await SELF.fetch(`http://x/parties/room/${room}?token=${bob.token}`, {
      headers: { Upgrade: "websocket" },
    });
    const ws = again.webSocket!;
    ws.accept();
    const closed = await new Promise<CloseEvent>((r) => ws.addEventListener("close", r));
    expect(closed.code).toBe(CLOSE_KICKED);
    watcher.close();
  });

  it("a socket that resyncs (joinRoom after a gap) gets the relay's copy at the room's seq", async () => {
    const room = newRoom();
    await relayRoom(room, 1, 100);
    const { d } = await djPlaying(room);
    const l = await connect(room, await person());
    expect(await relaySockets(room, 0)).toBe(1);
    d.send({ action: "voteOnSong", songVotes: { like: true } });
    await l.until((s) => s.voteCounts.likes === 1, "the like");
    const from = l.messages.length;
    l.send({ action: "joinRoom" });
    const full = await l.waitFor((m) => m.name === "roomState", from);
    expect((full as { seq: number }).seq).toBe(d.seq);
    expect((full as { state: unknown }).state).toEqual(await stub(room).getState());
    l.close();
    d.close();
  });

  it("a flood on a relay socket is paid at the relay: errors, then a close; the room is not flooded", async () => {
    const room = newRoom();
    await relayRoom(room, 1, 100);
    const { d } = await djPlaying(room);
    const flooder = await connect(room, await person());
    const calm = await connect(room, await person());
    expect(await relaySockets(room, 0)).toBe(2);
    const frame = JSON.stringify({ action: "loadChat", limit: 50 });
    for (let i = 0; i < 10_000; i++) flooder.ws.send(frame);
    expect((await flooder.closed).code).toBe(CLOSE_FLOODING);
    // At most the socket's burst reached the room; the errors came from the relay.
    const answers = flooder.messages.filter((m) => m.name === "chatHistory").length;
    const errors = flooder.messages.filter((m) => m.name === "error").length;
    expect(answers).toBeLessThanOrEqual(12);
    expect(errors).toBeGreaterThan(10);
    // The relay passed on about the socket's burst, not the flood (joinRoom-free: 10 reads).
    expect((await relayStub(room, 0).stats()).forwarded).toBeLessThanOrEqual(15);
    // Another socket of the same relay is still heard.
    calm.send({ action: "voteOnSong", songVotes: { like: true } });
    await d.until((s) => s.voteCounts.likes === 1, "the calm socket's like");
    calm.close();
    d.close();
  });

  it("a client cannot pass for a relay: the link header is dropped at the gateway", async () => {
    const room = newRoom();
    await relayRoom(room, 100, 100);
    const who = await person();
    const c = await connect(room, who);
    const res = await SELF.fetch(`http://x/parties/room/${room}?token=${who.token}`, {
      headers: { Upgrade: "websocket", "x-hangout-relay": "0", "x-hangout-relay-of": "{}" },
    });
    expect(res.status).toBe(101);
    const forged = new RoomClient(res.webSocket!);
    // A user's socket like any other: it gets the full state and is listed as its user.
    const s = await forged.until((st) => st.allUsers.some((u) => u.uuid === who.uuid));
    expect(s).toEqual(await stub(room).getState());
    // And no path reaches a relay object directly.
    const direct = await SELF.fetch(`http://x/parties/relay/${room}%230`, {
      headers: { Upgrade: "websocket" },
    });
    expect(direct.status).toBeGreaterThanOrEqual(400);
    expect(direct.status).toBeLessThan(500);
    forged.close();
    c.close();
  });
});
