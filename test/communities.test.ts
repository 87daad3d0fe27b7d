import { beforeAll, describe, expect, it } from "vitest";
import { admin, countRows, signUp, type TestAccount } from "./helpers";
import { createRoom, room, roomName } from "./room-service-helpers";

const slugFor = (tag: string) =>
  `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

let boss: TestAccount;
beforeAll(async () => {
  boss = await admin();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function makeCommunity(over: Record<string, unknown> = {}): Promise<any> {
  const res = await room("/admin/communities", {
    token: boss.token,
    body: { name: roomName("Comm"), ...over },
  });
  if (res.status !== 201)
    throw new Error(`create community failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

describe("admin communities", () => {
  it("creates (slug from the name, lowercase), reads by id/uuid/slug, lists, patches, puts, deletes", async () => {
    const name = roomName("Jazz Club!");
    const res = await room("/admin/communities", {
      token: boss.token,
      body: { name, description: "d" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name,
      description: "d",
      isPublic: true,
      ownerUuid: boss.uuid,
    });
    expect(res.body.slug).toMatch(/^[a-z0-9-]{3,60}$/);
    for (const key of [res.body.id, res.body.uuid, res.body.slug.toUpperCase()]) {
      const one = await room(`/admin/communities/${key}`, { token: boss.token });
      expect(one.status).toBe(200);
      expect(one.body.id).toBe(res.body.id);
    }
    const list = await room(`/admin/communities?filter=slug||$eq||${res.body.slug}`, {
      token: boss.token,
    });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ count: 1, total: 1 });
    const patched = await room(`/admin/communities/${res.body.id}`, {
      token: boss.token,
      method: "PATCH",
      body: { isPublic: false },
    });
    expect(patched.body).toMatchObject({ isPublic: false, name });
    const put = await room(`/admin/communities/${res.body.id}`, {
      token: boss.token,
      method: "PUT",
      body: { name: "Renamed" },
    });
    expect(put.body).toMatchObject({ name: "Renamed", isPublic: true, description: null });
    expect(
      (await room(`/admin/communities/${res.body.id}`, { token: boss.token, method: "DELETE" }))
        .status,
    ).toBe(200);
    expect((await room(`/admin/communities/${res.body.id}`, { token: boss.token })).status).toBe(
      404,
    );
  });

  it("400 on bad input, 409 on a taken slug, 401 without a token, 403 for a plain user", async () => {
    expect(
      (await room("/admin/communities", { token: boss.token, body: { name: "x", slug: "A B" } }))
        .status,
    ).toBe(400);
    expect(
      (await room("/admin/communities", { token: boss.token, body: { name: "" } })).status,
    ).toBe(400);
    expect(
      (await room("/admin/communities", { token: boss.token, body: { name: "x", extra: 1 } }))
        .status,
    ).toBe(400);
    expect(
      (await room("/admin/communities?filter=nope||$eq||1", { token: boss.token })).status,
    ).toBe(400);
    expect(
      (await room("/admin/communities/1", { token: boss.token, method: "PATCH", body: {} })).status,
    ).toBe(400);
    const slug = slugFor("taken");
    await makeCommunity({ slug });
    expect(
      (await room("/admin/communities", { token: boss.token, body: { name: "x", slug } })).status,
    ).toBe(409);
    const plain = await signUp();
    expect((await room("/admin/communities")).status).toBe(401);
    expect((await room("/admin/communities", { token: plain.token })).status).toBe(403);
    expect(
      (await room("/admin/communities", { token: plain.token, body: { name: "x" } })).status,
    ).toBe(403);
    expect(
      (
        await room("/admin/communities/bulk", {
          token: plain.token,
          body: { communities: [{ name: "x" }] },
        })
      ).status,
    ).toBe(403);
  });

  it("bulk creates all or nothing", async () => {
    const a = slugFor("bulk-a");
    const b = slugFor("bulk-b");
    const ok = await room("/admin/communities/bulk", {
      token: boss.token,
      body: {
        communities: [
          { name: "A", slug: a },
          { name: "B", slug: b },
        ],
      },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.map((x: { slug: string }) => x.slug)).toEqual([a, b]);
    const before = await countRows("communities");
    // One invalid slug: 400, nothing written.
    const bad = await room("/admin/communities/bulk", {
      token: boss.token,
      body: {
        communities: [
          { name: "C", slug: slugFor("bulk-c") },
          { name: "D", slug: "Bad Slug!" },
        ],
      },
    });
    expect(bad.status).toBe(400);
    // One slug already taken: 409, and the other row is rolled back too.
    const clash = await room("/admin/communities/bulk", {
      token: boss.token,
      body: {
        communities: [
          { name: "E", slug: slugFor("bulk-e") },
          { name: "F", slug: a },
        ],
      },
    });
    expect(clash.status).toBe(409);
    const dup = slugFor("bulk-dup");
    expect(
      (
        await room("/admin/communities/bulk", {
          token: boss.token,
          body: {
            communities: [
              { name: "G", slug: dup },
              { name: "H", slug: dup },
            ],
          },
        })
      ).status,
    ).toBe(409);
    expect(await countRows("communities")).toBe(before);
    expect(
      (
        await room("/admin/communities/bulk", {
          token: boss.token,
          body: { communities: Array.from({ length: 51 }, (_, i) => ({ name: `n${i}` })) },
        })
      ).status,
    ).toBe(400);
  });
});

describe("public community reads and membership", () => {
  it("GET /communities/{id} works by slug; a private one is hidden from outsiders; 400 for a bad limit", async () => {
    const cm = await makeCommunity();
    const res = await room(`/communities/${cm.slug}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: cm.id, numberOfMembers: 0, numberOfRooms: 0 });
    const priv = await makeCommunity({ isPublic: false });
    expect((await room(`/communities/${priv.id}`)).status).toBe(404);
    expect((await room(`/communities/${priv.id}`, { token: boss.token })).status).toBe(200);
    expect((await room(`/communities/${priv.id}/users`)).status).toBe(404);
    expect((await room(`/communities/${priv.id}/rooms`)).status).toBe(404);
    expect((await room(`/communities/${cm.id}/users?limit=0`)).status).toBe(400);
    expect((await room("/communities/no-such-community")).status).toBe(404);
  });

  it("join is idempotent, leave removes, /user-communities lists the caller's; 401 without a token", async () => {
    const cm = await makeCommunity();
    const u = await signUp();
    expect((await room(`/communities/${cm.id}/join`, { method: "POST" })).status).toBe(401);
    const j1 = await room(`/communities/${cm.id}/join`, { token: u.token, method: "POST" });
    const j2 = await room(`/communities/${cm.id}/join`, { token: u.token, method: "POST" });
    expect(j1.status).toBe(200);
    expect(j2.body).toMatchObject({ userUuid: u.uuid, role: "member" });
    const users = await room(`/communities/${cm.id}/users`);
    expect(users.body.total).toBe(1);
    const mine = await room("/user-communities", { token: u.token });
    expect(mine.body.data.map((x: { id: number }) => x.id)).toEqual([cm.id]);
    expect((await room("/user-communities")).status).toBe(401);
    expect((await room("/user-communities?offset=-1", { token: u.token })).status).toBe(400);
    expect(
      (await room(`/communities/${cm.id}/leave`, { token: u.token, method: "POST" })).status,
    ).toBe(200);
    expect((await room(`/communities/${cm.id}/users`)).body.total).toBe(0);
    const priv = await makeCommunity({ isPublic: false });
    expect(
      (await room(`/communities/${priv.id}/join`, { token: u.token, method: "POST" })).status,
    ).toBe(403);
  });

  it("community admins manage members; others get 403; bad ids 400; unknown users 404", async () => {
    const cm = await makeCommunity();
    const [mod, u, other] = await Promise.all([signUp(), signUp(), signUp()]);
    expect(
      (
        await room(`/communities/${cm.id}/users/${u.uuid}`, {
          token: other.token,
          method: "PUT",
          body: {},
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await room(`/communities/${cm.id}/users/${mod.uuid}`, {
          token: boss.token,
          method: "PUT",
          body: { role: "admin" },
        })
      ).body.role,
    ).toBe("admin");
    expect(
      (
        await room(`/communities/${cm.id}/users/${u.uuid}`, {
          token: mod.token,
          method: "PUT",
          body: {},
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await room(`/communities/${cm.id}/users/not-a-uuid`, {
          token: mod.token,
          method: "PUT",
          body: {},
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await room(`/communities/${cm.id}/users/${u.uuid}`, {
          token: mod.token,
          method: "PUT",
          body: { role: "king" },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await room(`/communities/${cm.id}/users/${crypto.randomUUID()}`, {
          token: mod.token,
          method: "PUT",
          body: {},
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await room(`/communities/${cm.id}/users/${u.uuid}`, {
          token: other.token,
          method: "DELETE",
        })
      ).status,
    ).toBe(403);
    expect((await room(`/communities/${cm.id}/users/${u.uuid}`, { method: "DELETE" })).status).toBe(
      401,
    );
    expect(
      (await room(`/communities/${cm.id}/users/${u.uuid}`, { token: mod.token, method: "DELETE" }))
        .status,
    ).toBe(200);
    expect((await room(`/communities/${cm.id}/users`)).body.total).toBe(1);
  });
});

describe("community rooms", () => {
  it("the room owner or a community admin links rooms (PUT and the POST alias); lists give RoomDtos", async () => {
    const cm = await makeCommunity();
    const [owner, stranger] = await Promise.all([signUp(), signUp()]);
    const r1 = await createRoom(owner);
    const r2 = await createRoom(owner);
    expect(
      (await room(`/communities/${cm.id}/rooms/${r1.id}`, { token: stranger.token, method: "PUT" }))
        .status,
    ).toBe(403);
    expect((await room(`/communities/${cm.id}/rooms/${r1.id}`, { method: "PUT" })).status).toBe(
      401,
    );
    expect(
      (await room(`/communities/${cm.id}/rooms/${r1.id}`, { token: owner.token, method: "PUT" }))
        .status,
    ).toBe(200);
    expect(
      (await room(`/communities/${cm.id}/rooms/${r1.id}`, { token: owner.token, method: "PUT" }))
        .status,
    ).toBe(200);
    expect(
      (await room(`/communities/${cm.slug}/${r2.slug}`, { token: boss.token, method: "POST" }))
        .status,
    ).toBe(200);
    const list = await room(`/communities/${cm.id}/rooms`);
    expect(list.body.total).toBe(2);
    expect(list.body.data[0]).toMatchObject({ id: r2.id, slug: r2.slug, ownerUuid: owner.uuid });
    expect(list.body.data[0]).not.toHaveProperty("passwordHash");
    const rc = await room(`/room-communities/${r1.uuid}`);
    expect(rc.body.data.map((x: { id: number }) => x.id)).toEqual([cm.id]);
    expect((await room(`/room-communities/${r1.id}?limit=1000`)).status).toBe(400);
    expect(
      (await room(`/communities/${cm.id}/${r2.id}`, { token: stranger.token, method: "DELETE" }))
        .status,
    ).toBe(403);
    expect(
      (await room(`/communities/${cm.id}/${r2.id}`, { token: owner.token, method: "DELETE" }))
        .status,
    ).toBe(200);
    expect(
      (await room(`/communities/${cm.id}/rooms/${r1.id}`, { token: boss.token, method: "DELETE" }))
        .status,
    ).toBe(200);
    expect((await room(`/communities/${cm.id}/rooms`)).body.total).toBe(0);
    expect(
      (await room(`/communities/${cm.id}/rooms/no-such-room`, { token: boss.token, method: "PUT" }))
        .status,
    ).toBe(404);
  });

  it("add/remove take rooms and users in bulk (community admin only); 400 for bad bodies; a missing room writes nothing", async () => {
    const cm = await makeCommunity();
    const [owner, u, stranger] = await Promise.all([signUp(), signUp(), signUp()]);
    const r = await createRoom(owner);
    expect(
      (
        await room(`/communities/${cm.id}/add`, {
          token: stranger.token,
          body: { roomIds: [r.id] },
        })
      ).status,
    ).toBe(403);
    expect((await room(`/communities/${cm.id}/add`, { body: { roomIds: [r.id] } })).status).toBe(
      401,
    );
    expect((await room(`/communities/${cm.id}/add`, { token: boss.token, body: {} })).status).toBe(
      400,
    );
    expect(
      (await room(`/communities/${cm.id}/add`, { token: boss.token, body: { userUuids: ["x"] } }))
        .status,
    ).toBe(400);
    expect(
      (
        await room(`/communities/${cm.id}/add`, {
          token: boss.token,
          body: { roomIds: [r.id, "no-such-room"], userUuids: [u.uuid] },
        })
      ).status,
    ).toBe(404);
    expect((await room(`/communities/${cm.id}`)).body).toMatchObject({
      numberOfMembers: 0,
      numberOfRooms: 0,
    });
    const add = await room(`/communities/${cm.id}/add`, {
      token: boss.token,
      body: { roomIds: [r.id, r.slug], userUuids: [u.uuid, u.uuid] },
    });
    expect(add.status).toBe(200);
    expect((await room(`/communities/${cm.id}`)).body).toMatchObject({
      numberOfMembers: 1,
      numberOfRooms: 1,
    });
    expect(
      (
        await room(`/communities/${cm.id}/remove`, {
          token: boss.token,
          body: { roomIds: [r.id], userUuids: [u.uuid] },
        })
      ).status,
    ).toBe(200);
    expect((await room(`/communities/${cm.id}`)).body).toMatchObject({
      numberOfMembers: 0,
      numberOfRooms: 0,
    });
  });
});
