import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import {
  connect,
  djPlaying,
  ensureRoom,
  expectInSync,
  newRoom,
  person,
  stub,
  type RoomClient,
  type RoomPerson,
} from "./room-helpers";
import { relayRoom, relaySockets, relayStub } from "./relay-helpers";
import { botPerson, TtfmBot } from "./ttfm-helpers";

vi.setConfig({ testTimeout: 60_000 });

/** Stadium rooms (issue 19): relays and rooms that die come back to the room's state and seq. */
describe("Relay resync", () => {
  it("a relay evicted mid-storm: its sockets come back to the same relay and the room's state; no vote counts twice", async () => {
    const room = newRoom();
    await relayRoom(room, 1, 100);
    const { d } = await djPlaying(room);
    const people: RoomPerson[] = [];
    let clients: RoomClient[] = [];
    for (let i = 0; i < 10; i++) people.push(await person());
    for (const p of people) clients.push(await connect(room, p));
    expect(await relaySockets(room, 0)).toBe(10);
    // Half the crowd votes, and the relay is evicted while their votes are on the way.
    clients.slice(0, 5).forEach((c) => c.send({ action: "voteOnSong", songVotes: { like: true } }));
    await runInDurableObject(relayStub(room, 0), (_o, state) => {
      try {
        state.abort("evicted mid-storm");
      } catch {
        /* the abort ends this call too */
      }
    }).catch(() => {});
    await Promise.all(clients.map((c) => c.closed));
    // Browsers reconnect; each lands on the relay it had (the shard is by user).
    clients = [];
    for (const p of people) clients.push(await connect(room, p));
    expect(await relaySockets(room, 0)).toBe(10);
    // Everyone (re)votes: a vote that got through before the eviction is not counted twice.
    clients.forEach((c) => c.send({ action: "voteOnSong", songVotes: { like: true } }));
    await Promise.all(
      [d, ...clients].map((c) => c.until((s) => s.voteCounts.likes === 10, "10 likes")),
    );
    for (const c of [d, ...clients]) await expectInSync(room, c);
    // Nobody left the room: the grace their dropped sockets started ended with their return.
    expect((await stub(room).getState()).allUsers).toHaveLength(11);
    for (const c of [d, ...clients]) c.close();
  });

  it("a room restarted under its relays: the relays link again and their sockets get the room's state, without reconnecting", async () => {
    const room = newRoom();
    await relayRoom(room, 1, 100);
    const { d } = await djPlaying(room);
    const listeners: RoomClient[] = [];
    for (let i = 0; i < 4; i++) listeners.push(await connect(room, await person()));
    const before = listeners.map((l) => l.messages.length);
    await runInDurableObject(stub(room), (_o, state) => {
      try {
        state.abort("restart");
      } catch {
        /* the abort ends this call too */
      }
    }).catch(() => {});
    await d.closed; // the room's own socket dropped with it
    // The relay's sockets stayed open; each gets the room's full state again through its relay.
    await Promise.all(listeners.map((l, i) => l.waitFor((m) => m.name === "roomState", before[i])));
    listeners[0].send({ action: "voteOnSong", songVotes: { like: true } });
    await Promise.all(listeners.map((l) => l.until((s) => s.voteCounts.likes === 1, "the like")));
    for (const l of listeners) {
      expect(l.ws.readyState).toBe(WebSocket.OPEN);
      await expectInSync(room, l);
    }
    for (const l of listeners) l.close();
  });

  it("everything evicted at once: sockets reconnect through relays to the state the room kept", async () => {
    const room = newRoom();
    await relayRoom(room, 1, 100);
    const { dj, d } = await djPlaying(room);
    const fan = await person();
    const f = await connect(room, fan);
    f.send({ action: "voteOnSong", songVotes: { like: true } });
    await d.until((s) => s.voteCounts.likes === 1, "the like");
    const seq = d.seq;
    await abortAllDurableObjects();
    await Promise.all([d.closed, f.closed]);
    const d2 = await connect(room, dj);
    const f2 = await connect(room, fan);
    expect(f2.seq).toBeGreaterThanOrEqual(seq);
    expect(f2.state!.voteCounts.likes).toBe(1);
    await expectInSync(room, f2);
    await expectInSync(room, d2);
    d2.close();
    f2.close();
  });

  it("a tt.live bot joins, votes and hears the room through a relay", async () => {
    const room = newRoom();
    await relayRoom(room, 1, 100);
    const { d } = await djPlaying(room);
    const me = await botPerson();
    await ensureRoom(room);
    const bot = await TtfmBot.open(me.token);
    await bot.join(room);
    await bot.has((s) => me.uuid in s.allUserData, "its own user data");
    expect(await relaySockets(room, 0)).toBe(1);
    expect(await bot.action("voteOnSong", { songVotes: { like: true } })).not.toHaveProperty("djs");
    await d.until((s) => s.voteCounts.likes === 1, "the bot's like");
    await bot.has((s) => s.voteCounts.likes === 1, "its like counted");
    // A browser on the same relay: the bot hears its vote, the browser the bot's.
    const a = await connect(room, await person());
    expect(await relaySockets(room, 0)).toBe(2);
    a.send({ action: "voteOnSong", songVotes: { like: false } });
    await bot.has((s) => s.voteCounts.dislikes === 1, "the browser's dislike");
    await expectInSync(room, a);
    expect(bot.breaches).toEqual([]);
    bot.ws.close();
    a.close();
    d.close();
  });
});
