import { abortAllDurableObjects, env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { DeliveryArgs, DeliveryResult } from "../durable/room/consumables";
import type { Room } from "../durable/room";
import type { ChatMessage, RoomStateMessage, ServerMessage } from "../shared/protocol";
import { MAX_BLOCKS } from "../workers/social-service/blocks";
import { call } from "./helpers";
import {
  applySettings,
  chatter,
  ensureRoom,
  expectInSync,
  newRoom,
  RoomClient,
  stub,
  connect,
  type RoomPerson,
} from "./room-helpers";

vi.setConfig({ testTimeout: 60_000 });

/**
 * Blocks in the live room (issue 14): whom a user blocked (POST /blocked-users) is hidden
 * from that user's sockets: their chat lines, their reactions, the consumables and the
 * animations they send. Everyone else sees everything; every socket's seq stays whole.
 */

const block = (who: RoomPerson, them: RoomPerson) =>
  call("social-service", "/blocked-users", { token: who.token, body: { userUuid: them.uuid } });
const unblock = (who: RoomPerson, them: RoomPerson) =>
  call("social-service", `/blocked-users/${them.uuid}`, { token: who.token, method: "DELETE" });

const say = (c: RoomClient, message: string) =>
  c.send({ action: "sendChat", message, clientId: crypto.randomUUID() });
const shows = (c: RoomClient, text: string) => c.state!.chat.some((m) => m.message === text);
const seen = (c: RoomClient, text: string) =>
  c.until((s) => s.chat.some((m) => m.message === text), `chat "${text}"`);
/** Every message `c` got so far, as text (a hidden line must appear nowhere in it). */
const heard = (c: RoomClient) => JSON.stringify(c.messages);

/** Three people in a fresh room: lou (who blocked kim before coming), kim and max. */
async function threeInRoom(blockFirst = true) {
  const room = newRoom();
  await applySettings(room);
  const [lou, kim, max] = [await chatter(), await chatter(), await chatter()];
  if (blockFirst) expect((await block(lou, kim)).status).toBe(201);
  const l = await connect(room, lou);
  const k = await connect(room, kim);
  const m = await connect(room, max);
  await l.until((s) => s.allUsers.length === 3, "all three present");
  return { room, lou, kim, max, l, k, m };
}

/** Waits until `c` has the same seq as `other` (both had every frame so far). */
const caughtUp = (c: RoomClient, other: RoomClient) =>
  vi.waitFor(() => expect(c.seq).toBe(other.seq), { timeout: 5000, interval: 10 });

describe("Room blocks: what the blocker's sockets are sent", () => {
  it("kim's lines reach max but not lou, live, in lou's join state and in loadChat; seqs stay whole", async () => {
    const { room, lou, kim, max, l, k, m } = await threeInRoom();
    say(k, "kim one");
    await seen(m, "kim one");
    say(m, "max one");
    await seen(l, "max one");
    await caughtUp(l, m);
    expect(shows(l, "kim one")).toBe(false);
    expect(heard(l)).not.toContain("kim one");
    // lou is still told kim is there: a block hides what kim says, not kim.
    expect(l.state!.allUsers.map((u) => u.uuid)).toContain(kim.uuid);
    expect(l.state!.allUserData[kim.uuid]).toBeDefined();

    // lou's frames carry the same seqs as everyone's, and apply to the chat lou holds.
    expect(l.frames().map((f) => f.seq)).toEqual(
      expect.arrayContaining(m.frames().map((f) => f.seq)),
    );
    expect(l.breaches).toEqual([]);
    expect(l.state!.chat.map((x) => x.message)).toEqual(["max one"]);
    // Everyone else holds exactly the room's state.
    await expectInSync(room, m);
    await expectInSync(room, k);

    // A second socket of lou's (a reload) and a resync: the full state lacks kim's line.
    const l2 = await connect(room, lou);
    expect(l2.state!.chat.map((x) => x.message)).toEqual(["max one"]);
    const from = l.messages.length;
    l.send({ action: "joinRoom" });
    const again = (await l.waitFor((x) => x.name === "roomState", from)) as RoomStateMessage;
    expect(again.state.chat.map((x) => x.message)).toEqual(["max one"]);
    // Older history, as a page.
    const at = l.messages.length;
    l.send({ action: "loadChat", limit: 50 });
    const page = await l.waitFor((x) => x.name === "chatHistory", at);
    expect(
      (page as { params: { messages: ChatMessage[] } }).params.messages.map((x) => x.message),
    ).toEqual(["max one"]);
    // The room still holds kim's line: hidden from lou, not gone.
    expect((await stub(room).getChat()).map((x) => x.message)).toEqual(["kim one", "max one"]);

    // kim's reaction on max's line: max sees it, lou sees the line without it.
    const maxLine = m.state!.chat.find((x) => x.message === "max one")!;
    k.send({ action: "reactChat", messageId: maxLine.id, emoji: "🔥" });
    m.send({ action: "reactChat", messageId: maxLine.id, emoji: "🎉" });
    await m.until(
      (s) => Object.keys(s.chat.find((x) => x.id === maxLine.id)!.reactions).length === 2,
    );
    await l.until(
      (s) => !!s.chat.find((x) => x.id === maxLine.id)!.reactions["🎉"],
      "max's reaction",
    );
    await caughtUp(l, m);
    expect(l.state!.chat.find((x) => x.id === maxLine.id)!.reactions).toEqual({ "🎉": [max.uuid] });
    expect(l.breaches).toEqual([]);
    expect(l2.breaches).toEqual([]);

    // kim edits, then deletes, their line: nothing of it reaches lou, and lou stays in step.
    const kimLine = m.state!.chat.find((x) => x.message === "kim one")!;
    k.send({ action: "editChat", messageId: kimLine.id, message: "kim edited" });
    await seen(m, "kim edited");
    k.send({ action: "deleteChat", messageId: kimLine.id });
    await m.until((s) => !s.chat.some((x) => x.id === kimLine.id), "kim's line deleted");
    await caughtUp(l, m);
    expect(heard(l)).not.toContain("kim edited");
    expect(l.breaches).toEqual([]);
    [l, l2, k, m].forEach((c) => c.close());
  });

  it("kim's animation and the gift kim sends reach max, not lou", async () => {
    const { room, kim, max, l, k, m } = await threeInRoom();
    k.send({ action: "playOneTimeAnimation", animation: "emoji", emoji: "🔥" });
    await m.waitFor((x) => x.name === "playedOneTimeAnimation");
    // max's animation after it: when lou has max's, kim's would have come before.
    m.send({ action: "playOneTimeAnimation", animation: "jump" });
    await l.waitFor(
      (x) =>
        x.name === "playedOneTimeAnimation" &&
        (x as { params: { userUuid: string } }).params.userUuid === max.uuid,
    );
    const played = (c: RoomClient) =>
      c.messages
        .filter(
          (x): x is Extract<ServerMessage, { name: "playedOneTimeAnimation" }> =>
            x.name === "playedOneTimeAnimation",
        )
        .map((x) => x.params.userUuid);
    expect(played(l)).toEqual([max.uuid]);
    await m.waitFor(
      (x) =>
        x.name === "playedOneTimeAnimation" &&
        (x as { params: { userUuid: string } }).params.userUuid === max.uuid,
    );
    expect(played(m)).toEqual([kim.uuid, max.uuid]);

    // A consumable kim bought, delivered into the chat as the merch-service does.
    const deliver = (
      stub(room) as unknown as {
        deliverConsumable(a: DeliveryArgs): Promise<DeliveryResult>;
      }
    ).deliverConsumable;
    const gift = await deliver({
      purchaseId: crypto.randomUUID(),
      userUuid: kim.uuid,
      consumable: {
        consumableId: 7,
        name: "Confetti",
        imageUrl: null,
        displayType: "cover",
        tokenCost: 25,
      },
    });
    expect(gift.ok).toBe(true);
    await m.until((s) => s.chat.some((x) => x.type === "consumable"), "the gift");
    say(m, "after the gift");
    await seen(l, "after the gift");
    await caughtUp(l, m);
    expect(l.state!.chat.some((x) => x.type === "consumable")).toBe(false);
    expect(heard(l)).not.toContain("Confetti");
    expect(l.breaches).toEqual([]);
    [l, k, m].forEach((c) => c.close());
  });
});

describe("Room blocks: changes while connected", () => {
  it("a block takes effect at once and an unblock restores kim's lines, on every socket of lou's", async () => {
    const { room, lou, kim, l, k, m } = await threeInRoom(false);
    const l2 = await connect(room, lou);
    say(k, "kim before");
    await seen(l, "kim before");
    await seen(l2, "kim before");

    // The route answers once the rooms were told: lou's chat loses kim's line now.
    expect((await block(lou, kim)).status).toBe(201);
    await l.until((s) => !s.chat.some((x) => x.message === "kim before"), "kim's line hidden");
    await l2.until(
      (s) => !s.chat.some((x) => x.message === "kim before"),
      "hidden on the 2nd socket",
    );
    say(k, "kim during");
    await seen(m, "kim during");
    say(m, "max during");
    await seen(l, "max during");
    await seen(l2, "max during");
    await caughtUp(l, m);
    expect(heard(l)).not.toContain("kim during");
    expect(heard(l2)).not.toContain("kim during");
    // kim's animations stop too.
    k.send({ action: "playOneTimeAnimation", animation: "jump" });
    await m.waitFor((x) => x.name === "playedOneTimeAnimation");

    expect((await unblock(lou, kim)).status).toBe(200);
    await l.until(
      (s) => shows(l, "kim before") && s.chat.some((x) => x.message === "kim during"),
      "kim's lines back",
    );
    say(k, "kim after");
    await seen(l, "kim after");
    await seen(l2, "kim after");
    await caughtUp(l, m);
    expect(l.state!.chat.map((x) => x.message)).toEqual(m.state!.chat.map((x) => x.message));
    expect(l.messages.some((x) => x.name === "playedOneTimeAnimation")).toBe(false);
    expect(l.breaches).toEqual([]);
    expect(l2.breaches).toEqual([]);
    await expectInSync(room, l);
    [l, l2, k, m].forEach((c) => c.close());
  });

  it("a new socket's read replaces the list the room held: an unblock whose push never came", async () => {
    const { room, lou, l, k, m } = await threeInRoom();
    say(k, "kim line");
    await seen(m, "kim line");
    // The unblock's D1 write alone, as if the room had not answered the push.
    await env.DB.prepare(`DELETE FROM blocked_users WHERE blocker_uuid = ?`).bind(lou.uuid).run();
    const l2 = await connect(room, lou);
    expect(l2.state!.chat.map((x) => x.message)).toEqual(["kim line"]);
    await l.until((s) => s.chat.some((x) => x.message === "kim line"), "the first socket resynced");
    expect(l.breaches).toEqual([]);
    [l, l2, k, m].forEach((c) => c.close());
  });

  it("a block pushed while connected survives the object losing its memory (hibernation, eviction)", async () => {
    const { room, lou, kim, l, k, m } = await threeInRoom(false);
    expect((await block(lou, kim)).status).toBe(201); // only the push carried it, not the gateway
    say(k, "kim hidden");
    await seen(m, "kim hidden");
    // A new instance over the same storage and the same open sockets, as after hibernation:
    // it knows only SQLite and the sockets. lou's next join is answered by it.
    const from = l.messages.length;
    await runInDurableObject(stub(room), async (instance: Room, state) => {
      const Fresh = instance.constructor as new (s: DurableObjectState, e: unknown) => Room;
      const fresh = new Fresh(state, (instance as unknown as { env: unknown }).env);
      const [ws] = state.getWebSockets(`u:${lou.uuid}`);
      await fresh.webSocketMessage(ws, JSON.stringify({ action: "joinRoom" }));
    });
    const again = (await l.waitFor((x) => x.name === "roomState", from)) as RoomStateMessage;
    expect(again.state.chat.map((x) => x.message)).toEqual([]);
    expect(JSON.stringify(again)).not.toContain("kim hidden");

    // Evicted for real (the test runtime drops the sockets too): lou comes back, still blocking.
    await abortAllDurableObjects();
    await l.closed;
    const back = await connect(room, lou);
    const watcher = await connect(room, await chatter());
    expect(watcher.state!.chat.map((x) => x.message)).toEqual(["kim hidden"]);
    expect(back.state!.chat.map((x) => x.message)).toEqual([]);
  });
});

describe("Room blocks: what cannot be forged or overflow", () => {
  it("a caller header sent through the gateway is replaced: a client cannot hide anyone by claiming blocks", async () => {
    const room = newRoom();
    await applySettings(room);
    const [lou, kim] = [await chatter(), await chatter()];
    await ensureRoom(room);
    const forged = JSON.stringify({
      uuid: lou.uuid,
      type: "user",
      roles: ["user"],
      blocks: [kim.uuid],
      blocksAt: Number.MAX_SAFE_INTEGER,
    });
    const res = await SELF.fetch(`http://x/parties/room/${room}?token=${lou.token}`, {
      headers: { Upgrade: "websocket", "x-hangout-caller": forged },
    });
    expect(res.status).toBe(101);
    const l = new RoomClient(res.webSocket!);
    await l.waitFor((x) => x.name === "roomState");
    const k = await connect(room, kim);
    say(k, "kim visible");
    await seen(l, "kim visible");
    // Nor did the forged time stick: a real block now still applies.
    expect((await block(lou, kim)).status).toBe(201);
    await l.until(
      (s) => !s.chat.some((x) => x.message === "kim visible"),
      "the real block applies",
    );
    // The room's RPC refuses a list past the limit and changes nothing.
    const tooMany = Array.from({ length: MAX_BLOCKS + 1 }, () => crypto.randomUUID());
    await runInDurableObject(stub(room), (o: Room) =>
      expect(() =>
        o.refreshUser(
          lou.uuid,
          { roles: ["user"], sessionVersion: 0 },
          {
            list: tooMany,
            at: Date.now() + 1000,
          },
        ),
      ).toThrow(/too_big|Too big/),
    );
    say(k, "kim still hidden");
    const watcher = await connect(room, await chatter());
    await seen(watcher, "kim still hidden");
    say(watcher, "watcher line");
    await seen(l, "watcher line");
    expect(heard(l)).not.toContain("kim still hidden");
    [l, k, watcher].forEach((c) => c.close());
  });

  it("a user with 1,000 blocks connects, and the blocks hold", async () => {
    const room = newRoom();
    await applySettings(room);
    const [lou, kim, max] = [await chatter(), await chatter(), await chatter()];
    expect((await block(lou, kim)).status).toBe(201);
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
       INSERT INTO blocked_users (blocker_uuid, blocked_uuid, created_at)
       SELECT ?1, printf('%08x-0000-4000-8000-%012x', i, i), 0 FROM n`,
    )
      .bind(lou.uuid, MAX_BLOCKS - 1)
      .run();
    const count = await env.DB.prepare(
      `SELECT count(*) AS c FROM blocked_users WHERE blocker_uuid = ?`,
    )
      .bind(lou.uuid)
      .first<{ c: number }>();
    expect(count!.c).toBe(MAX_BLOCKS);
    const l = await connect(room, lou);
    const k = await connect(room, kim);
    const m = await connect(room, max);
    say(k, "kim one");
    await seen(m, "kim one");
    say(m, "max one");
    await seen(l, "max one");
    await caughtUp(l, m);
    expect(heard(l)).not.toContain("kim one");
    // The list the room keeps is the whole of it.
    const kept = await runInDurableObject(stub(room), (_o, state) =>
      state.storage.sql
        .exec<{ blocked: string }>(`SELECT blocked FROM room_blocks WHERE user_uuid = ?`, lou.uuid)
        .one(),
    );
    expect((JSON.parse(kept.blocked) as string[]).length).toBe(MAX_BLOCKS);
    expect(l.breaches).toEqual([]);
    [l, k, m].forEach((c) => c.close());
  });
});
