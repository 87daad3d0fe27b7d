import { describe, expect, it, vi } from "vitest";
import { LIB_MSG } from "../workers/lib/messages";
import { RULES } from "../workers/lib/abuse-limits";
import { DM_TEXT_MAX } from "../workers/social-service/dm-store";
import { SOCIAL_MSG } from "../workers/social-service/messages";
import { guestToken, signUp, user, type TestAccount } from "./helpers";
import { rowsOf } from "./notify-helpers";
import { befriend, block, social } from "./social-helpers";

/**
 * Direct messages (issue 16): between friends, and between anyone unless the recipient
 * lets only friends write or a block stands; conversation tabs FRIENDS, OTHERS, UNSET
 * (seed 001), unread counts and mark-read; only the two sides read a conversation.
 */

const send = (from: TestAccount, to: TestAccount, text: string) =>
  social("/direct-messages", { token: from.token, body: { toUuid: to.uuid, text } });
const list = (who: TestAccount, tab = "UNSET") =>
  social(`/direct-messages/conversations?tab=${tab}`, { token: who.token });
const unread = async (who: TestAccount) =>
  (await social("/direct-messages/unread-count", { token: who.token })).body;
const messages = (who: TestAccount, conv: string, q = "") =>
  social(`/direct-messages/conversations/${conv}/messages${q}`, { token: who.token });
const read = (who: TestAccount, conv: string, body: unknown = {}) =>
  social(`/direct-messages/conversations/${conv}/read`, { token: who.token, body });

describe("sending", () => {
  it("a message reaches the recipient: listed, counted unread, readable by both sides", async () => {
    const [ann, bob] = [await signUp(), await signUp()];
    const sent = await send(ann, bob, "  hi bob  ");
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ senderUuid: ann.uuid, text: "hi bob" });
    const conv = sent.body.conversationUuid as string;

    const bobs = await list(bob);
    expect(bobs.body.total).toBe(1);
    expect(bobs.body.data[0]).toMatchObject({
      conversationUuid: conv,
      peerUuid: ann.uuid,
      unread: 1,
      isFriend: false,
      lastMessage: { text: "hi bob" },
    });
    expect(bobs.body.data[0].peer.uuid).toBe(ann.uuid);
    expect(await unread(bob)).toMatchObject({ unread: 1, conversations: 1 });
    // The sender's own message is never unread for them.
    expect(await unread(ann)).toMatchObject({ unread: 0 });

    const reply = await send(bob, ann, "hey ann");
    expect(reply.body.conversationUuid).toBe(conv);
    for (const who of [ann, bob]) {
      const page = await messages(who, conv);
      expect(page.body.data.map((m: { text: string }) => m.text)).toEqual(["hi bob", "hey ann"]);
    }
  });

  it("two first messages sent at once make one conversation", async () => {
    const [ann, bob] = [await signUp(), await signUp()];
    const [a, b] = await Promise.all([send(ann, bob, "one"), send(bob, ann, "two")]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.conversationUuid).toBe(b.body.conversationUuid);
    expect((await list(ann)).body.total).toBe(1);
    expect((await unread(ann)).unread).toBe(1);
  });

  it("empty, blank, huge or control-character text is 400 and stores nothing", async () => {
    const [ann, bob] = [await signUp(), await signUp()];
    for (const text of ["", "   ", "x".repeat(DM_TEXT_MAX + 1), "bad\u0000byte", 42]) {
      const res = await social("/direct-messages", {
        token: ann.token,
        body: { toUuid: bob.uuid, text },
      });
      expect(res.status).toBe(400);
    }
    expect((await send(ann, bob, "x".repeat(DM_TEXT_MAX))).status).toBe(201);
    expect((await list(bob)).body.data[0].lastMessage.text).toHaveLength(DM_TEXT_MAX);
    const bad = await social("/direct-messages", {
      token: ann.token,
      body: { toUuid: "not-a-uuid", text: "hi" },
    });
    expect(bad.status).toBe(400);
  });

  it("not to myself (400), not to nobody (404)", async () => {
    const ann = await signUp();
    const self = await send(ann, ann, "me");
    expect([self.status, self.body.message]).toEqual([400, SOCIAL_MSG.dmSelf]);
    const nobody = await social("/direct-messages", {
      token: ann.token,
      body: { toUuid: crypto.randomUUID(), text: "anyone?" },
    });
    expect(nobody.status).toBe(404);
  });

  it("tells the recipient through the notification queue", async () => {
    const [ann, bob] = [await signUp(), await signUp()];
    await send(ann, bob, "ping for the centre");
    await vi.waitFor(
      async () => {
        const rows = (await rowsOf(bob.uuid)).filter((r) => r.kind === "direct_message");
        expect(rows).toHaveLength(1);
        expect(rows[0].body).toBe("ping for the centre");
      },
      { timeout: 10_000, interval: 100 },
    );
  });
});

describe("who may write", () => {
  it("a blocked sender is refused, either way round, and the conversation leaves both lists", async () => {
    const [ann, bob, cat] = [await signUp(), await signUp(), await signUp()];
    expect((await send(ann, bob, "before")).status).toBe(201);
    await block(bob, ann);
    const refused = await send(ann, bob, "after");
    expect([refused.status, refused.body.message]).toEqual([403, SOCIAL_MSG.dmBlocked]);
    expect((await send(bob, ann, "the blocker cannot write either")).status).toBe(403);
    expect((await list(bob)).body.total).toBe(0);
    expect((await list(ann)).body.total).toBe(0);
    expect((await unread(bob)).unread).toBe(0);
    expect((await send(cat, bob, "others still can")).status).toBe(201);
  });

  it("friends-only: strangers are refused, friends are not; the setting reads back", async () => {
    const [ann, bob, friend] = [await signUp(), await signUp(), await signUp()];
    await befriend(bob, friend);
    const set = await social("/direct-messages/settings", {
      method: "PUT",
      token: bob.token,
      body: { friendsOnly: true },
    });
    expect(set.body).toEqual({ friendsOnly: true });
    expect((await social("/direct-messages/settings", { token: bob.token })).body).toEqual({
      friendsOnly: true,
    });
    const stranger = await send(ann, bob, "let me in");
    expect([stranger.status, stranger.body.message]).toEqual([403, SOCIAL_MSG.dmFriendsOnly]);
    expect((await send(friend, bob, "it's me")).status).toBe(201);
    const opened = await social(`/direct-messages/with/${bob.uuid}`, { token: ann.token });
    expect(opened.body).toMatchObject({ canMessage: false, reason: SOCIAL_MSG.dmFriendsOnly });
    const bad = await social("/direct-messages/settings", {
      method: "PUT",
      token: bob.token,
      body: { friendsOnly: "yes" },
    });
    expect(bad.status).toBe(400);
  });

  it("a flood from one sender stops at the per-sender limit (429) without storing the rest", async () => {
    const [ann, bob] = [await signUp(), await signUp()];
    const limit = RULES.dmPerSender.limit;
    for (let i = 0; i < limit; i++) expect((await send(ann, bob, `m${i}`)).status).toBe(201);
    const over = await send(ann, bob, "one too many");
    expect(over.status).toBe(429);
    expect(over.headers.get("Retry-After")).toBeTruthy();
    const page = await messages(bob, (await list(bob)).body.data[0].conversationUuid, "?limit=100");
    expect(page.body.data).toHaveLength(limit);
  });
});

describe("reading", () => {
  it("another user's conversation is not readable, nor markable: 404", async () => {
    const [ann, bob, eve] = [await signUp(), await signUp(), await signUp()];
    const conv = (await send(ann, bob, "private")).body.conversationUuid;
    const peek = await messages(eve, conv);
    expect([peek.status, peek.body.message]).toEqual([404, SOCIAL_MSG.dmNotFound]);
    expect((await read(eve, conv)).status).toBe(404);
    expect((await list(eve)).body.total).toBe(0);
  });

  it("tabs: FRIENDS holds friends, OTHERS everyone else, UNSET both", async () => {
    const [me, pal, stranger] = [await signUp(), await signUp(), await signUp()];
    await befriend(me, pal);
    await send(pal, me, "from a friend");
    await send(stranger, me, "from a stranger");
    const peers = async (tab: string) =>
      (await list(me, tab)).body.data.map((d: { peerUuid: string }) => d.peerUuid);
    expect(await peers("FRIENDS")).toEqual([pal.uuid]);
    expect(await peers("OTHERS")).toEqual([stranger.uuid]);
    expect(await peers("UNSET")).toEqual([stranger.uuid, pal.uuid]);
    expect((await unread(me)).tabs).toEqual({ FRIENDS: 1, OTHERS: 1, UNSET: 2 });
    expect((await list(me, "NOPE")).status).toBe(400);
  });

  it("mark read clears the count; a message arriving later counts again; a stale mark never un-reads", async () => {
    const [ann, bob] = [await signUp(), await signUp()];
    const first = (await send(ann, bob, "1")).body;
    const second = (await send(ann, bob, "2")).body;
    expect((await unread(bob)).unread).toBe(2);
    const partial = await read(bob, first.conversationUuid, { upTo: first.id });
    expect(partial.body).toMatchObject({ unread: 1, readUpTo: first.id });
    const all = await read(bob, first.conversationUuid);
    expect(all.body).toMatchObject({ unread: 0, readUpTo: second.id });
    // Going back to an older mark keeps the newer one.
    expect((await read(bob, first.conversationUuid, { upTo: first.id })).body.unread).toBe(0);
    await send(ann, bob, "3");
    expect((await unread(bob)).unread).toBe(1);
    expect((await list(bob)).body.data[0].unread).toBe(1);
  });

  it("pages: newest first by before, new ones by after, bounded limit", async () => {
    const [ann, bob] = [await signUp(), await signUp()];
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await send(ann, bob, `n${i}`)).body.id);
    const conv = (await list(bob)).body.data[0].conversationUuid;
    const newest = await messages(bob, conv, "?limit=2");
    expect(newest.body.data.map((m: { text: string }) => m.text)).toEqual(["n3", "n4"]);
    expect(newest.body.hasMore).toBe(true);
    const older = await messages(bob, conv, `?limit=2&before=${ids[3]}`);
    expect(older.body.data.map((m: { text: string }) => m.text)).toEqual(["n1", "n2"]);
    const since = await messages(bob, conv, `?after=${ids[2]}`);
    expect(since.body.data.map((m: { text: string }) => m.text)).toEqual(["n3", "n4"]);
    expect(since.body.hasMore).toBe(false);
    for (const q of ["?limit=101", "?limit=0", `?before=${ids[1]}&after=${ids[0]}`, "?after=-1"])
      expect((await messages(bob, conv, q)).status).toBe(400);
  });
});

describe("who may call", () => {
  it("401 without a token on every route", async () => {
    const conv = crypto.randomUUID();
    const routes: [string, string, unknown?][] = [
      ["GET", "/direct-messages/conversations"],
      ["GET", "/direct-messages/unread-count"],
      ["GET", "/direct-messages/settings"],
      ["PUT", "/direct-messages/settings", { friendsOnly: true }],
      ["GET", `/direct-messages/with/${conv}`],
      ["POST", "/direct-messages", { toUuid: conv, text: "hi" }],
      ["GET", `/direct-messages/conversations/${conv}/messages`],
      ["POST", `/direct-messages/conversations/${conv}/read`, {}],
    ];
    for (const [method, path, body] of routes)
      expect([path, (await social(path, { method, body })).status]).toEqual([path, 401]);
  });

  it("a guest cannot write, and has no conversations to read", async () => {
    const bob = await signUp();
    const token = await guestToken();
    const res = await social("/direct-messages", { token, body: { toUuid: bob.uuid, text: "hi" } });
    expect([res.status, res.body.message]).toEqual([403, LIB_MSG.guestsCannot]);
    expect((await social("/direct-messages/conversations", { token })).body.total).toBe(0);
  });

  it("a ghost reads (nothing of anyone's) and never writes", async () => {
    const [ann, bob] = [await signUp(), await signUp()];
    const conv = (await send(ann, bob, "not for ghosts")).body.conversationUuid;
    const token = (await user("/comet-chat/ghost-token")).body.authToken;
    expect((await social("/direct-messages/conversations", { token })).body.total).toBe(0);
    expect(
      (await social(`/direct-messages/conversations/${conv}/messages`, { token })).status,
    ).toBe(404);
    const write = await social("/direct-messages", {
      token,
      body: { toUuid: bob.uuid, text: "boo" },
    });
    expect([write.status, write.body.message]).toEqual([403, LIB_MSG.ghostReadOnly]);
    expect((await read({ ...bob, token } as TestAccount, conv)).status).toBe(403);
  });
});
