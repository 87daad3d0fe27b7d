import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { recentSongPlays, rooms } from "../workers/db/schema";
import { LISTENER_POOL } from "../workers/room-service/room-discover";
import { guestToken, signUp, uniqueIp } from "./helpers";
import { connect, djPlaying, type RoomClient } from "./room-helpers";
import { createRoom, room, roomName } from "./room-service-helpers";
import { befriend } from "./social-helpers";

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Room discovery (issue 20): GET /rooms/discover finds listed rooms by name, genre and
 * design, sorts them by listeners, by activity or newest, and shows on each card what
 * plays, its DJ, the crowd and the caller's friends in it.
 */
// Each call from its own network, so the per-network budget tested below never trips here.
const discover = (query: string, token?: string) =>
  room(`/rooms/discover?${query}`, { token, ip: uniqueIp() });
const slugs = (res: { body: any }) => res.body.data.map((r: any) => r.slug);

/** A tag no other test's room names contain, so a search sees only this test's rooms. */
const tag = () => `t${crypto.randomUUID().slice(0, 8)}`;

/** Rooms named "<tag> <name>", created by one owner with `over` each. */
async function roomsTagged(t: string, specs: Record<string, unknown>[]) {
  const owner = await signUp();
  const made = [];
  for (const s of specs) made.push(await createRoom(owner, { name: roomName(t), ...s }));
  return { owner, made };
}

const sockets: RoomClient[] = [];
async function crowd(roomUuid: string, n: number) {
  for (let i = 0; i < n; i++) {
    const a = await signUp();
    sockets.push(await connect(roomUuid, { uuid: a.uuid, token: a.token }));
  }
}

describe("search and filters", () => {
  it("finds listed rooms by a part of the name, any case; private and unlisted rooms never show", async () => {
    const t = tag();
    const { made } = await roomsTagged(t, [{}, { type: "PRIVATE" }, { unlisted: true }]);
    await createRoom(await signUp(), { name: roomName("Elsewhere") });
    const res = await discover(`q=${t.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(slugs(res)).toEqual([made[0].slug]);
    expect(res.body).toMatchObject({ total: 1, limit: 24, offset: 0, sort: "listeners" });
  });

  it("LIKE wildcards in q are plain characters: '%' finds no room without one", async () => {
    const t = tag();
    await roomsTagged(t, [{}]);
    const res = await discover(`q=${encodeURIComponent(`${t}%`)}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect((await discover(`q=${encodeURIComponent("_")}&limit=48`)).body.data).toEqual([]);
  });

  it("filters by genre and by design; the genre is set at creation and by an edit", async () => {
    const t = tag();
    const { owner, made } = await roomsTagged(t, [
      { genre: "house", design: "YACHT" },
      { genre: "house", design: "CLUB" },
      { genre: "jazz", design: "YACHT" },
      {},
    ]);
    expect(made[0].genre).toBe("house");
    expect(made[3].genre).toBeNull();
    expect(slugs(await discover(`q=${t}&genre=house&sort=newest`))).toEqual([
      made[1].slug,
      made[0].slug,
    ]);
    expect(slugs(await discover(`q=${t}&design=YACHT&sort=newest`))).toEqual([
      made[2].slug,
      made[0].slug,
    ]);
    expect(slugs(await discover(`q=${t}&genre=house&design=YACHT`))).toEqual([made[0].slug]);

    const edit = await room(`/rooms/${made[3].uuid}`, {
      method: "PATCH",
      token: owner.token,
      body: { genre: "jazz" },
    });
    expect(edit.status).toBe(200);
    expect(edit.body.genre).toBe("jazz");
    expect(slugs(await discover(`q=${t}&genre=jazz&sort=newest`))).toEqual([
      made[3].slug,
      made[2].slug,
    ]);
  });

  it("a genre outside the list is a 400 on create and edit, and changes nothing", async () => {
    const owner = await signUp();
    const bad = await room("/rooms/infrastructure", {
      token: owner.token,
      body: { name: roomName(), genre: "polka-metal" },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("genre must be one of");
    const r = await createRoom(owner, { genre: "rock" });
    const edit = await room(`/rooms/${r.uuid}`, {
      method: "PATCH",
      token: owner.token,
      body: { genre: 7 },
    });
    expect(edit.status).toBe(400);
    expect((await room(`/rooms/${r.uuid}`)).body.genre).toBe("rock");
  });
});

describe("sorting", () => {
  it("by listeners: the fullest room first, with its crowd counted on the card", async () => {
    const t = tag();
    const { made } = await roomsTagged(t, [{}, {}, {}]);
    await crowd(made[1].uuid, 2);
    await crowd(made[2].uuid, 1);
    const res = await discover(`q=${t}&sort=listeners`);
    expect(slugs(res)).toEqual([made[1].slug, made[2].slug, made[0].slug]);
    expect(res.body.data.map((r: any) => r.numberOfUsersInRoom)).toEqual([2, 1, 0]);
    // Pages slice the ranked list.
    const second = await discover(`q=${t}&sort=listeners&limit=1&offset=1`);
    expect(slugs(second)).toEqual([made[2].slug]);
    expect(second.body.total).toBe(3);
  });

  it("by activity: the room played in most recently first, rooms never played in last", async () => {
    const t = tag();
    const { made } = await roomsTagged(t, [{}, {}, {}]);
    const now = Date.now();
    const play = (slug: string, at: number) =>
      db(env)
        .insert(recentSongPlays)
        .values({
          playId: crypto.randomUUID(),
          roomSlug: slug,
          song: { trackName: "x" },
          voteCounts: { likes: 0, dislikes: 0, stars: 0 },
          djUuid: crypto.randomUUID(),
          playedAt: at,
        })
        .run();
    await play(made[0].slug, now - 60_000);
    await play(made[0].slug, now - 3_600_000);
    await play(made[2].slug, now - 10_000);
    const res = await discover(`q=${t}&sort=activity`);
    expect(slugs(res)).toEqual([made[2].slug, made[0].slug, made[1].slug]);
    expect(res.body.data[0].lastPlayedAt).toBe(new Date(now - 10_000).toISOString());
    expect(res.body.data[2].lastPlayedAt).toBeNull();
    // Newest: creation order, latest first.
    expect(slugs(await discover(`q=${t}&sort=newest`))).toEqual(
      [...made].reverse().map((r) => r.slug),
    );
  });
});

describe("what a card shows", () => {
  it("the song playing and its DJ", async () => {
    const t = tag();
    const { made } = await roomsTagged(t, [{}]);
    await djPlaying(made[0].uuid);
    const [card] = (await discover(`q=${t}`)).body.data;
    expect(card.song).toMatchObject({ trackName: expect.any(String), djUuid: expect.any(String) });
    expect(card.song.djName).toEqual(expect.any(String));
    expect(card.numberOfActiveDjs).toBe(1);
  });

  it("the caller's friends in the room, by name; strangers and anonymous callers see none", async () => {
    const t = tag();
    const { made } = await roomsTagged(t, [{}, {}]);
    const me = await signUp();
    const friend = await signUp({ nickname: `Friend ${t}` });
    const stranger = await signUp();
    await befriend(me, friend);
    sockets.push(await connect(made[0].uuid, { uuid: friend.uuid, token: friend.token }));
    sockets.push(await connect(made[0].uuid, { uuid: stranger.uuid, token: stranger.token }));
    sockets.push(await connect(made[1].uuid, { uuid: stranger.uuid, token: stranger.token }));

    const mine = await discover(`q=${t}`, me.token);
    const [full, other] = mine.body.data;
    expect(full.slug).toBe(made[0].slug);
    expect(full.numberOfUsersInRoom).toBe(2);
    expect(full.friendInRoomUuids).toEqual([friend.uuid]);
    expect(full.friendsInRoom).toEqual([
      expect.objectContaining({ uuid: friend.uuid, nickname: `Friend ${t}` }),
    ]);
    expect(other.friendInRoomUuids).toEqual([]);
    // Friendship is both ways: the friend sees me once I am in.
    sockets.push(await connect(made[1].uuid, { uuid: me.uuid, token: me.token }));
    const theirs = await discover(`q=${t}`, friend.token);
    expect(theirs.body.data.find((r: any) => r.slug === made[1].slug).friendInRoomUuids).toEqual([
      me.uuid,
    ]);
    // Nobody signed in, or a guest: no friends anywhere.
    for (const token of [undefined, await guestToken()]) {
      const anon = await discover(`q=${t}`, token);
      expect(anon.status).toBe(200);
      expect(anon.body.data.every((r: any) => r.friendInRoomUuids.length === 0)).toBe(true);
    }
    // Someone else's token cannot be claimed: a forged one is a 401, not someone's friends.
    expect((await discover(`q=${t}`, `${me.token}x`)).status).toBe(401);
  });
});

describe("bounds", () => {
  it.each([
    ["limit=0", "limit must be at least 1"],
    ["limit=49", "limit must be at most 48"],
    ["limit=ten", "limit must be a number"],
    ["offset=-1", "offset must not be negative"],
    ["offset=1001", "offset must be at most 1000"],
    [`q=${"a".repeat(101)}`, "q must be at most 100 characters"],
    ["sort=loudest", "sort must be one of listeners, activity, newest"],
    ["genre=polka", "genre must be one of"],
    ["design=CASTLE", "design must be one of"],
  ])("%s is a 400 that says why", async (query, message) => {
    const res = await discover(query);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(message);
  });

  it("a listeners page past the ranked pool is empty, not a fan-out to every room", async () => {
    // 61 listed rooms straight in D1 (no object pushed): past the pool of 60.
    const t = tag();
    for (let i = 0; i < 61; i++)
      await db(env)
        .insert(rooms)
        .values({
          uuid: crypto.randomUUID(),
          slug: `${t}-${i}`,
          name: `${t} ${i}`,
          ownerUuid: crypto.randomUUID(),
        })
        .run();
    const newest = await discover(`q=${t}&sort=newest&offset=60&limit=48`);
    expect(newest.body.data).toHaveLength(1);
    const res = await discover(`q=${t}&sort=listeners&offset=60&limit=48`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body).toMatchObject({ offset: 60, total: 61 });
    expect(LISTENER_POOL).toBe(60);
  });

  it("an empty q is no filter, and the default page holds at most 24 rooms", async () => {
    const t = tag();
    await roomsTagged(t, [{}]);
    const res = await discover("q=%20%20&sort=newest");
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.length).toBeLessThanOrEqual(24);
  });
});

describe("floods", () => {
  it("one network gets 120 searches a minute; the next is a 429 that says why, other networks go on", async () => {
    const ip = uniqueIp();
    const results = await Promise.all(
      Array.from({ length: 121 }, () => room("/rooms/discover?sort=newest&limit=1", { ip })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(120);
    const refused = results.find((r) => r.status === 429)!;
    expect(JSON.stringify(refused.body)).toContain("Too many room searches");
    expect((await room("/rooms/discover?limit=1", { ip: uniqueIp() })).status).toBe(200);
  });
});
