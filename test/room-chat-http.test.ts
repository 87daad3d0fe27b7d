import { describe, expect, it, vi } from "vitest";
import { CHAT_MSG } from "../durable/room/messages";
import { LIB_MSG } from "../workers/lib/messages";
import { call, signUp, type TestAccount } from "./helpers";
import { connect } from "./room-helpers";
import { createRoom, room } from "./room-service-helpers";
import { botPerson } from "./ttfm-helpers";

vi.setConfig({ testTimeout: 60_000 });

/**
 * Room chat over HTTP with a chat token (issue 17 "Bot chat": bots post and read room chat
 * through the chat-token calls; room-service room-chat-lines.ts).
 */

const chatToken = async (who: { token: string }) =>
  (await call("user-service", "/comet-chat/user-token", { token: who.token })).body
    .authToken as string;
const join = (who: { token: string }, roomUuid: string) =>
  room(`/roomUserRoles/cometchat/join/${roomUuid}`, { method: "POST", token: who.token });
const post = (token: string, roomUuid: string, body: unknown) =>
  room(`/rooms/${roomUuid}/chat`, { token, body });
const read = (token: string, roomUuid: string, q = "") =>
  room(`/rooms/${roomUuid}/chat${q}`, { token });

async function chatRoom() {
  const owner = await signUp();
  return { owner, r: await createRoom(owner) };
}

describe("room chat with a chat token: GET/POST /rooms/{id}/chat", () => {
  it("a member posts with a chat token; sockets see the line with the sender's name; the token opens nothing else", async () => {
    const { r } = await chatRoom();
    const nickname = `Chatty${Date.now() % 100000}`;
    const me = await signUp({ nickname });
    const listener = await connect(r.uuid, await signUp());
    const token = await chatToken(me);
    // Not a member yet: refused, and nothing reaches the room.
    const early = await post(token, r.uuid, { message: "too early" });
    expect([early.status, early.body.message]).toEqual([403, CHAT_MSG.notMember]);
    expect((await read(token, r.uuid)).status).toBe(403);
    expect((await join(me, r.uuid)).status).toBe(201);

    const sent = await post(token, r.uuid, { message: "hello from a chat client" });
    expect(sent.status).toBe(201);
    expect(sent.body.message).toMatchObject({
      type: "user",
      message: "hello from a chat client",
      userUuid: me.uuid,
      userName: nickname,
    });
    const seen = await listener.until(
      (s) => s.chat.some((m) => m.message === "hello from a chat client"),
      "the posted line",
    );
    expect(seen.chat.find((m) => m.id === sent.body.message.id)?.userName).toBe(nickname);
    const page = await read(token, r.uuid, "?limit=5");
    expect(page.status).toBe(200);
    expect(page.body.messages.at(-1)).toMatchObject({ id: sent.body.message.id });
    expect(page.body.messages.map((m: { message: string }) => m.message)).not.toContain(
      "too early",
    );
    // The chat token is still only a chat token: the room's other calls refuse it.
    const joinRoom = await room(`/rooms/${r.uuid}/join`, { method: "POST", token });
    expect([joinRoom.status, joinRoom.body.message]).toEqual([403, LIB_MSG.chatTokenOnlyChat]);
    listener.close();
  });

  it("a tt.live bot account reads and posts through its chat token", async () => {
    const { r } = await chatRoom();
    const bot = await botPerson();
    expect((await join(bot, r.uuid)).status).toBe(201);
    const token = await chatToken(bot);
    const sent = await post(token, r.uuid, { message: "Welcome to the room!" });
    expect(sent.status).toBe(201);
    expect(sent.body.message.userUuid).toBe(bot.uuid);
    const page = await read(token, r.uuid);
    expect(page.body.messages.map((m: { message: string }) => m.message)).toContain(
      "Welcome to the room!",
    );
  });

  it("refuses bad input with a clear 4xx and changes nothing", async () => {
    const { r } = await chatRoom();
    const me = await signUp();
    await join(me, r.uuid);
    const token = await chatToken(me);
    expect((await room(`/rooms/${r.uuid}/chat`, { body: { message: "x" } })).status).toBe(401);
    expect((await post(token, "no-such-room-zz", { message: "x" })).status).toBe(404);
    const long = await post(token, r.uuid, { message: "x".repeat(1001) });
    expect(long.status).toBe(400);
    const extra = await post(token, r.uuid, { message: "hi", userUuid: crypto.randomUUID() });
    expect(extra.status).toBe(400);
    const empty = await post(token, r.uuid, { message: "   " });
    expect([empty.status, empty.body.message]).toEqual([400, CHAT_MSG.invalid]);
    const reply = await post(token, r.uuid, { message: "re", replyTo: "no-such-message" });
    expect([reply.status, reply.body.message]).toEqual([400, CHAT_MSG.notFound]);
    expect((await read(token, r.uuid, "?limit=500")).status).toBe(400);
    expect((await read(token, r.uuid)).body.messages).toEqual([]);
  });

  it("a member kicked, banned or chat-disabled since joining is refused at once", async () => {
    const { owner, r } = await chatRoom();
    const grant = (who: TestAccount, role: string) =>
      room(`/roomUserRoles/${r.uuid}`, {
        token: owner.token,
        body: { userUuid: who.uuid, role },
      });
    for (const [role, message] of [
      ["kicked", CHAT_MSG.kicked],
      ["banned", CHAT_MSG.kicked],
      ["chatDisabled", CHAT_MSG.disabled],
    ] as const) {
      const me = await signUp();
      await join(me, r.uuid);
      const token = await chatToken(me);
      expect((await post(token, r.uuid, { message: `before ${role}` })).status).toBe(201);
      expect((await grant(me, role)).status).toBe(201);
      const after = await post(token, r.uuid, { message: `after ${role}` });
      expect([after.status, after.body.message]).toEqual([403, message]);
    }
    const lines = (await read(await chatToken(owner), r.uuid)).status;
    expect(lines).toBe(403); // the owner never joined the chat
    await join(owner, r.uuid);
    const all = (await read(await chatToken(owner), r.uuid)).body.messages.map(
      (m: { message: string }) => m.message,
    );
    expect(all.filter((m: string) => m?.startsWith("after"))).toEqual([]);
  });

  it("a flood of posts pays the chat budget: some 429, and exactly the accepted lines are kept", async () => {
    const { r } = await chatRoom();
    const me = await signUp();
    await join(me, r.uuid);
    const token = await chatToken(me);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => post(token, r.uuid, { message: `flood ${i}` })),
    );
    const ok = answers.filter((a) => a.status === 201);
    const limited = answers.filter((a) => a.status === 429);
    expect(ok.length + limited.length).toBe(30);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.body.message).toBe(CHAT_MSG.rate);
    const kept = (await read(token, r.uuid)).body.messages.map((m: { id: string }) => m.id);
    expect(kept.sort()).toEqual(ok.map((a) => a.body.message.id).sort());
  });
});
