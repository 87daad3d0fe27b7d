import { env } from "cloudflare:test";
import { getServerByName } from "partyserver";
import { describe, expect, it } from "vitest";
import { Room } from "../durable/room";
import { admin, guestToken, signUp } from "./helpers";
import { createRoom, room } from "./room-service-helpers";

/* eslint-disable @typescript-eslint/no-explicit-any */
const noRpc = (m: string) => typeof (Room.prototype as any)[m] !== "function";

describe("public and promoted lists", () => {
  it("GET /rooms/public lists public, listed rooms only, with counts (0 when nobody is there)", async () => {
    const a = await signUp();
    const pub = await createRoom(a);
    const priv = await createRoom(a, { type: "PRIVATE" });
    const hidden = await createRoom(a, { unlisted: true });
    const res = await room("/rooms/public?limit=100&offset=0");
    expect(res.status).toBe(200);
    const uuids = res.body.data.map((r: any) => r.uuid);
    expect(uuids).toContain(pub.uuid);
    expect(uuids).not.toContain(priv.uuid);
    expect(uuids).not.toContain(hidden.uuid);
    expect(res.body).toMatchObject({ limit: 100, offset: 0, total: expect.any(Number) });
    expect(res.body.data.find((r: any) => r.uuid === pub.uuid)).toMatchObject({
      numberOfUsersInRoom: 0,
      usersInRoomUuids: [],
    });
    expect((await room("/rooms/public?limit=0")).status).toBe(400);
    expect((await room("/rooms/public?offset=-1")).status).toBe(400);
  });

  it("GET /rooms/promoted-rooms filters by provider; an unknown provider is 400", async () => {
    const a = await signUp();
    const ad = await admin();
    const sp = await createRoom(a, { musicProviderKeys: ["spotify"] });
    const yt = await createRoom(a, { musicProviderKeys: ["youtube"] });
    const any = await createRoom(a);
    for (const r of [sp, yt, any])
      await room(`/rooms/promote/${r.id}/infrastructure`, {
        method: "PATCH",
        token: ad.token,
        body: { promoted: true },
      });
    const all = (await room("/rooms/promoted-rooms")).body.map((r: any) => r.uuid);
    expect(all).toEqual(expect.arrayContaining([sp.uuid, yt.uuid, any.uuid]));
    const spotify = (await room("/rooms/promoted-rooms?providers=spotify,apple")).body.map(
      (r: any) => r.uuid,
    );
    expect(spotify).toEqual(expect.arrayContaining([sp.uuid, any.uuid]));
    expect(spotify).not.toContain(yt.uuid);
    expect((await room("/rooms/promoted-rooms?providers=myspace")).status).toBe(400);
  });
});

describe("my rooms, recent, multiple, private", () => {
  it("GET /rooms/mine/list and /rooms/owned-rooms/list: the caller's rooms; 401 without a token", async () => {
    const a = await signUp();
    const r1 = await createRoom(a);
    const r2 = await createRoom(a, { type: "PRIVATE" });
    await createRoom(await signUp());
    for (const path of ["/rooms/mine/list", "/rooms/owned-rooms/list"]) {
      const res = await room(path, { token: a.token });
      expect(res.status).toBe(200);
      expect(res.body.map((r: any) => r.uuid).sort()).toEqual([r1.uuid, r2.uuid].sort());
      expect((await room(path)).status).toBe(401);
    }
  });

  it("POST/GET /rooms/recent: latest visit first, a repeat moves it up; 400 and 404", async () => {
    const a = await signUp();
    const [r1, r2] = [await createRoom(a), await createRoom(a)];
    expect(
      (await room("/rooms/recent", { token: a.token, body: { roomUuid: r1.uuid } })).status,
    ).toBe(201);
    await room("/rooms/recent", { token: a.token, body: { roomUuid: r2.uuid } });
    await new Promise((r) => setTimeout(r, 5));
    await room("/rooms/recent", { token: a.token, body: { roomUuid: r1.uuid } });
    const res = await room("/rooms/recent", { token: a.token });
    expect(res.body.map((r: any) => r.uuid)).toEqual([r1.uuid, r2.uuid]);
    expect(res.body[0].visitedAt).toEqual(expect.any(String));
    expect(
      (await room("/rooms/recent", { token: a.token, body: { roomUuid: "nope" } })).status,
    ).toBe(400);
    expect(
      (await room("/rooms/recent", { token: a.token, body: { roomUuid: crypto.randomUUID() } }))
        .status,
    ).toBe(404);
    expect((await room("/rooms/recent")).status).toBe(401);
  });

  it("GET /rooms/multiple/list?room=&room=: in the order asked, unknown skipped; 400 without rooms", async () => {
    const a = await signUp();
    const [r1, r2] = [await createRoom(a), await createRoom(a)];
    const res = await room(
      `/rooms/multiple/list?room=${r2.uuid}&room=${crypto.randomUUID()}&room=${r1.uuid}`,
    );
    expect(res.body.map((r: any) => r.uuid)).toEqual([r2.uuid, r1.uuid]);
    expect((await room("/rooms/multiple/list")).status).toBe(400);
    expect((await room("/rooms/multiple/list?room=bad")).status).toBe(400);
  });

  it("GET /rooms/private-count and POST /rooms/list (private rooms by password)", async () => {
    const a = await signUp();
    const before = (await room("/rooms/private-count")).body.count;
    const p1 = await createRoom(a, { type: "PRIVATE", password: "open sesame" });
    await createRoom(a, { type: "PRIVATE", password: "other" });
    await createRoom(a, { password: "open sesame" }); // public: never in this list
    expect((await room("/rooms/private-count")).body).toEqual({ count: before + 2 });
    const res = await room("/rooms/list", {
      token: a.token,
      body: { passwords: ["wrong", "open sesame"] },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((r: any) => r.uuid)).toEqual([p1.uuid]);
    expect((await room("/rooms/list", { token: a.token, body: { passwords: [] } })).status).toBe(
      400,
    );
    expect(
      (await room("/rooms/list", { token: a.token, body: { passwords: "open sesame" } })).status,
    ).toBe(400);
    expect((await room("/rooms/list", { body: { passwords: ["x"] } })).status).toBe(401);
  });
});

describe("join, users, room state", () => {
  it("POST /rooms/{id}/join answers what the client needs; passwords are checked with messages", async () => {
    const a = await signUp();
    const r = await createRoom(a, { password: "letmein", guestPassword: "guests" });
    const b = await signUp();
    const nope = await room(`/rooms/${r.slug}/join`, { token: b.token, body: {} });
    expect(nope.status).toBe(403);
    expect(nope.body.message).toContain("password");
    expect(
      (await room(`/rooms/${r.slug}/join`, { token: b.token, body: { password: "bad" } })).body
        .message,
    ).toBe("Wrong room password.");
    const ok = await room(`/rooms/${r.slug}/join`, {
      token: b.token,
      body: { password: "letmein" },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      roomUuid: r.uuid,
      slug: r.slug,
      partyPath: `/parties/room/${r.uuid}`,
      settings: { uuid: r.uuid, slug: r.slug, numberOfDjs: 5, djType: "EVERYONE" },
    });
    expect(ok.body.settings).not.toHaveProperty("password");
    expect((await room(`/rooms/${r.slug}/join`, { method: "POST", token: a.token })).status).toBe(
      200,
    ); // the owner needs none, and no body
    expect(
      (await room("/rooms/recent", { token: b.token })).body.map((x: any) => x.uuid),
    ).toContain(r.uuid);
    expect((await room(`/rooms/${r.slug}/join`, { body: {} })).status).toBe(401);
    expect(
      (await room(`/rooms/${r.slug}/join`, { token: b.token, body: { password: 5 } })).status,
    ).toBe(400);
  });

  it("a guest needs the guest password when one is set", async () => {
    const a = await signUp();
    const r = await createRoom(a, { guestPassword: "guests" });
    const g = await guestToken();
    expect((await room(`/rooms/${r.id}/join`, { token: g, body: {} })).status).toBe(403);
    expect(
      (await room(`/rooms/${r.id}/join`, { token: g, body: { guestPassword: "guests" } })).status,
    ).toBe(200);
    expect(
      (await room(`/rooms/${r.id}/join`, { token: (await signUp()).token, body: {} })).status,
    ).toBe(200);
  });

  it("GET /rooms/users/{id}: present users (none yet); 404 for an unknown room", async () => {
    const r = await createRoom(await signUp());
    expect((await room(`/rooms/users/${r.id}`)).body).toEqual({
      roomUuid: r.uuid,
      usersInRoomUuids: [],
      numberOfUsersInRoom: 0,
    });
    expect((await room(`/rooms/users/no-such-room-u`)).status).toBe(404);
  });

  it.skipIf(noRpc("applySettings") || noRpc("getState"))(
    "GET /rooms/room-state/{id}: the object's state after join pushed the settings; 401 without a token",
    async () => {
      const a = await signUp();
      const r = await createRoom(a, { design: "FESTIVAL" });
      await room(`/rooms/${r.id}/join`, { token: a.token, body: {} });
      const res = await room(`/rooms/room-state/${r.id}`, { token: a.token });
      expect(res.status).toBe(200);
      expect(res.body.settings).toMatchObject({ uuid: r.uuid, slug: r.slug, design: "FESTIVAL" });
      expect((await room(`/rooms/room-state/${r.id}`)).status).toBe(401);
    },
  );

  it.skipIf(noRpc("getUserUuids") || noRpc("setRole"))(
    "GET /rooms/{id} reads present users from the object (none connected: [])",
    async () => {
      const r = await createRoom(await signUp());
      const ids = await ((await getServerByName(env.Room, r.uuid)) as any).getUserUuids();
      expect((await room(`/rooms/users/${r.uuid}`)).body.usersInRoomUuids).toEqual(ids);
    },
  );
});
