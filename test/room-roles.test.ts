import { env } from "cloudflare:test";
import { getServerByName } from "partyserver";
import { describe, expect, it, vi } from "vitest";
import type { RoomState } from "../shared/protocol";
import { accountWithRoles, admin, guestToken, signUp, type TestAccount } from "./helpers";
import { ApiError } from "../workers/lib/errors";
import { onObject } from "../workers/room-service/room-moderation";
import { connect, person } from "./room-helpers";
import { createRoom, room } from "./room-service-helpers";

/** The object's own state, to prove a role really reached it. */
async function liveRoles(uuid: string) {
  const state = (await (await getServerByName(env.Room, uuid)).getState()) as unknown as RoomState;
  return state.settings.roomRoles;
}

const grant = (who: TestAccount, roomId: string, body: Record<string, unknown>) =>
  room(`/roomUserRoles/${roomId}`, { token: who.token, body });
const remove = (who: TestAccount, roomId: string, body: Record<string, unknown>) =>
  room(`/roomUserRoles/${roomId}`, { method: "DELETE", token: who.token, body });

/** A room, its owner, and a moderator and co-owner granted by the owner. */
async function staffedRoom() {
  const owner = await signUp();
  const r = await createRoom(owner);
  const [mod, coOwner, target] = await Promise.all([signUp(), signUp(), signUp()]);
  expect((await grant(owner, r.uuid, { userUuid: mod.uuid, role: "moderator" })).status).toBe(201);
  expect((await grant(owner, r.uuid, { userUuid: coOwner.uuid, role: "coOwner" })).status).toBe(
    201,
  );
  return { owner, r, mod, coOwner, target };
}

async function moderationEvent(userUuid: string, actionType: string) {
  return vi.waitFor(
    async () => {
      const rows = await env.DB.prepare(
        "select data from audit_events where topic = 'room.moderation'",
      ).all<{ data: string }>();
      const hit = rows.results
        .map((x) => JSON.parse(x.data))
        .find((d) => d.userUuid === userUuid && d.actionType === actionType);
      if (!hit) throw new Error(`no ${actionType} event for ${userUuid} yet`);
      return hit;
    },
    { timeout: 5000, interval: 50 },
  );
}

describe("POST and DELETE /roomUserRoles/{roomId}", () => {
  it("the owner bans a user: 201 UserRoles, the object lists it, an audit event; DELETE lifts it", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const u = await signUp();
    const res = await grant(owner, r.slug, { userUuid: u.uuid, role: "banned" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      roomId: r.id,
      userUuid: u.uuid,
      role: "banned",
      expirationTime: null,
    });
    expect(await liveRoles(r.uuid)).toContainEqual({
      userUuid: u.uuid,
      role: "banned",
      expirationTime: null,
    });
    expect(await moderationEvent(u.uuid, "banUser")).toMatchObject({
      role: "banned",
      previousRole: null,
      roomUuid: r.uuid,
    });

    const list = await room(`/roomUserRoles/${r.id}`, { token: u.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({ userUuid: u.uuid, role: "banned", roomId: r.id }),
    ]);
    const mine = await room(`/roomUserRoles/${r.uuid}/${u.uuid}`, { token: await guestToken() });
    expect(mine.status).toBe(200);
    expect(mine.body.map((x: { role: string }) => x.role)).toEqual(["banned"]);

    const del = await remove(owner, r.uuid, { userUuid: u.uuid, role: "banned" });
    expect(del.status).toBe(200);
    expect(await liveRoles(r.uuid)).not.toContainEqual(
      expect.objectContaining({ userUuid: u.uuid }),
    );
    expect(await moderationEvent(u.uuid, "removeRole")).toMatchObject({
      role: "banned",
      roomUuid: r.uuid,
    });
    expect((await remove(owner, r.uuid, { userUuid: u.uuid, role: "banned" })).status).toBe(404);
  });

  it("a timed ban is a temporaryBan with its expiry; a kicked role without one lasts 5 minutes", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const u = await signUp();
    const until = Date.now() + 3600_000;
    const res = await grant(owner, r.uuid, {
      userUuid: u.uuid,
      role: "banned",
      expirationTime: new Date(until).toISOString(),
    });
    expect(res.status).toBe(201);
    expect(res.body.expirationTime).toBe(new Date(until).toISOString());
    expect(await liveRoles(r.uuid)).toContainEqual({
      userUuid: u.uuid,
      role: "banned",
      expirationTime: until,
    });
    expect(await moderationEvent(u.uuid, "temporaryBan")).toMatchObject({ expirationTime: until });
    const kick = await grant(owner, r.uuid, { userUuid: u.uuid, role: "kicked" });
    expect(Date.parse(kick.body.expirationTime) - Date.now()).toBeGreaterThan(4 * 60_000);
  });

  it("400 for a bad role, owner as a role, a past expiry, a bad uuid; 404 for an unknown room or user", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const u = await signUp();
    for (const [body, field] of [
      [{ userUuid: u.uuid, role: "admin" }, "role"],
      [{ userUuid: u.uuid, role: "owner" }, "change-owner"],
      [{ userUuid: u.uuid, role: "dj", expirationTime: Date.now() - 1000 }, "future"],
      [{ userUuid: u.uuid, role: "dj", expirationTime: "tomorrow" }, "expirationTime"],
      [{ userUuid: "nope", role: "dj" }, "userUuid"],
    ] as const) {
      const res = await grant(owner, r.uuid, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body.message)).toContain(field);
    }
    expect((await remove(owner, r.uuid, { userUuid: u.uuid, role: "superUser" })).status).toBe(400);
    expect((await grant(owner, "no-such-room-here", { userUuid: u.uuid, role: "dj" })).status).toBe(
      404,
    );
    expect((await grant(owner, r.uuid, { userUuid: crypto.randomUUID(), role: "dj" })).status).toBe(
      404,
    );
    expect((await room(`/roomUserRoles/${r.uuid}/not-a-uuid`, { token: owner.token })).status).toBe(
      400,
    );
  });

  it("401 without a token on every call", async () => {
    const r = await createRoom(await signUp());
    const body = { userUuid: crypto.randomUUID(), role: "dj" };
    expect((await room(`/roomUserRoles/${r.uuid}`)).status).toBe(401);
    expect((await room(`/roomUserRoles/${r.uuid}/${body.userUuid}`)).status).toBe(401);
    expect((await room(`/roomUserRoles/${r.uuid}`, { body })).status).toBe(401);
    expect((await room(`/roomUserRoles/${r.uuid}`, { method: "DELETE", body })).status).toBe(401);
    expect(
      (
        await room("/roomUserRoles/kick-user-from-room", {
          body: { roomId: r.uuid, userUuid: body.userUuid },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await room(`/roomUserRoles/change-owner/${r.uuid}`, {
          method: "PUT",
          body: { newOwnerUuid: body.userUuid },
        })
      ).status,
    ).toBe(401);
    expect(
      (await room("/roomUserRoles/no-dancefloor-users", { body: { roomIds: [r.uuid] } })).status,
    ).toBe(401);
  });

  it("403: a plain user; a moderator against the owner, a co-owner or a moderator, or granting moderator; nobody bans the owner", async () => {
    const { owner, r, mod, coOwner, target } = await staffedRoom();
    const plain = await signUp();
    expect((await grant(plain, r.uuid, { userUuid: target.uuid, role: "dj" })).status).toBe(403);
    expect((await remove(plain, r.uuid, { userUuid: mod.uuid, role: "moderator" })).status).toBe(
      403,
    );
    const refusals: [Record<string, unknown>, string][] = [
      [{ userUuid: owner.uuid, role: "chatDisabled" }, "owner, co-owners or other moderators"],
      [{ userUuid: coOwner.uuid, role: "banned" }, "owner, co-owners or other moderators"],
      [{ userUuid: target.uuid, role: "moderator" }, "Moderators can only"],
      [{ userUuid: target.uuid, role: "coOwner" }, "Moderators can only"],
    ];
    for (const [body, message] of refusals) {
      const res = await grant(mod, r.uuid, body);
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body.message).toContain(message);
    }
    expect((await remove(mod, r.uuid, { userUuid: coOwner.uuid, role: "coOwner" })).status).toBe(
      403,
    );
    expect(
      (await grant(coOwner, r.uuid, { userUuid: owner.uuid, role: "djDisabled" })).status,
    ).toBe(403);
    const staff = await accountWithRoles(["user", "globalModerator"]);
    for (const who of [owner, staff])
      expect(
        (await grant(who, r.uuid, { userUuid: owner.uuid, role: "banned" })).body.message,
      ).toBe("The room's owner cannot be banned or kicked.");
    expect(await liveRoles(r.uuid)).not.toContainEqual(
      expect.objectContaining({ userUuid: owner.uuid }),
    );
  });

  it("allowed: a moderator mutes a plain user, a co-owner makes a moderator, platform staff make a co-owner", async () => {
    const { r, mod, coOwner, target } = await staffedRoom();
    expect((await grant(mod, r.uuid, { userUuid: target.uuid, role: "chatDisabled" })).status).toBe(
      201,
    );
    expect(
      (await remove(mod, r.uuid, { userUuid: target.uuid, role: "chatDisabled" })).status,
    ).toBe(200);
    expect(
      (await grant(coOwner, r.uuid, { userUuid: target.uuid, role: "moderator" })).status,
    ).toBe(201);
    const staff = await accountWithRoles(["user", "globalModerator"]);
    expect((await grant(staff, r.uuid, { userUuid: target.uuid, role: "coOwner" })).status).toBe(
      201,
    );
    const roles = (await liveRoles(r.uuid))
      .filter((x) => x.userUuid === target.uuid)
      .map((x) => x.role);
    expect(roles.sort()).toEqual(["coOwner", "moderator"]);
    expect(await moderationEvent(target.uuid, "grantRole")).toMatchObject({ roomUuid: r.uuid });
  });
});

describe("POST /roomUserRoles/kick-user-from-room", () => {
  it("a kicked user's open socket is closed by the object (liveKick)", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    expect((await room(`/rooms/${r.uuid}/join`, { token: owner.token, body: {} })).status).toBe(
      200,
    );
    const p = await person();
    const ws = await connect(r.uuid, p);
    const res = await room("/roomUserRoles/kick-user-from-room", {
      token: owner.token,
      body: { roomId: r.uuid, userUuid: p.uuid, reason: "bye" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ liveKick: true, wasPresent: true });
    await ws.closed;
  });

  it("a moderator kicks a user present in the room; refused against the owner; 400 for a long reason", async () => {
    const { owner, r, mod, target } = await staffedRoom();
    const res = await room("/roomUserRoles/kick-user-from-room", {
      token: mod.token,
      body: { roomId: r.id, userUuid: target.uuid, reason: "spam" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ roomUuid: r.uuid, userUuid: target.uuid, kicked: true });
    // Either way (the object's kickUser, or the fallback role) the user is kept out for a while.
    expect(await liveRoles(r.uuid)).toContainEqual(
      expect.objectContaining({ userUuid: target.uuid, role: "kicked" }),
    );
    expect(
      (
        await room("/roomUserRoles/kick-user-from-room", {
          token: mod.token,
          body: { roomId: r.id, userUuid: mod.uuid },
        })
      ).body.message,
    ).toBe("You cannot kick yourself.");
    expect(await moderationEvent(target.uuid, "kickUser")).toMatchObject({
      role: "kicked",
      reason: "spam",
    });
    expect(
      (
        await room("/roomUserRoles/kick-user-from-room", {
          token: mod.token,
          body: { roomId: r.id, userUuid: owner.uuid },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await room("/roomUserRoles/kick-user-from-room", {
          token: (await signUp()).token,
          body: { roomId: r.id, userUuid: target.uuid },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await room("/roomUserRoles/kick-user-from-room", {
          token: mod.token,
          body: { roomId: r.id, userUuid: target.uuid, reason: "x".repeat(301) },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await room("/roomUserRoles/kick-user-from-room", {
          token: mod.token,
          body: { roomId: r.id, userUuid: crypto.randomUUID() },
        })
      ).status,
    ).toBe(404);
  });
});

describe("PUT /roomUserRoles/change-owner/{roomId}", () => {
  it("the owner hands over: D1 and the object's settings name the new owner; the old owner is then refused", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const next = await signUp();
    const res = await room(`/roomUserRoles/change-owner/${r.uuid}`, {
      method: "PUT",
      token: owner.token,
      body: { newOwnerUuid: next.uuid },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uuid: r.uuid, ownerUuid: next.uuid });
    const state = (await (
      await getServerByName(env.Room, r.uuid)
    ).getState()) as unknown as RoomState;
    expect(state.settings.ownerUuid).toBe(next.uuid);
    expect(
      (
        await room(`/roomUserRoles/change-owner/${r.uuid}`, {
          method: "PUT",
          token: owner.token,
          body: { newOwnerUuid: owner.uuid },
        })
      ).status,
    ).toBe(403);
    expect(await moderationEvent(next.uuid, "grantRole")).toMatchObject({
      role: "owner",
      previousOwnerUuid: owner.uuid,
    });
  });

  it("an admin may; 400 same owner or bad uuid; 404 unknown user; 409 a banned new owner", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const a = await admin();
    const put = (body: unknown) =>
      room(`/roomUserRoles/change-owner/${r.uuid}`, { method: "PUT", token: a.token, body });
    expect((await put({ newOwnerUuid: owner.uuid })).status).toBe(400);
    expect((await put({ newOwnerUuid: "x" })).status).toBe(400);
    expect((await put({ newOwnerUuid: crypto.randomUUID() })).status).toBe(404);
    const banned = await signUp();
    expect((await grant(owner, r.uuid, { userUuid: banned.uuid, role: "banned" })).status).toBe(
      201,
    );
    expect((await put({ newOwnerUuid: banned.uuid })).status).toBe(409);
    const next = await signUp();
    expect((await put({ newOwnerUuid: next.uuid })).body.ownerUuid).toBe(next.uuid);
  });
});

describe("POST /roomUserRoles/no-dancefloor-users", () => {
  it("lists the present users who are not DJs, per room; unknown rooms are left out; 400 for an empty list", async () => {
    const owner = await signUp();
    const r = await createRoom(owner);
    const empty = await createRoom(owner);
    expect((await room(`/rooms/${r.uuid}/join`, { token: owner.token, body: {} })).status).toBe(
      200,
    );
    const listener = await person();
    const ws = await connect(r.uuid, listener);
    const res = await room("/roomUserRoles/no-dancefloor-users", {
      token: owner.token,
      body: { roomIds: [r.uuid, empty.id, "no-such-room-here"] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { roomId: r.id, roomUuid: r.uuid, slug: r.slug, userUuids: [listener.uuid], live: true },
      { roomId: empty.id, roomUuid: empty.uuid, slug: empty.slug, userUuids: [], live: true },
    ]);
    ws.close();
    await ws.closed;
    expect(
      (
        await room("/roomUserRoles/no-dancefloor-users", {
          token: owner.token,
          body: { roomIds: [] },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await room("/roomUserRoles/no-dancefloor-users", {
          token: owner.token,
          body: { roomIds: "x" },
        })
      ).status,
    ).toBe(400);
  });
});

describe("an object that fails", () => {
  it("is a 503 with a message, never a 500", async () => {
    const r = await createRoom(await signUp());
    const row = { ...r, createdAt: 0, updatedAt: 0 } as never;
    const err = await onObject(env, row, "setRole", async () => {
      throw new Error("Durable Object reset because its code was updated.");
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 503,
      message: "The live room is not reachable right now; please try again.",
    });
  });
});
