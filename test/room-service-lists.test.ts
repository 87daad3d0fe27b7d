import { env } from "cloudflare:test";
import { getServerByName } from "partyserver";
import { describe, expect, it } from "vitest";
import type { RoomState } from "../shared/protocol";
import { admin, guestToken, signUp } from "./helpers";
import { account, connect } from "./room-helpers";
import { createRoom, room } from "./room-service-helpers";

const SERVICE = { "X-Service-Key": "test-service-key" };
const guild = () => String(Math.floor(Math.random() * 1e17) + 1e17);

describe("Discord guild rooms", () => {
  it("the owner binds a room to a guild; the guild's list shows it with live counts", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const g = guild();
    const res = await room(`/rooms/discord/${g}`, { token: owner.token, body: { roomId: r.slug } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uuid: r.uuid, discordGuildId: g });
    const list = await room(`/rooms/discord/list/${g}`, { token: await guestToken() });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([expect.objectContaining({ uuid: r.uuid, numberOfUsersInRoom: 0 })]);
    expect((await room(`/rooms/discord/list/${guild()}`, { token: owner.token })).body).toEqual([]);
  });

  it("an admin may bind any room; 403 another user; 400 a bad guild or roomId; 404 unknown room; 401 without a token", async () => {
    const r = await createRoom(await signUp());
    const g = guild();
    expect(
      (await room(`/rooms/discord/${g}`, { token: (await admin()).token, body: { roomId: r.id } }))
        .status,
    ).toBe(200);
    expect(
      (await room(`/rooms/discord/${g}`, { token: (await signUp()).token, body: { roomId: r.id } }))
        .status,
    ).toBe(403);
    const owner = await signUp();
    const mine = await createRoom(owner);
    expect(
      (await room("/rooms/discord/abc", { token: owner.token, body: { roomId: mine.id } })).status,
    ).toBe(400);
    expect(
      (await room(`/rooms/discord/${g}`, { token: owner.token, body: { roomId: -3 } })).status,
    ).toBe(400);
    expect((await room(`/rooms/discord/${g}`, { token: owner.token, body: {} })).status).toBe(400);
    expect(
      (
        await room(`/rooms/discord/${g}`, {
          token: owner.token,
          body: { roomId: "no-such-room-here" },
        })
      ).status,
    ).toBe(404);
    expect((await room("/rooms/discord/list/abc", { token: owner.token })).status).toBe(400);
    expect((await room(`/rooms/discord/${g}`, { body: { roomId: mine.id } })).status).toBe(401);
    expect((await room(`/rooms/discord/list/${g}`)).status).toBe(401);
  });
});

describe("service reads", () => {
  it("with the service key or an admin's token: the list pages, one room, its present users", async () => {
    const owner = await signUp();
    const r = await createRoom(owner, { type: "PRIVATE", password: "pw-123456" });
    const page = await room("/rooms/service/list?take=1&skip=0", { headers: SERVICE });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ take: 1, skip: 0, data: [expect.any(Object)] });
    expect(page.body.total).toBeGreaterThanOrEqual(1);
    const all = await room(`/rooms/service/list?take=100&skip=${page.body.total - 1}`, {
      token: (await admin()).token,
    });
    expect(all.body.data.map((x: { uuid: string }) => x.uuid)).toContain(r.uuid);
    const one = await room(`/rooms/service/room/${r.slug}`, { headers: SERVICE });
    expect(one.body).toMatchObject({ uuid: r.uuid, type: "PRIVATE", isPasswordProtected: true });
    expect(one.body).not.toHaveProperty("passwordHash");

    expect((await room(`/rooms/${r.uuid}/join`, { token: owner.token, body: {} })).status).toBe(
      200,
    );
    const p = await account();
    // A protected room is entered through the join (password checked), then the socket shows its ticket.
    const joined = await room(`/rooms/${r.uuid}/join`, {
      token: p.token,
      body: { password: "pw-123456" },
    });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    const ws = await connect(r.uuid, p, joined.body.ticket);
    const users = await room(`/rooms/users/service/${r.id}`, { headers: SERVICE });
    expect(users.body).toEqual({
      roomUuid: r.uuid,
      usersInRoomUuids: [p.uuid],
      numberOfUsersInRoom: 1,
    });
    ws.close();
    await ws.closed;
  });

  it("400 bad paging or id; 404 unknown room; 401 no key or a wrong key; 403 a plain user", async () => {
    for (const q of ["take=0", "take=101", "skip=-1", "take=abc"])
      expect((await room(`/rooms/service/list?${q}`, { headers: SERVICE })).status, q).toBe(400);
    expect((await room(`/rooms/service/room/${"x".repeat(65)}`, { headers: SERVICE })).status).toBe(
      400,
    );
    expect((await room("/rooms/service/room/no-such-room-here", { headers: SERVICE })).status).toBe(
      404,
    );
    expect(
      (await room("/rooms/users/service/no-such-room-here", { headers: SERVICE })).status,
    ).toBe(404);
    for (const path of ["/rooms/service/list", "/rooms/service/room/1", "/rooms/users/service/1"]) {
      expect((await room(path)).status, path).toBe(401);
      expect((await room(path, { headers: { "X-Service-Key": "wrong" } })).status, path).toBe(401);
      expect((await room(path, { token: (await signUp()).token })).status, path).toBe(403);
    }
  });
});

describe("an admin's calls on all of a user's rooms", () => {
  it("PATCH /rooms/user/{userId} moves every room to the new owner, D1 and the objects", async () => {
    const from = await signUp();
    const to = await signUp();
    const [r1, r2] = [await createRoom(from), await createRoom(from)];
    const res = await room(`/rooms/user/${from.uuid}`, {
      method: "PATCH",
      token: (await admin()).token,
      body: { ownerUuid: to.uuid },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ fromUuid: from.uuid, ownerUuid: to.uuid, moved: 2 });
    for (const r of [r1, r2]) {
      expect((await room(`/rooms/${r.uuid}`)).body.ownerUuid).toBe(to.uuid);
      const state = (await (
        await getServerByName(env.Room, r.uuid)
      ).getState()) as unknown as RoomState;
      expect(state.settings.ownerUuid).toBe(to.uuid);
    }
    const owned = await room("/rooms/owned-rooms/list", { token: to.token });
    expect(owned.status).toBe(200);
  });

  it("DELETE /rooms/user/{userId} deletes every room the user owns (by numeric id too), and resets them", async () => {
    const u = await signUp();
    const [r1, r2] = [await createRoom(u), await createRoom(u)];
    const keep = await createRoom(await signUp());
    const res = await room(`/rooms/user/${u.id}`, {
      method: "DELETE",
      token: (await admin()).token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ userUuid: u.uuid, deleted: 2 });
    expect(res.body.rooms.map((x: { uuid: string }) => x.uuid).sort()).toEqual(
      [r1.uuid, r2.uuid].sort(),
    );
    expect(res.body.rooms.every((x: { liveRoomReset: boolean }) => x.liveRoomReset)).toBe(true);
    expect((await room(`/rooms/${r1.uuid}`)).status).toBe(404);
    expect((await room(`/rooms/${keep.uuid}`)).status).toBe(200);
    const again = await room(`/rooms/user/${u.uuid}`, {
      method: "DELETE",
      token: (await admin()).token,
    });
    expect(again.body).toMatchObject({ deleted: 0, rooms: [] });
  });

  it("400 bad ids or the same owner; 404 unknown new owner or numeric user; 401; 403 for the owner themself", async () => {
    const u = await signUp();
    await createRoom(u);
    const a = await admin();
    const patch = (id: string, body: unknown, token = a.token) =>
      room(`/rooms/user/${id}`, { method: "PATCH", token, body });
    expect((await patch("not-a-user", { ownerUuid: u.uuid })).status).toBe(400);
    expect((await patch(u.uuid, { ownerUuid: "x" })).status).toBe(400);
    expect((await patch(u.uuid, { ownerUuid: u.uuid })).status).toBe(400);
    expect((await patch(u.uuid, { ownerUuid: crypto.randomUUID() })).status).toBe(404);
    expect((await patch("999999999", { ownerUuid: u.uuid })).status).toBe(404);
    expect(
      (await room("/rooms/user/not-a-user", { method: "DELETE", token: a.token })).status,
    ).toBe(400);
    expect((await room(`/rooms/user/${u.uuid}`, { method: "DELETE" })).status).toBe(401);
    expect((await patch(u.uuid, { ownerUuid: a.uuid }, "")).status).toBe(401);
    expect((await room(`/rooms/user/${u.uuid}`, { method: "DELETE", token: u.token })).status).toBe(
      403,
    );
    expect((await patch(u.uuid, { ownerUuid: a.uuid }, u.token)).status).toBe(403);
    expect((await room("/rooms/owned-rooms/list", { token: u.token })).body).toHaveLength(1);
  });
});
