import { env } from "cloudflare:test";
import { getServerByName } from "partyserver";
import { describe, expect, it } from "vitest";
import { Room } from "../durable/room";
import { admin, signUp } from "./helpers";
import { createRoom, room } from "./room-service-helpers";

/* eslint-disable @typescript-eslint/no-explicit-any */
const stub = async (uuid: string): Promise<any> => getServerByName(env.Room, uuid);
const noRpc = (m: string) => typeof (Room.prototype as any)[m] !== "function";

describe("live switches: PATCH /rooms/<switch>/{id}/infrastructure", () => {
  it.each([
    ["live-state", { isLive: false }],
    ["live-audio", { liveAudio: true }],
    ["dj-type", { djType: "VERIFIED_ONLY" }],
    ["dj-seats", { numberOfDjs: 2 }],
  ])("%s: the owner switches it and D1 has it", async (path, body) => {
    const a = await signUp();
    const r = await createRoom(a);
    const res = await room(`/rooms/${path}/${r.id}/infrastructure`, {
      method: "PATCH",
      token: a.token,
      body,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(body);
    expect((await room(`/rooms/${r.uuid}`)).body).toMatchObject(body);
  });

  it.each([
    ["dj-type", { djType: "ANYONE" }],
    ["dj-type", { djType: "everyone" }],
    ["dj-seats", { numberOfDjs: 0 }],
    ["dj-seats", { numberOfDjs: 11 }],
    ["dj-seats", { numberOfDjs: 2.5 }],
    ["live-state", { isLive: "yes" }],
    ["live-audio", {}],
    ["live-state", { isLive: true, promoted: true }],
  ])("%s: 400 for %j, nothing written", async (path, body) => {
    const a = await signUp();
    const r = await createRoom(a);
    const res = await room(`/rooms/${path}/${r.id}/infrastructure`, {
      method: "PATCH",
      token: a.token,
      body,
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBeTruthy();
    expect((await room(`/rooms/${r.id}`)).body).toMatchObject({
      djType: "EVERYONE",
      numberOfDjs: 5,
      isLive: true,
      liveAudio: false,
      promoted: false,
    });
  });

  it("a stranger is 403, no token 401, an unknown room 404", async () => {
    const r = await createRoom(await signUp());
    expect(
      (
        await room(`/rooms/dj-seats/${r.id}/infrastructure`, {
          method: "PATCH",
          token: (await signUp()).token,
          body: { numberOfDjs: 1 },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await room(`/rooms/dj-seats/${r.id}/infrastructure`, {
          method: "PATCH",
          body: { numberOfDjs: 1 },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await room(`/rooms/dj-seats/no-such-room-x/infrastructure`, {
          method: "PATCH",
          token: (await admin()).token,
          body: { numberOfDjs: 1 },
        })
      ).status,
    ).toBe(404);
  });

  it("promote is admin only: the owner is 403, an admin promotes", async () => {
    const a = await signUp();
    const r = await createRoom(a);
    const byOwner = await room(`/rooms/promote/${r.id}/infrastructure`, {
      method: "PATCH",
      token: a.token,
      body: { promoted: true },
    });
    expect(byOwner.status).toBe(403);
    const res = await room(`/rooms/promote/${r.id}/infrastructure`, {
      method: "PATCH",
      token: (await admin()).token,
      body: { promoted: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.promoted).toBe(true);
  });

  it.skipIf(noRpc("applySettings") || noRpc("getState"))(
    "each switch reaches the live object at once",
    async () => {
      const a = await signUp();
      const r = await createRoom(a);
      await room(`/rooms/dj-type/${r.id}/infrastructure`, {
        method: "PATCH",
        token: a.token,
        body: { djType: "INVITE_ONLY" },
      });
      await room(`/rooms/dj-seats/${r.id}/infrastructure`, {
        method: "PATCH",
        token: a.token,
        body: { numberOfDjs: 3 },
      });
      await room(`/rooms/live-audio/${r.id}/infrastructure`, {
        method: "PATCH",
        token: a.token,
        body: { liveAudio: true },
      });
      const state = await (await stub(r.uuid)).getState();
      expect(state.settings).toMatchObject({
        uuid: r.uuid,
        djType: "INVITE_ONLY",
        numberOfDjs: 3,
        liveAudio: true,
        ownerUuid: a.uuid,
      });
    },
  );

  it.skipIf(noRpc("setRole") || noRpc("getState"))(
    "a co-owner (a role in the object) may edit and switch; a moderator may pin but not edit",
    async () => {
      const a = await signUp();
      const co = await signUp();
      const mod = await signUp();
      const r = await createRoom(a);
      const s = await stub(r.uuid);
      await s.setRole(co.uuid, "coOwner", null);
      await s.setRole(mod.uuid, "moderator", null);
      expect(
        (await room(`/rooms/${r.id}`, { method: "PATCH", token: co.token, body: { vibe: "co" } }))
          .status,
      ).toBe(200);
      expect(
        (
          await room(`/rooms/dj-seats/${r.id}/infrastructure`, {
            method: "PATCH",
            token: co.token,
            body: { numberOfDjs: 4 },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await room(`/rooms/${r.id}/infrastructure`, {
            method: "PATCH",
            token: co.token,
            body: { type: "PRIVATE" },
          })
        ).status,
      ).toBe(403);
      expect(
        (await room(`/rooms/${r.id}`, { method: "PATCH", token: mod.token, body: { vibe: "mod" } }))
          .status,
      ).toBe(403);
      expect(
        (
          await room(`/rooms/${r.id}/pinned-messages`, {
            token: mod.token,
            body: { message: "hello" },
          })
        ).status,
      ).toBe(201);
    },
  );
});

describe("admin rooms", () => {
  it("GET /admin/rooms: crud query, RoomDtos, no password columns; plain users 403, no token 401", async () => {
    const a = await signUp();
    const r = await createRoom(a, { design: "STADIUM", password: "x" });
    const ad = await admin();
    const res = await room(
      `/admin/rooms?filter=ownerUuid||$eq||${a.uuid}&sort=createdAt,DESC&limit=10`,
      { token: ad.token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 1, total: 1, page: 1, pageCount: 1 });
    expect(res.body.data[0]).toMatchObject({
      uuid: r.uuid,
      design: "STADIUM",
      isPasswordProtected: true,
    });
    expect(res.body.data[0]).not.toHaveProperty("passwordHash");
    expect(
      (await room(`/admin/rooms?filter=passwordHash||$notnull`, { token: ad.token })).status,
    ).toBe(400);
    expect((await room(`/admin/rooms?sort=nope,DESC`, { token: ad.token })).status).toBe(400);
    expect((await room(`/admin/rooms`, { token: a.token })).status).toBe(403);
    expect((await room(`/admin/rooms`)).status).toBe(401);
  });

  it("GET /admin/rooms/{id}: private rooms too; 404; 403 for a plain user", async () => {
    const a = await signUp();
    const r = await createRoom(a, { type: "PRIVATE" });
    const ad = await admin();
    expect((await room(`/admin/rooms/${r.uuid}`, { token: ad.token })).body).toMatchObject({
      uuid: r.uuid,
      type: "PRIVATE",
    });
    expect((await room(`/admin/rooms/999999`, { token: ad.token })).status).toBe(404);
    expect((await room(`/admin/rooms/${r.id}`, { token: a.token })).status).toBe(403);
  });

  it("PATCH /rooms/admin/{id}: any field, ownership too; enums checked; 403 for the owner", async () => {
    const a = await signUp();
    const b = await signUp();
    const r = await createRoom(a);
    const ad = await admin();
    const res = await room(`/rooms/admin/${r.id}`, {
      method: "PATCH",
      token: ad.token,
      body: {
        promoted: true,
        ownerUuid: b.uuid,
        design: "THEATER",
        discordGuildId: "123456789012345678",
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      promoted: true,
      ownerUuid: b.uuid,
      design: "THEATER",
      discordGuildId: "123456789012345678",
    });
    expect(
      (
        await room(`/rooms/admin/${r.id}`, {
          method: "PATCH",
          token: ad.token,
          body: { type: "HIDDEN" },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await room(`/rooms/admin/${r.id}`, {
          method: "PATCH",
          token: ad.token,
          body: { ownerUuid: "bob" },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await room(`/rooms/admin/${r.id}`, {
          method: "PATCH",
          token: b.token,
          body: { promoted: false },
        })
      ).status,
    ).toBe(403);
  });

  it("POST/DELETE /rooms/admin/guest-password: sets and clears the flag; 400 without a password; 403 for users", async () => {
    const a = await signUp();
    const r = await createRoom(a);
    const ad = await admin();
    const set = await room("/rooms/admin/guest-password", {
      token: ad.token,
      body: { roomId: r.uuid, guestPassword: "guests-only" },
    });
    expect(set.status).toBe(200);
    expect(set.body.isGuestPasswordProtected).toBe(true);
    expect(set.body).not.toHaveProperty("guestPassword");
    expect(
      (await room("/rooms/admin/guest-password", { token: ad.token, body: { roomId: r.uuid } }))
        .status,
    ).toBe(400);
    expect(
      (
        await room("/rooms/admin/guest-password", {
          token: a.token,
          body: { roomId: r.uuid, guestPassword: "x" },
        })
      ).status,
    ).toBe(403);
    const cleared = await room("/rooms/admin/guest-password", {
      method: "DELETE",
      token: ad.token,
      body: { roomId: r.id },
    });
    expect(cleared.body.isGuestPasswordProtected).toBe(false);
    expect(
      (
        await room("/rooms/admin/guest-password", {
          method: "DELETE",
          token: ad.token,
          body: { roomId: "no-such-room-q" },
        })
      ).status,
    ).toBe(404);
  });
});
