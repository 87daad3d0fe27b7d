import { describe, expect, it } from "vitest";
import { admin, countRows, guestToken, signUp } from "./helpers";
import { createRoom, room } from "./room-service-helpers";

/* eslint-disable @typescript-eslint/no-explicit-any */
describe("/api/v1/room-favorites", () => {
  it("POST adds (201), again is the same record (200); GET lists; DELETE by id or by room uuid", async () => {
    const a = await signUp();
    const [r1, r2] = [await createRoom(a), await createRoom(a)];
    const first = await room("/api/v1/room-favorites", {
      token: a.token,
      body: { roomUuid: r1.uuid },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      id: expect.any(Number),
      roomUuid: r1.uuid,
      userUuid: a.uuid,
      createdAt: expect.any(String),
    });
    const again = await room("/api/v1/room-favorites", {
      token: a.token,
      body: { roomUuid: r1.uuid },
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    await room("/api/v1/room-favorites", { token: a.token, body: { roomUuid: r2.uuid } });
    expect(
      (await room("/api/v1/room-favorites", { token: a.token })).body
        .map((f: any) => f.roomUuid)
        .sort(),
    ).toEqual([r1.uuid, r2.uuid].sort());
    const filtered = await room(`/api/v1/room-favorites?roomUuidIn=${r2.uuid}&limit=5`, {
      token: a.token,
    });
    expect(filtered.body.map((f: any) => f.roomUuid)).toEqual([r2.uuid]);
    expect(
      (await room(`/api/v1/room-favorites/${first.body.id}`, { method: "DELETE", token: a.token }))
        .body,
    ).toMatchObject({ id: first.body.id, deleted: true });
    expect(
      (await room(`/api/v1/room-favorites/${r2.uuid}`, { method: "DELETE", token: a.token }))
        .status,
    ).toBe(200);
    expect((await room("/api/v1/room-favorites", { token: a.token })).body).toEqual([]);
    expect(
      (await room(`/api/v1/room-favorites/${first.body.id}`, { method: "DELETE", token: a.token }))
        .status,
    ).toBe(404);
  });

  it("400 for bad input (nothing written), 404 for an unknown room, 401 without a token, 403 for a guest", async () => {
    const a = await signUp();
    const before = await countRows("room_favorites");
    expect(
      (await room("/api/v1/room-favorites", { token: a.token, body: { roomUuid: "x" } })).status,
    ).toBe(400);
    expect((await room("/api/v1/room-favorites", { token: a.token, body: {} })).status).toBe(400);
    expect(
      (
        await room("/api/v1/room-favorites", {
          token: a.token,
          body: { roomUuid: crypto.randomUUID() },
        })
      ).status,
    ).toBe(404);
    expect(await countRows("room_favorites")).toBe(before);
    expect((await room("/api/v1/room-favorites?limit=0", { token: a.token })).status).toBe(400);
    expect((await room("/api/v1/room-favorites?roomUuidIn=nope", { token: a.token })).status).toBe(
      400,
    );
    expect(
      (await room("/api/v1/room-favorites/abc", { method: "DELETE", token: a.token })).status,
    ).toBe(400);
    expect((await room("/api/v1/room-favorites")).status).toBe(401);
    expect((await room("/api/v1/room-favorites", { token: await guestToken() })).status).toBe(403);
  });

  it("someone else's favourite cannot be deleted (403); another user's list shows listed public rooms only", async () => {
    const a = await signUp();
    const b = await signUp();
    const pub = await createRoom(a);
    const priv = await createRoom(a, { type: "PRIVATE" });
    const fav = (
      await room("/api/v1/room-favorites", { token: a.token, body: { roomUuid: pub.uuid } })
    ).body;
    await room("/api/v1/room-favorites", { token: a.token, body: { roomUuid: priv.uuid } });
    expect(
      (await room(`/api/v1/room-favorites/${fav.id}`, { method: "DELETE", token: b.token })).status,
    ).toBe(403);
    expect(
      (await room(`/api/v1/room-favorites?userUuid=${a.uuid}`, { token: b.token })).body.map(
        (f: any) => f.roomUuid,
      ),
    ).toEqual([pub.uuid]);
    expect(
      (await room(`/api/v1/room-favorites?userUuid=${a.uuid}`, { token: (await admin()).token }))
        .body,
    ).toHaveLength(2);
  });
});

describe("GET /rooms/favorites", () => {
  it("RoomDtos with favorited; includePrivate only for one's own list", async () => {
    const a = await signUp();
    const b = await signUp();
    const pub = await createRoom(a);
    const priv = await createRoom(a, { type: "PRIVATE" });
    for (const r of [pub, priv])
      await room("/api/v1/room-favorites", { token: a.token, body: { roomUuid: r.uuid } });
    const own = await room("/rooms/favorites", { token: a.token });
    expect(own.status).toBe(200);
    expect(own.body.map((r: any) => r.uuid)).toEqual([pub.uuid]);
    expect(own.body[0]).toMatchObject({ favorited: true, numberOfUsersInRoom: 0 });
    expect(
      (await room("/rooms/favorites?includePrivate=true", { token: a.token })).body
        .map((r: any) => r.uuid)
        .sort(),
    ).toEqual([pub.uuid, priv.uuid].sort());
    expect(
      (
        await room(`/rooms/favorites?userUuid=${a.uuid}&includePrivate=true`, { token: b.token })
      ).body.map((r: any) => r.uuid),
    ).toEqual([pub.uuid]);
    expect((await room("/rooms/favorites?includePrivate=yes", { token: a.token })).status).toBe(
      400,
    );
    expect((await room("/rooms/favorites")).status).toBe(401);
  });
});
