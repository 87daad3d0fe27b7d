import {
  abortAllDurableObjects,
  createExecutionContext,
  env,
  runInDurableObject,
  SELF,
} from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { PrimusBridge } from "../workers/primus";
import { UNKNOWN_ACTION } from "../shared/protocol-ttfm";
import { CROWD_PREFIX } from "../durable/room/crowd";
import type { Room } from "../durable/room";
import { call, forgedToken, guestToken, signUp } from "./helpers";
import { createRoom } from "./room-service-helpers";
import {
  applySettings,
  chatter,
  connect,
  ensureRoom,
  newRoom,
  person,
  seedQueue,
  stub,
  takeSeat,
  uuids,
} from "./room-helpers";
import { botPerson, botSong, TtfmBot } from "./ttfm-helpers";

/** A bot in `room`, joined, its updatedUserData applied. */
async function joinedBot(room: string, who?: { uuid: string; token: string }) {
  const me = who ?? (await botPerson());
  await ensureRoom(room);
  const bot = await TtfmBot.open(me.token);
  await bot.join(room);
  await bot.has((s) => me.uuid in s.allUserData, "its own user data");
  return { me, bot };
}

/** What a bot and a browser must agree on (the bot's document less its songVotes). */
const shared = (s: Record<string, unknown>) => ({
  djs: s.djs,
  allUsers: s.allUsers,
  nowPlaying: s.nowPlaying,
  voteCounts: s.voteCounts,
  vibeMeter: s.vibeMeter,
});

describe("tt.live bots at /primus (issue 17)", () => {
  it("a bad token gets its upgrade, a refused join as a string, then primus::server::close", async () => {
    const room = newRoom();
    await ensureRoom(room);
    const bot = await TtfmBot.open("not-a-jwt");
    expect(await bot.refused(bot.join(room))).toMatch(/token|sign in|valid/i);
    await bot.closed;
    expect(bot.events).toEqual(["primus::server::close", "close 1000"]);
    // A forged signature is as bad as garbage.
    const real = await botPerson();
    const forged = await TtfmBot.open(await forgedToken(real));
    expect(typeof (await forged.refused(forged.join(room)))).toBe("string");
    await forged.closed;
    expect(forged.events[0]).toBe("primus::server::close");
  });

  it("the join answers ClientRoomState with an empty allUserData; updatedUserData follows it", async () => {
    const room = newRoom();
    await ensureRoom(room);
    const alice = await person();
    const a = await connect(room, alice);
    const me = await botPerson();
    const bot = await TtfmBot.open(me.token);
    const answer = await bot.join(room);
    expect(answer.roomUuid).toBe(room);
    expect(answer.allowedRooms).toEqual([room]);
    expect(answer.didCreate).toBe(false);
    expect(typeof answer.serverTime).toBe("number");
    const state = answer.state as Record<string, unknown>;
    expect(Object.keys(state).sort()).toEqual(
      [
        "allUserData",
        "allUsers",
        "audienceUsers",
        "djs",
        "floorUsers",
        "nowPlaying",
        "settings",
        "songsRemainingForDj",
        "vibeMeter",
        "visibleDjs",
        "voteCounts",
      ].sort(),
    );
    expect(state.allUserData).toEqual({});
    expect(uuids(state.allUsers as { uuid: string }[])).toEqual([alice.uuid, me.uuid]);
    expect((state.settings as { uuid: string }).uuid).toBe(room);
    await bot.has((s) => me.uuid in s.allUserData, "updatedUserData");
    const [first] = bot.frames;
    expect(first.message.name).toBe("updatedUserData");
    // After the answer, never with it (the Room holds it JOIN_DEFER_MS so the client's
    // listeners are attached; a wall-clock gap here would be a timed assertion, which a
    // loaded machine breaks: the answer itself can be read late).
    expect(first.at).toBeGreaterThanOrEqual(bot.joinedAt);
    expect(bot.state!.allUserData[alice.uuid]).toMatchObject({
      userProfile: { uuid: alice.uuid },
      songVotes: {},
    });
    // The browser saw the bot arrive, with the bot's token role.
    await a.until((s) => s.allUsers.some((u) => u.uuid === me.uuid && u.tokenRole === "bot"));
    expect(bot.breaches).toEqual([]);
  });

  it("a bot takes a seat with a song, plays, votes; a browser and the bot agree on seats, votes and now playing", async () => {
    const room = newRoom();
    const { me, bot } = await joinedBot(room);
    // After the join: the REST join pushes the D1 row's settings (auto-skip on).
    await applySettings(room, { autoSkipRatio: 0 });
    await seedQueue(me.uuid, 2);
    const alice = await chatter();
    const a = await connect(room, alice);
    // A seat action answers the room's ServerRoomState (ttfm-socket's AddDjAction type).
    const seated = (await bot.action("addDj", { song: botSong() })) as Record<string, unknown>;
    expect(seated).toMatchObject({
      context: "response",
      djs: [{ userUuid: me.uuid, nextSongId: expect.any(String) }],
      shouldRemoveDjAfterSong: false,
      songsRemainingForDj: expect.any(Number),
    });
    expect(seated.allUsers).toEqual(
      expect.arrayContaining([
        { uuid: me.uuid, tokenRole: "bot" },
        expect.objectContaining({ uuid: alice.uuid }),
      ]),
    );
    await bot.has((s) => s.djs[0]?.uuid === me.uuid && s.nowPlaying !== null, "its song playing");
    expect(bot.state!.djs[0].nextSong).toMatchObject({ trackName: "Bot Anthem" });
    // A vote answers no state (its type allows none): a storm's answers stay small.
    expect(await bot.action("voteOnSong", { songVotes: { like: true } })).not.toHaveProperty("djs");
    await bot.has((s) => s.voteCounts.likes === 1, "its like counted");
    expect(bot.state!.allUserData[me.uuid].songVotes).toEqual({ like: true });
    // A browser's vote: the bot sees the count and the browser user's songVotes.
    a.send({ action: "voteOnSong", songVotes: { like: false, star: true } });
    await bot.has((s) => s.voteCounts.dislikes === 1, "the browser's dislike");
    expect(bot.state!.allUserData[alice.uuid].songVotes).toEqual({ like: false, star: true });
    // ...and the browser's chat, as a stateless chatMessage.
    a.send({ action: "sendChat", message: "hello bots", clientId: "c-1" });
    await bot.until(() => bot.named("chatMessage").length > 0, "the chat line");
    expect(bot.named("chatMessage")[0].message.params).toMatchObject({
      message: "hello bots",
      userUuid: alice.uuid,
    });
    // The bot chats back through the documented room action.
    await bot.action("sendChat", { message: "hi alice" });
    await a.until((s) => s.chat.some((m) => m.message === "hi alice" && m.userUuid === me.uuid));
    const browser = await a.until((s) => s.voteCounts.dislikes === 1);
    expect(shared(bot.state as never)).toEqual(shared(browser as never));
    // The bot's skip ends its own song; the next one plays for both.
    const before = bot.state!.nowPlaying!.startTime;
    await bot.action("skipSong");
    await bot.has((s) => s.nowPlaying !== null && s.nowPlaying.startTime !== before, "next song");
    await bot.has((s) => s.voteCounts.likes === 0, "votes reset");
    expect(bot.state!.allUserData[alice.uuid].songVotes).toEqual({});
    await a.until((s) => s.nowPlaying?.startTime === bot.state!.nowPlaying!.startTime);
    expect(shared(bot.state as never)).toEqual(shared(a.state as never));
    expect(await bot.action("removeDj")).toMatchObject({ djs: [], nowPlaying: null });
    await a.until((s) => s.djs.length === 0);
    expect(bot.breaches).toEqual([]);
  });

  it("a bot's blocks hold: it does not hear the chat of someone its account blocked", async () => {
    const room = newRoom();
    await ensureRoom(room);
    const me = await botPerson();
    const [kim, max] = [await chatter(), await chatter()];
    const blocked = await call("social-service", "/blocked-users", {
      token: me.token,
      body: { userUuid: kim.uuid },
    });
    expect(blocked.status).toBe(201);
    const { bot } = await joinedBot(room, me);
    const k = await connect(room, kim);
    const m = await connect(room, max);
    k.send({ action: "sendChat", message: "from kim", clientId: "k-1" });
    await m.until((s) => s.chat.some((l) => l.message === "from kim"));
    m.send({ action: "sendChat", message: "from max", clientId: "m-1" });
    await bot.until(() => bot.named("chatMessage").length > 0, "max's line");
    expect(bot.named("chatMessage").map((f) => f.message.params?.message)).toEqual(["from max"]);
    expect(bot.breaches).toEqual([]);
  });

  it("the room object restarts under a bot: roomReset, then primus::server::close; it rejoins", async () => {
    const room = newRoom();
    const { me, bot } = await joinedBot(room);
    await abortAllDurableObjects();
    await bot.closed;
    expect(bot.named("roomReset")).toHaveLength(1);
    expect(bot.events[0]).toBe("primus::server::close");
    const { bot: back } = await joinedBot(room, me);
    expect(uuids(back.state!.allUsers)).toContain(me.uuid);
  });

  it("bad input gets an error string and changes nothing; an unknown action gets Actionhero's text", async () => {
    const room = newRoom();
    const { bot } = await joinedBot(room);
    expect(await bot.refused(bot.action("voteOnSong", { songVotes: {} }))).toMatch(/songVotes/);
    expect(await bot.refused(bot.action("voteOnSong", { songVotes: { like: true } }))).toMatch(
      /no song|nothing/i,
    );
    expect(
      await bot.refused(bot.action("addDj", { song: { trackName: "x".repeat(600) } })),
    ).toMatch(/Invalid message/);
    expect(await bot.refused(bot.action("kickUser", { userUuid: "x" }))).toBe(UNKNOWN_ACTION);
    expect(await bot.refused(bot.action("fooBar"))).toBe(UNKNOWN_ACTION);
    expect(await bot.refused(bot.request("roomAdd", { room: "x" }))).toBe(UNKNOWN_ACTION);
    // Another user's seat is not a bot's to take away.
    expect(await bot.refused(bot.action("removeDj", { djUuid: crypto.randomUUID() }))).toMatch(/./);
    const details = await bot.request("detailsView");
    expect(details).toMatchObject({ status: "OK", data: { rooms: [room] } });
    expect(bot.state!.djs).toEqual([]);
    expect(bot.breaches).toEqual([]);
  });

  it("a request before any join is refused; a flood of votes is answered, over budget, per request", async () => {
    const me = await botPerson();
    const lone = await TtfmBot.open(me.token);
    expect(await lone.refused(lone.action("voteOnSong", { songVotes: { like: true } }))).toMatch(
      /join/i,
    );
    const room = newRoom();
    const { bot } = await joinedBot(room);
    const answers = await Promise.allSettled(
      Array.from({ length: 40 }, () => bot.action("voteOnSong", { songVotes: { like: true } })),
    );
    expect(answers.every((r) => r.status === "rejected")).toBe(true);
    const reasons = answers.map((r) => (r as PromiseRejectedResult).reason as string);
    expect(reasons.some((r) => /too fast/.test(r))).toBe(true);
  });

  it("follows 200 patches of joins, leaves and vote storms without one failed validation", async () => {
    const room = newRoom();
    const { me, bot } = await joinedBot(room);
    // After the join: the REST join pushes the D1 row's settings (auto-skip on).
    await applySettings(room, { autoSkipRatio: 0 });
    await seedQueue(me.uuid, 2);
    await bot.action("addDj", { song: botSong("Storm") });
    await bot.has((s) => s.nowPlaying !== null, "a song playing");
    const start = bot.frames.length;
    const room$ = stub(room);
    for (let i = 0; i < 200; i++)
      await room$.crowd({ fill: 3 + (i % 9), votes: { from: 0, count: 3 + (i % 5), round: i } });
    await bot.until(() => bot.frames.length - start >= 200, "200 frames");
    const truth = await room$.getState();
    await bot.has((s) => s.allUsers.length === truth.allUsers.length, "the last frame");
    expect(bot.breaches).toEqual([]);
    // Neither the chat, the waiting list nor the counts are in the bot document.
    const {
      chat: _chat,
      waitlist: _waitlist,
      userCount: _users,
      audienceCount: _audience,
      allUserData,
      ...rest
    } = truth;
    const { allUserData: held, songsRemainingForDj: _s, ...mine } = bot.state!;
    expect(mine).toEqual(rest);
    expect(Object.keys(held).sort()).toEqual(Object.keys(allUserData).sort());
    // Every synthetic user's songVotes is the vote the room holds.
    const votes = await runInDurableObject(room$, (_o: Room, st) =>
      st.storage.sql
        .exec<{ user_uuid: string; vote_like: number | null }>(
          `SELECT user_uuid, vote_like FROM room_votes`,
        )
        .toArray(),
    );
    for (const v of votes)
      if (v.user_uuid in held) expect(held[v.user_uuid].songVotes.like).toBe(v.vote_like === 1);
    expect(Object.keys(held).filter((u) => u.startsWith(CROWD_PREFIX)).length).toBeGreaterThan(0);
  });

  it("a kick: kickedFromRoom, then primus::server::close, then the close (the client does not retry)", async () => {
    const room = newRoom();
    const { me, bot } = await joinedBot(room);
    expect(await stub(room).kickUser(me.uuid, "no bots today", null)).toBe(true);
    await bot.closed;
    expect(bot.named("kickedFromRoom")).toHaveLength(1);
    expect(bot.events).toEqual(["primus::server::close", "close 1000"]);
    // Kicked is kicked: a new join is refused with a string.
    const again = await TtfmBot.open(me.token);
    expect(typeof (await again.refused(again.join(room)))).toBe("string");
  });

  it("a room reset: roomReset, server close; the bot rejoins on a new socket and holds the new state", async () => {
    const room = newRoom();
    const { me, bot } = await joinedBot(room);
    // After the join: the REST join pushes the D1 row's settings (auto-skip on).
    await applySettings(room, { autoSkipRatio: 0 });
    await seedQueue(me.uuid, 2);
    await bot.action("addDj", { song: botSong("Reset") });
    await bot.has((s) => s.nowPlaying !== null, "a song playing");
    await stub(room).resetRoom();
    await bot.closed;
    expect(bot.named("roomReset")).toHaveLength(1);
    expect(bot.events[0]).toBe("primus::server::close");
    const { bot: back } = await joinedBot(room, me);
    expect(back.state!.djs).toEqual([]);
    expect(back.state!.nowPlaying).toBeNull();
    expect(back.breaches).toEqual([]);
  });

  it("a browser seat change and a bot's seat show the same lineup to both", async () => {
    const room = newRoom();
    const { me, bot } = await joinedBot(room);
    // After the join: the REST join pushes the D1 row's settings (auto-skip on).
    await applySettings(room, { autoSkipRatio: 0 });
    const dj = await person();
    await seedQueue(dj.uuid, 2);
    await seedQueue(me.uuid, 2);
    const d = await connect(room, dj);
    await takeSeat(d, dj.uuid);
    await bot.action("addDj");
    await bot.has((s) => uuids(s.djs).join() === [dj.uuid, me.uuid].join(), "two DJs");
    const seen = await d.until((s) => s.djs.length === 2);
    expect(uuids(seen.djs)).toEqual(uuids(bot.state!.djs));
    expect(bot.state!.nowPlaying?.song.songId).toBe(seen.nowPlaying?.song.songId);
    await bot.action("playOneTimeAnimation", { animation: "emoji", emoji: "🔥" });
    await d.waitFor((m) => m.name === "playedOneTimeAnimation");
    d.send({ action: "playOneTimeAnimation", animation: "jump" });
    await bot.until(
      () => bot.named("playedOneTimeAnimation").some((f) => f.message.params?.userUuid === dj.uuid),
      "the browser's jump",
    );
    expect(bot.breaches).toEqual([]);
  });
});

describe("tt.live bots: joining rules", () => {
  it("a password room: the join's password is the REST join's; wrong or missing is a string; by slug works", async () => {
    const owner = await signUp();
    const r = await createRoom(owner, { password: "let me in" });
    const me = await botPerson();
    const bot = await TtfmBot.open(me.token);
    expect(await bot.refused(bot.join(r.uuid))).toMatch(/password/i);
    expect(await bot.refused(bot.join(r.uuid, { password: "nope" }))).toMatch(/password/i);
    const answer = await bot.join(r.slug, { password: "let me in" });
    expect(answer.roomUuid).toBe(r.uuid);
    await bot.has((s) => me.uuid in s.allUserData, "its user data");
    // Its actions name the room by the answer's uuid, as the client does.
    expect(await bot.refused(bot.action("skipSong"))).toMatch(/no song|nothing/i);
  });

  it("GET /primus without an upgrade is a 426 with a message, not a page", async () => {
    const res = await SELF.fetch("http://x/primus?token=x");
    expect(res.status).toBe(426);
    expect(await res.json()).toMatchObject({ message: "Expected a websocket upgrade." });
  });

  it("a made-up room is refused with a string; the socket stays usable for a good join", async () => {
    const me = await botPerson();
    const bot = await TtfmBot.open(me.token);
    expect(await bot.refused(bot.join(crypto.randomUUID()))).toMatch(/room/i);
    expect(await bot.refused(bot.join("x".repeat(65)))).toMatch(/roomUuid/);
    const room = newRoom();
    await ensureRoom(room);
    await bot.join(room);
    await bot.has((s) => me.uuid in s.allUserData, "its user data");
    expect(bot.events).toEqual([]);
  });

  it("two joins at once on one socket: the second is refused, the first completes", async () => {
    const room = newRoom();
    await ensureRoom(room);
    const me = await botPerson();
    const bot = await TtfmBot.open(me.token);
    const [first, second] = await Promise.allSettled([bot.join(room), bot.join(room)]);
    expect(first.status).toBe("fulfilled");
    expect(second).toMatchObject({
      status: "rejected",
      reason: expect.stringMatching(/under way/),
    });
    await bot.has((s) => me.uuid in s.allUserData, "its user data");
    expect(bot.breaches).toEqual([]);
  });

  it("a bot in a join loop is slowed: the 31st join in a minute is refused, whatever the room", async () => {
    const me = await botPerson();
    const bot = await TtfmBot.open(me.token);
    for (let i = 0; i < 30; i++)
      expect(await bot.refused(bot.join(crypto.randomUUID()))).toMatch(/no such room|not found/i);
    const room = newRoom();
    await ensureRoom(room);
    expect(await bot.refused(bot.join(room))).toMatch(/Too many joins with this token/);
    // Another bot is not slowed by this one.
    const { bot: other } = await joinedBot(room);
    expect(other.breaches).toEqual([]);
  });

  it("a guest token may join and listen but not vote", async () => {
    const room = newRoom();
    await ensureRoom(room);
    const bot = await TtfmBot.open(await guestToken());
    await bot.join(room);
    expect(await bot.refused(bot.action("voteOnSong", { songVotes: { like: true } }))).toMatch(/./);
    expect(await bot.refused(bot.action("addDj"))).toMatch(/guest|sign/i);
  });
});

describe("the /primus heartbeat", () => {
  /** A bridge on a socket pair, pinging every 40 ms: the far end is the bot. */
  function bridge() {
    const { 0: bot, 1: server } = new WebSocketPair();
    server.accept();
    bot.accept();
    const seen: string[] = [];
    bot.addEventListener("message", (e) => seen.push(e.data as string));
    const closed = new Promise<CloseEvent>((r) => bot.addEventListener("close", r));
    new PrimusBridge(server, "t", "http://x", env, createExecutionContext(), 40).start();
    return { bot, seen, closed };
  }

  it("pings as Primus does; a bot that pongs stays, a silent one is dropped without server::close", async () => {
    const live = bridge();
    live.bot.addEventListener("message", (e) => {
      const m = JSON.parse(e.data as string) as string;
      live.bot.send(JSON.stringify(m.replace("primus::ping::", "primus::pong::")));
    });
    const silent = bridge();
    await silent.closed;
    expect(silent.seen).toHaveLength(1);
    expect(silent.seen[0]).toMatch(/^"primus::ping::\d+"$/);
    await vi.waitFor(() => expect(live.seen.length).toBeGreaterThanOrEqual(4), { timeout: 3000 });
    expect(live.seen.every((m) => /^"primus::ping::\d+"$/.test(m))).toBe(true);
    live.bot.close(1000, "done");
  });
});
