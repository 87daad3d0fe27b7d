import { describe, expect, it, vi } from "vitest";
import { CLOSE_FLOODING } from "../shared/protocol";
import {
  chatter,
  connect,
  newRoom,
  person,
  seedQueue,
  stub,
  takeSeat,
  type RoomClient,
} from "./room-helpers";

vi.setConfig({ testTimeout: 60_000 });

/** Issue 11, "every action is bounded": the attacks, written as an attacker would send them. */

const pong = (c: RoomClient, clientTime: number, from = 0) =>
  c.waitFor(
    (m) => m.name === "pong" && (m.params as { clientTime: number }).clientTime === clientTime,
    from,
  );

describe("budgets", () => {
  it("a flood of 10,000 loadChat frames gets a burst of answers, errors, then a close; another socket is still answered", async () => {
    const room = newRoom();
    const alice = await chatter();
    const a = await connect(room, alice);
    a.send({ action: "sendChat", message: "before", clientId: "c" });
    await a.until((s) => s.chat.length === 1);
    const flooder = await connect(room, await person());
    const stateBefore = await stub(room).getState();
    const frame = JSON.stringify({ action: "loadChat", limit: 50 });
    for (let i = 0; i < 10_000; i++) flooder.ws.send(frame);
    // Another socket is still answered (how fast is the bench's to measure, not a test's).
    a.send({ action: "ping", clientTime: 42 });
    await pong(a, 42);
    expect((await flooder.closed).code).toBe(CLOSE_FLOODING);
    const answered = flooder.messages.filter((m) => m.name === "chatHistory").length;
    const errors = flooder.messages.filter((m) => m.name === "error").length;
    // The burst is answered, then a bounded number of errors, then the close: far from 10,000.
    expect(answered).toBeLessThanOrEqual(20);
    expect(answered + errors).toBeLessThan(200);
    // Frames beyond the budget changed nothing: the room is as it was (the flooder left).
    const after = await stub(room).getState();
    expect(after.chat).toEqual(stateBefore.chat);
    expect(after.allUsers.map((u) => u.uuid)).not.toContain(undefined);
    a.send({ action: "ping", clientTime: 43 });
    await pong(a, 43);
    a.close();
  });

  it("a vote flood: over budget gets an error frame and the counts move no further", async () => {
    const room = newRoom();
    const dj = await person();
    await seedQueue(dj.uuid, 2);
    const d = await connect(room, dj);
    await takeSeat(d, dj.uuid);
    await d.until((s) => s.nowPlaying !== null);
    const v = await connect(room, await person());
    const from = v.messages.length;
    // Likes only: dislikes from half the active listeners would skip the song away.
    for (let i = 0; i < 200; i++) v.send({ action: "voteOnSong", songVotes: { like: true } });
    await v.waitFor((m) => m.name === "error", from);
    const err = v.messages.slice(from).find((m) => m.name === "error")!;
    expect((err.params as { message: string }).message).toMatch(/too fast/);
    const accepted = v.messages.slice(from).filter((m) => m.name === "yourVote").length;
    expect(accepted).toBeLessThanOrEqual(30);
    // A frame cannot pay from the cheap ping budget by naming "ping" in a nested object.
    const disguised = await connect(room, await person());
    expect(
      await disguised.refused(
        JSON.stringify({ x: { action: "ping" }, action: "voteOnSong", songVotes: { like: true } }),
      ),
    ).toBe("Invalid message: name one action, once.");
    disguised.close();
    v.close();
    d.close();
  });
});

describe("reactions", () => {
  it("a reactChat flood of 300 distinct emoji leaves at most 50 reactions on the message; a non-emoji is refused", async () => {
    const room = newRoom();
    const alice = await chatter();
    const a = await connect(room, alice);
    a.send({ action: "sendChat", message: "react to me", clientId: "c" });
    const id = (await a.until((s) => s.chat.length === 1)).chat[0].id;
    expect(await a.refused({ action: "reactChat", messageId: id, emoji: "x".repeat(32) })).toBe(
      "A reaction must be a single emoji.",
    );
    expect(await a.refused({ action: "reactChat", messageId: id, emoji: "👍👍" })).toBe(
      "A reaction must be a single emoji.",
    );
    // Many attackers, each within their own budget (a burst of 15 each): the cap on the
    // message still holds against 300 distinct emoji.
    const emoji = Array.from({ length: 300 }, (_, i) => String.fromCodePoint(0x1f300 + i));
    const attackers = await Promise.all(Array.from({ length: 20 }, () => chatter()));
    for (const [k, who] of attackers.entries()) {
      const c = await connect(room, who);
      for (let i = 0; i < 15; i++)
        c.send({ action: "reactChat", messageId: id, emoji: emoji[k * 15 + i] });
      c.send({ action: "ping", clientTime: k });
      await pong(c, k);
      // Refused once the message holds 50: none over budget, so every refusal is the cap's.
      const refused = c.messages.filter((m) => m.name === "error");
      expect(refused.length).toBe(Math.max(0, Math.min(15, (k + 1) * 15 - 50)));
      c.close();
    }
    const m = (await stub(room).getState()).chat.find((x) => x.id === id)!;
    expect(Object.keys(m.reactions).length).toBeGreaterThan(0);
    expect(Object.keys(m.reactions).length).toBeLessThanOrEqual(50);
    // One per user per reaction: a second toggle takes it off again.
    const key = Object.keys(m.reactions)[0];
    a.send({ action: "reactChat", messageId: id, emoji: key });
    a.send({ action: "reactChat", messageId: id, emoji: key });
    await a.until(
      (s) => (s.chat[0].reactions[key] ?? []).filter((u) => u === alice.uuid).length === 0,
    );
    a.close();
  });
});

describe("guests listen and read", () => {
  it("a guest's vote and animation are refused and the counts do not move; guest sockets cannot auto-skip", async () => {
    const room = newRoom();
    const dj = await person();
    await seedQueue(dj.uuid, 2);
    const d = await connect(room, dj);
    await takeSeat(d, dj.uuid);
    const playId = (await d.until((s) => s.nowPlaying !== null)).nowPlaying!.playId;
    const guests = await Promise.all(
      Array.from({ length: 4 }, async () => connect(room, await person("guest"))),
    );
    for (const g of guests)
      expect(await g.refused({ action: "voteOnSong", songVotes: { like: false } })).toBe(
        "Sign up to vote on songs.",
      );
    expect(await guests[0].refused({ action: "playOneTimeAnimation", animation: "jump" })).toBe(
      "Sign up to send animations.",
    );
    const s = await stub(room).getState();
    expect(s.nowPlaying!.playId).toBe(playId);
    expect(s.voteCounts).toMatchObject({ likes: 0, dislikes: 0 });
    for (const g of guests) g.close();
    d.close();
  });
});
