import { env } from "cloudflare:test";
import { getServerByName } from "partyserver";
import { describe, expect, it, vi } from "vitest";
import type { RoomState } from "../shared/protocol";
import { admin, guestToken, signUp, type TestAccount } from "./helpers";
import { connect, seedQueue, takeSeat } from "./room-helpers";
import { createRoom, room } from "./room-service-helpers";

vi.setConfig({ testTimeout: 30_000 });

/**
 * The cometchat calls, the chat clear and the recently-visited list (issue 4, the `room`
 * lines of endpoints.txt; docs/DECISIONS.md "Rooms: chat without CometChat").
 */

const object = async (uuid: string) =>
  (await getServerByName(env.Room, uuid)) as unknown as {
    getState(): Promise<RoomState>;
    setRole(u: string, r: string, e: number | null): Promise<void>;
  };
const grant = (who: TestAccount, roomId: string, body: Record<string, unknown>) =>
  room(`/roomUserRoles/${roomId}`, { token: who.token, body });

describe("POST /roomUserRoles/cometchat/sync/{id}", () => {
  it("401 without a token, 404 for an unknown room, 400 for a bad body, 403 for a stranger or a moderator", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    expect(
      (await room(`/roomUserRoles/cometchat/sync/${r.uuid}`, { method: "POST", body: {} })).status,
    ).toBe(401);
    expect(
      (await room(`/roomUserRoles/cometchat/sync/no-such-room-x`, { token: owner.token, body: {} }))
        .status,
    ).toBe(404);
    const bad = await room(`/roomUserRoles/cometchat/sync/${r.uuid}`, {
      token: owner.token,
      body: { userUuids: "nope" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/userUuids must be a list/);
    const extra = await room(`/roomUserRoles/cometchat/sync/${r.uuid}`, {
      token: owner.token,
      body: { role: "owner" },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toMatch(/Unknown field\(s\): role/);
    const stranger = await signUp();
    const s = await room(`/roomUserRoles/cometchat/sync/${r.uuid}`, {
      token: stranger.token,
      body: {},
    });
    expect(s.status).toBe(403);
    expect(s.body.message).toBe(
      "Only the room's owner, co-owners and admins can sync the room's roles.",
    );
    const mod = await signUp();
    expect((await grant(owner, r.uuid, { userUuid: mod.uuid, role: "moderator" })).status).toBe(
      201,
    );
    expect(
      (await room(`/roomUserRoles/cometchat/sync/${r.uuid}`, { token: mod.token, body: {} }))
        .status,
    ).toBe(403);
    expect(
      (
        await room(`/roomUserRoles/cometchat/sync/${r.uuid}`, {
          token: await guestToken(),
          body: {},
        })
      ).status,
    ).toBe(403);
  });

  it("pushes D1's owner to the object (a stale owner row goes) and answers the roles it holds", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const [mod, coOwner, stale] = [await signUp(), await signUp(), await signUp()];
    expect((await grant(owner, r.uuid, { userUuid: mod.uuid, role: "moderator" })).status).toBe(
      201,
    );
    expect((await grant(owner, r.uuid, { userUuid: coOwner.uuid, role: "coOwner" })).status).toBe(
      201,
    );
    // An owner row D1 does not back (say, left by an owner change the object missed).
    await (await object(r.uuid)).setRole(stale.uuid, "owner", null);
    expect((await (await object(r.uuid)).getState()).settings.roomRoles).toContainEqual({
      userUuid: stale.uuid,
      role: "owner",
      expirationTime: null,
    });

    const res = await room(`/roomUserRoles/cometchat/sync/${r.slug}`, {
      token: coOwner.token,
      body: {},
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ roomId: r.id, roomUuid: r.uuid, synced: true });
    const held = res.body.roomRoles.map(
      (x: { userUuid: string; role: string }) => `${x.role}:${x.userUuid}`,
    );
    expect(held).toEqual(
      expect.arrayContaining([
        `moderator:${mod.uuid}`,
        `coOwner:${coOwner.uuid}`,
        `owner:${owner.uuid}`,
      ]),
    );
    expect(held).not.toContain(`owner:${stale.uuid}`);
    const live = (await (await object(r.uuid)).getState()).settings;
    expect(live.ownerUuid).toBe(owner.uuid);
    expect(live.roomRoles.filter((x) => x.role === "owner").map((x) => x.userUuid)).toEqual([
      owner.uuid,
    ]);

    // userUuids narrows the answer; an admin may sync too.
    const one = await room(`/roomUserRoles/cometchat/sync/${r.id}`, {
      token: (await admin()).token,
      body: { userUuids: [mod.uuid] },
    });
    expect(one.status).toBe(200);
    expect(one.body.roomRoles).toEqual([
      expect.objectContaining({ userUuid: mod.uuid, role: "moderator", roomId: r.id }),
    ]);
  });
});

describe("POST /roomUserRoles/cometchat/join/{id}", () => {
  it("records the membership once (201 then 200); 401, guests 403, banned 403, no chat 403", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const u = await signUp();
    expect((await room(`/roomUserRoles/cometchat/join/${r.uuid}`, { method: "POST" })).status).toBe(
      401,
    );
    expect(
      (
        await room(`/roomUserRoles/cometchat/join/${r.uuid}`, {
          method: "POST",
          token: await guestToken(),
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await room(`/roomUserRoles/cometchat/join/${"x".repeat(80)}`, {
          method: "POST",
          token: u.token,
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await room(`/roomUserRoles/cometchat/join/no-such-room-y`, {
          method: "POST",
          token: u.token,
        })
      ).status,
    ).toBe(404);

    const first = await room(`/roomUserRoles/cometchat/join/${r.uuid}`, {
      method: "POST",
      token: u.token,
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      roomUuid: r.uuid,
      userUuid: u.uuid,
      members: 1,
      joinedAt: expect.any(String),
    });
    const again = await room(`/roomUserRoles/cometchat/join/${r.slug}`, {
      method: "POST",
      token: u.token,
    });
    expect(again.status).toBe(200);
    expect(again.body.joinedAt).toBe(first.body.joinedAt);
    expect(
      (await room(`/roomUserRoles/cometchat/join/${r.id}`, { method: "POST", token: owner.token }))
        .body.members,
    ).toBe(2);

    const banned = await signUp();
    expect((await grant(owner, r.uuid, { userUuid: banned.uuid, role: "banned" })).status).toBe(
      201,
    );
    const b = await room(`/roomUserRoles/cometchat/join/${r.uuid}`, {
      method: "POST",
      token: banned.token,
    });
    expect(b.status).toBe(403);
    expect(b.body.message).toBe("You are banned from this room.");

    const quiet = await createRoom(owner, { hasChat: false });
    const q = await room(`/roomUserRoles/cometchat/join/${quiet.uuid}`, {
      method: "POST",
      token: u.token,
    });
    expect(q.status).toBe(403);
    expect(q.body.message).toBe("Chat is turned off in this room.");
  });

  it("a password-protected room's chat is joined only after the room's own join", async () => {
    const owner = await signUp();
    const r = await createRoom(owner, { password: "secret-pass" });
    const u = await signUp();
    const refused = await room(`/roomUserRoles/cometchat/join/${r.uuid}`, {
      method: "POST",
      token: u.token,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/join the room before its chat/);
    expect(
      (await room(`/rooms/${r.uuid}/join`, { token: u.token, body: { password: "secret-pass" } }))
        .status,
    ).toBe(200);
    expect(
      (await room(`/roomUserRoles/cometchat/join/${r.uuid}`, { method: "POST", token: u.token }))
        .status,
    ).toBe(201);
    expect(
      (
        await room(`/roomUserRoles/cometchat/join/${r.uuid}`, {
          method: "POST",
          token: owner.token,
        })
      ).status,
    ).toBe(201);
  });
});

describe("DELETE /rooms/conversation/{id}", () => {
  it("owner, moderator or admin clears the chat; every connected client sees it empty; others 403, no token 401", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const [mod, listener] = [await signUp(), await signUp()];
    expect((await grant(owner, r.uuid, { userUuid: mod.uuid, role: "moderator" })).status).toBe(
      201,
    );
    const o = await connect(r.uuid, owner);
    const l = await connect(r.uuid, listener);
    for (const text of ["one", "two", "three"])
      o.send({ action: "sendChat", message: text, clientId: text });
    await l.until((s) => s.chat.length === 3, "three lines");

    expect((await room(`/rooms/conversation/${r.uuid}`, { method: "DELETE" })).status).toBe(401);
    const no = await room(`/rooms/conversation/${r.uuid}`, {
      method: "DELETE",
      token: listener.token,
    });
    expect(no.status).toBe(403);
    expect(no.body.message).toBe(
      "Only the room's owner, co-owners, moderators and admins can clear the chat.",
    );
    expect(
      (await room(`/rooms/conversation/${r.uuid}`, { method: "DELETE", token: await guestToken() }))
        .status,
    ).toBe(403);
    expect(
      (await room(`/rooms/conversation/nope-nope-room`, { method: "DELETE", token: owner.token }))
        .status,
    ).toBe(404);
    expect(l.state!.chat).toHaveLength(3);

    const res = await room(`/rooms/conversation/${r.slug}`, { method: "DELETE", token: mod.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ roomUuid: r.uuid, cleared: true, removed: 3 });
    await l.until((s) => s.chat.length === 0, "chat cleared for the listener");
    await o.until((s) => s.chat.length === 0, "chat cleared for the owner");
    expect(l.frames().at(-1)!.name).toBe("updatedChat");
    expect(l.breaches).toEqual([]);
    expect((await (await object(r.uuid)).getState()).chat).toEqual([]);

    // Chat goes on afterwards; an admin may clear too (an empty chat clears 0).
    o.send({ action: "sendChat", message: "fresh", clientId: "f" });
    await l.until((s) => s.chat.length === 1);
    const byAdmin = await room(`/rooms/conversation/${r.id}`, {
      method: "DELETE",
      token: (await admin()).token,
    });
    expect(byAdmin.body).toMatchObject({ removed: 1 });
    await l.until((s) => s.chat.length === 0);
    o.close();
    l.close();
  });
});

describe("GET /rooms/rockset/recently-visited-rooms", () => {
  it("the caller's visits, newest first, with visitedAt and what plays; 401 without a token, 400 for a bad limit", async () => {
    const owner = await signUp();
    const [a, b, c] = [await createRoom(owner), await createRoom(owner), await createRoom(owner)];
    const me = await signUp();
    const other = await signUp();
    expect((await room(`/rooms/rockset/recently-visited-rooms`)).status).toBe(401);
    const guest = await room(`/rooms/rockset/recently-visited-rooms`, {
      token: await guestToken(),
    });
    expect(guest.status).toBe(403); // a guest has no visits of its own to list
    expect(guest.body.message).toMatch(/Guests cannot do this/);
    expect(
      (await room(`/rooms/rockset/recently-visited-rooms?limit=0`, { token: me.token })).status,
    ).toBe(400);
    expect(
      (await room(`/rooms/rockset/recently-visited-rooms?limit=abc`, { token: me.token })).status,
    ).toBe(400);
    expect((await room(`/rooms/rockset/recently-visited-rooms`, { token: me.token })).body).toEqual(
      { data: [], limit: 20, offset: 0 },
    );

    for (const x of [a, b, c]) {
      expect((await room(`/rooms/${x.uuid}/join`, { token: me.token, body: {} })).status).toBe(200);
      await new Promise((res) => setTimeout(res, 5)); // distinct visit times
    }
    expect(
      (await room(`/rooms/recent`, { token: me.token, body: { roomUuid: a.uuid } })).status,
    ).toBe(201); // a again: top
    expect((await room(`/rooms/${b.uuid}/join`, { token: other.token, body: {} })).status).toBe(
      200,
    );

    // A song playing in c shows on its entry, with the DJ's name.
    const dj = await signUp({ nickname: "djrockset" });
    await seedQueue(dj.uuid, 1, { trackName: "Visited Tune", artistName: "The Visitors" });
    const sock = await connect(c.uuid, dj);
    await takeSeat(sock, dj.uuid);
    await sock.until((s) => s.nowPlaying !== null, "a song playing");

    const res = await room(`/rooms/rockset/recently-visited-rooms`, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: { uuid: string }) => x.uuid)).toEqual([a.uuid, c.uuid, b.uuid]);
    expect(res.body.data[0]).toMatchObject({
      slug: a.slug,
      visitedAt: expect.any(String),
      song: null,
    });
    expect(Date.parse(res.body.data[0].visitedAt)).toBeGreaterThan(
      Date.parse(res.body.data[1].visitedAt),
    );
    expect(res.body.data[1].song).toMatchObject({
      trackName: "Visited Tune",
      artistName: "The Visitors",
      djUuid: dj.uuid,
      djName: "djrockset",
    });
    expect(res.body.data[1]).toMatchObject({ numberOfActiveDjs: 1, numberOfUsersInRoom: 1 });
    const page = await room(`/rooms/rockset/recently-visited-rooms?limit=1&offset=1`, {
      token: me.token,
    });
    expect(page.body).toMatchObject({ limit: 1, offset: 1 });
    expect(page.body.data.map((x: { uuid: string }) => x.uuid)).toEqual([c.uuid]);
    expect(
      (await room(`/rooms/rockset/recently-visited-rooms`, { token: other.token })).body.data.map(
        (x: { uuid: string }) => x.uuid,
      ),
    ).toEqual([b.uuid]);
    sock.close();
  });
});
