import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { ChatMessage, ServerMessage } from "../shared/protocol";
import {
  applySettings,
  chatter,
  connect,
  connectPastGateway,
  expectInSync,
  newRoom,
  person,
  stub,
  type RoomClient,
} from "./room-helpers";

vi.setConfig({ testTimeout: 30_000 });

/** Chat (seed 001 "Chat message", Validation rules; issue 4 "Chat"). */

const lastChat = (c: RoomClient) => c.state!.chat.at(-1)!;
const say = async (c: RoomClient, message: string) => {
  c.send({ action: "sendChat", message, clientId: crypto.randomUUID() });
  return (
    await c.until((s) => s.chat.some((m) => m.message === message), `chat "${message}"`)
  ).chat.find((m) => m.message === message)!;
};

describe("Room chat", () => {
  it("refuses what the validity rule refuses; a valid line reaches everyone with the sender's profile", async () => {
    const room = newRoom();
    const alice = await chatter();
    const a = await connect(room, alice);
    const seq = a.seq;
    expect(await a.refused({ action: "sendChat", clientId: "c1" })).toMatch(
      /needs text, or both an image and media/,
    );
    expect(await a.refused({ action: "sendChat", message: "   ", clientId: "c1" })).toMatch(
      /needs text/,
    );
    expect(
      await a.refused({
        action: "sendChat",
        imageUrls: ["https://img.example/x.gif"],
        clientId: "c1",
      }),
    ).toMatch(/needs text/);
    expect(await a.refused({ action: "sendChat", message: "bell\u0007", clientId: "c1" })).toMatch(
      /Invalid message.*control/,
    );
    expect(
      await a.refused({ action: "sendChat", message: "x".repeat(1001), clientId: "c1" }),
    ).toMatch(/Invalid message/);
    const g = await connect(room, await person("guest"));
    expect(await g.refused({ action: "sendChat", message: "hi", clientId: "g" })).toBe(
      "Guests cannot chat.",
    );
    // A user whose D1 read failed at connect (the gateway refuses one with no account at all).
    const noProfile = await connectPastGateway(room, crypto.randomUUID());
    expect(await noProfile.refused({ action: "sendChat", message: "hi", clientId: "n" })).toMatch(
      /profile/,
    );
    await a.until((s) => s.allUsers.length === 2);
    expect(a.frames().filter((f) => f.name === "updatedChat")).toEqual([]);
    expect(a.seq).toBeGreaterThan(seq); // only the joins moved it

    a.send({
      action: "sendChat",
      imageUrls: ["https://img.example/x.gif"],
      media: "giphy:abc",
      clientId: "gif",
    });
    await g.until((s) => s.chat.length === 1);
    a.send({
      action: "sendChat",
      message: "  listen https://open.spotify.com/track/1 and https://example.com/x  ",
      clientId: "l",
    });
    const m = lastChat(await a.until((s) => s.chat.length === 2).then(() => a));
    expect(m).toMatchObject({
      type: "user",
      message: "listen https://open.spotify.com/track/1 and https://example.com/x",
      userUuid: alice.uuid,
      avatarId: expect.any(String),
      color: expect.any(String),
    });
    expect(m.userName).toBeTruthy();
    expect(m.songs).toEqual([{ link: "https://open.spotify.com/track/1" }]);
    expect(m.uuid).toBe(m.id);
    await g.until((s) => s.chat.length === 2);
    expect(g.frames().at(-1)!.name).toBe("updatedChat");
    for (const op of g.frames().at(-1)!.statePatch) expect(op.path).toMatch(/^\/chat/);
    for (const c of [a, g, noProfile]) await expectInSync(room, c);
    for (const c of [a, g, noProfile]) c.close();
  });

  it("no chat in a room whose settings turn it off", async () => {
    const room = newRoom();
    await applySettings(room, { hasChat: false });
    const a = await connect(room, await chatter());
    expect(await a.refused({ action: "sendChat", message: "hi", clientId: "c" })).toBe(
      "Chat is turned off in this room.",
    );
    a.close();
  });

  it("edits the author's own text within 20 s; after 20 s, or someone else's, is refused", async () => {
    const room = newRoom();
    const [alice, bob] = [await chatter(), await chatter()];
    const a = await connect(room, alice);
    const b = await connect(room, bob);
    const m = await say(a, "helo");
    a.send({ action: "editChat", messageId: m.id, message: "hello" });
    const edited = (await b.until((s) => s.chat[0]?.message === "hello")).chat[0];
    expect(edited.edited).toBe(true);
    expect(await b.refused({ action: "editChat", messageId: m.id, message: "mine now" })).toBe(
      "Only the author can edit a message.",
    );
    // 21 s pass for this message.
    await runInDurableObject(stub(room), (_o, state) => {
      state.storage.sql.exec(
        `UPDATE room_chat SET json = json_set(json, '$.date', json_extract(json, '$.date') - 21000) WHERE id = ?`,
        m.id,
      );
    });
    expect(await a.refused({ action: "editChat", messageId: m.id, message: "too late" })).toBe(
      "A message can only be edited within 20 seconds.",
    );
    await expectInSync(room, b);
    a.close();
    b.close();
  });

  it("a reaction toggles the caller's entry; replies name an existing message; the author or a moderator deletes", async () => {
    const room = newRoom();
    const [alice, bob, mod] = [await chatter(), await chatter(), await chatter()];
    const a = await connect(room, alice);
    const b = await connect(room, bob);
    const m = await say(a, "react to me");
    b.send({ action: "reactChat", messageId: m.id, emoji: "🔥" });
    await a.until((s) => s.chat[0].reactions["🔥"]?.length === 1);
    a.send({ action: "reactChat", messageId: m.id, emoji: "🔥" });
    await a.until((s) => s.chat[0].reactions["🔥"]?.length === 2);
    expect(a.state!.chat[0].reactions["🔥"]).toEqual([bob.uuid, alice.uuid]);
    b.send({ action: "reactChat", messageId: m.id, emoji: "🔥" });
    await a.until((s) => s.chat[0].reactions["🔥"]?.length === 1);
    a.send({ action: "reactChat", messageId: m.id, emoji: "🔥" });
    await a.until((s) => !("🔥" in s.chat[0].reactions));
    expect(
      await b.refused({ action: "sendChat", message: "re", replyTo: "nope", clientId: "r" }),
    ).toBe("That message does not exist.");
    b.send({ action: "sendChat", message: "a reply", replyTo: m.id, clientId: "r" });
    const reply = (await a.until((s) => s.chat.length === 2)).chat[1];
    expect(reply.replyTo).toBe(m.id);
    expect(await b.refused({ action: "deleteChat", messageId: m.id })).toBe(
      "Only the author or a moderator can delete a message.",
    );
    b.send({ action: "deleteChat", messageId: reply.id });
    await a.until((s) => s.chat.length === 1);
    await stub(room).setRole(mod.uuid, "moderator", null);
    const mc = await connect(room, mod);
    mc.send({ action: "deleteChat", messageId: m.id });
    await a.until((s) => s.chat.length === 0);
    for (const c of [a, b, mc]) await expectInSync(room, c);
    for (const c of [a, b, mc]) c.close();
  });

  it("history is capped at 300; a joiner gets the last 50 in order; loadChat pages the older ones", async () => {
    const room = newRoom();
    const alice = await chatter();
    const a = await connect(room, alice);
    // 309 older messages written straight into the history, then one through the socket.
    await runInDurableObject(stub(room), (_o, state) => {
      for (let i = 1; i <= 309; i++) {
        const id = `m${i}`;
        const msg: ChatMessage = {
          id,
          uuid: id,
          type: "user",
          message: `old ${i}`,
          userUuid: alice.uuid,
          userName: "a",
          avatarId: "x",
          color: "562DF9",
          badges: [],
          date: i,
          replyTo: null,
          reactions: {},
          imageUrls: [],
          media: null,
          songs: [],
          clientId: null,
          edited: false,
        };
        state.storage.sql.exec(
          `INSERT INTO room_chat (id, json) VALUES (?, ?)`,
          id,
          JSON.stringify(msg),
        );
      }
    });
    await say(a, "newest");
    const count = await runInDurableObject(
      stub(room),
      (_o, state) =>
        state.storage.sql.exec<{ c: number }>(`SELECT count(*) AS c FROM room_chat`).one().c,
    );
    expect(count).toBe(300);
    const j = await connect(room, await chatter());
    const names = j.state!.chat.map((m) => m.message);
    expect(names).toEqual([...Array.from({ length: 49 }, (_, k) => `old ${261 + k}`), "newest"]);
    // Page backwards until nothing is left: 250 more, oldest kept is m11.
    const older: string[] = [];
    let before = j.state!.chat[0].id;
    for (;;) {
      const from = j.messages.length;
      j.send({ action: "loadChat", before, limit: 50 });
      const page = (
        await j.waitFor(
          (m): m is Extract<ServerMessage, { name: "chatHistory" }> => m.name === "chatHistory",
          from,
        )
      ).params.messages;
      if (!page.length) break;
      expect(page.length).toBeLessThanOrEqual(50);
      older.unshift(...page.map((m) => m.message!));
      before = page[0].id;
    }
    expect(older).toEqual(Array.from({ length: 250 }, (_, k) => `old ${11 + k}`));
    expect(await j.refused({ action: "loadChat", before, limit: 51 })).toMatch(/Invalid message/);
    expect((await stub(room).getChat(null, 3)).map((m) => m.message)).toEqual([
      "old 308",
      "old 309",
      "newest",
    ]);
    await expectInSync(room, j);
    a.close();
    j.close();
  });

  it("rate limits chat and animations to 5 per 5 s per user; animations reach every socket", async () => {
    const room = newRoom();
    const alice = await chatter();
    const a = await connect(room, alice);
    const b = await connect(room, await chatter());
    for (let i = 0; i < 5; i++)
      a.send({ action: "sendChat", message: `line ${i}`, clientId: `c${i}` });
    expect(
      await a.refused({ action: "sendChat", message: "one too many", clientId: "c6" }),
    ).toMatch(/too fast/);
    await b.until((s) => s.chat.length === 5);
    for (let i = 0; i < 5; i++)
      a.send({ action: "playOneTimeAnimation", animation: "emoji", emoji: "🎉" });
    expect(await a.refused({ action: "playOneTimeAnimation", animation: "jump" })).toMatch(
      /too fast/,
    );
    await vi.waitFor(() =>
      expect(b.messages.filter((m) => m.name === "playedOneTimeAnimation")).toHaveLength(5),
    );
    expect(b.messages.find((m) => m.name === "playedOneTimeAnimation")).toEqual({
      name: "playedOneTimeAnimation",
      params: { userUuid: alice.uuid, animation: "emoji", emoji: "🎉" },
    });
    expect(await a.refused({ action: "playOneTimeAnimation", animation: "wave" } as never)).toMatch(
      /Invalid message/,
    );
    await expectInSync(room, b);
    a.close();
    b.close();
  });
});
