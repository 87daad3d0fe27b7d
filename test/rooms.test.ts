import { env, SELF } from "cloudflare:test";
import { getServerByName } from "partyserver";
import { describe, expect, it } from "vitest";
import { Room } from "../durable/room";
import { admin, countRows, guestToken, signUp } from "./helpers";
import { createRoom, room, roomName } from "./room-service-helpers";

// A PNG as the upload checks see it: the 8-byte signature, then anything.
const png = () =>
  new File(
    [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(64).fill(7)])],
    "p.png",
    { type: "image/png" },
  );
const posterForm = (file: Blob) => {
  const f = new FormData();
  f.append("file", file, "p.png");
  return f;
};

describe("POST /rooms/infrastructure", () => {
  it("creates a room owned by the caller, slug from the name, no password hashes in the answer", async () => {
    const a = await signUp();
    const name = roomName("My Room!");
    const res = await room("/rooms/infrastructure", {
      token: a.token,
      body: {
        name,
        design: "YACHT",
        djType: "INVITE_ONLY",
        password: "s3cret",
        musicProviderKeys: ["spotify", "spotify", "youtube"],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name,
      slug: name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/-+$/, ""),
      design: "YACHT",
      djType: "INVITE_ONLY",
      type: "PUBLIC",
      ownerUuid: a.uuid,
      isPasswordProtected: true,
      isGuestPasswordProtected: false,
      musicProviderKeys: ["spotify", "youtube"],
      numberOfDjs: 5,
      isLive: true,
      liveAudio: false,
      hasChat: true,
      roomRoles: [],
      pinnedMessages: [],
      numberOfUsersInRoom: 0,
    });
    expect(res.body.uuid).toMatch(/^[0-9a-f-]{36}$/);
    for (const k of [
      "password",
      "passwordHash",
      "guestPassword",
      "guestPasswordHash",
      "passwordBucket",
    ])
      expect(res.body).not.toHaveProperty(k);
  });

  it("stores a given slug lowercase; a taken slug is 409 with a message; a taken name-slug gets a suffix", async () => {
    const a = await signUp();
    const slug = `Club-${Date.now().toString(36)}`;
    const first = await createRoom(a, { slug });
    expect(first.slug).toBe(slug.toLowerCase());
    const again = await room("/rooms/infrastructure", {
      token: a.token,
      body: { name: "x", slug: slug.toLowerCase() },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      statusCode: 409,
      error: "Conflict",
      message: expect.stringContaining("slug"),
    });
    const sameName = await createRoom(a, { name: slug });
    expect(sameName.slug).toMatch(new RegExp(`^${slug.toLowerCase()}-[0-9a-f]{5}$`));
  });

  it.each([
    ["a bad djType", { djType: "ANYONE" }, "djType"],
    ["a bad design", { design: "CASTLE" }, "design"],
    ["a bad type", { type: "SECRET" }, "type"],
    ["a bad provider", { musicProviderKeys: ["myspace"] }, "musicProviderKeys"],
    ["a short slug", { slug: "ab" }, "slug"],
    ["an all-digit slug", { slug: "12345" }, "slug"],
    ["a slug with spaces", { slug: "my room" }, "slug"],
    ["11 DJ seats", { numberOfDjs: 11 }, "numberOfDjs"],
    ["no name", { name: "" }, "name"],
  ])("400 for %s, writing nothing", async (_, over, field) => {
    const a = await signUp();
    const before = await countRows("rooms");
    const res = await room("/rooms/infrastructure", {
      token: a.token,
      body: { name: roomName(), ...over },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.message)).toContain(field);
    expect(await countRows("rooms")).toBe(before);
  });

  it("401 without a token, 403 for a guest", async () => {
    expect((await room("/rooms/infrastructure", { body: { name: "x-room" } })).status).toBe(401);
    expect(
      (await room("/rooms/infrastructure", { token: await guestToken(), body: { name: "x-room" } }))
        .status,
    ).toBe(403);
  });
});

describe("GET /rooms/{id} and /rooms/uuid/{uuid}", () => {
  it("finds a room by id, slug (any case) and uuid, without a token", async () => {
    const r = await createRoom(await signUp());
    for (const path of [
      `/rooms/${r.id}`,
      `/rooms/${r.slug.toUpperCase()}`,
      `/rooms/${r.uuid}`,
      `/rooms/uuid/${r.uuid}`,
    ]) {
      const res = await room(path);
      expect(res.status, path).toBe(200);
      expect(res.body).toMatchObject({
        uuid: r.uuid,
        slug: r.slug,
        usersInRoomUuids: [],
        numberOfUsersInRoom: 0,
      });
    }
  });

  it("404 for an unknown room, 400 for a malformed uuid", async () => {
    expect((await room("/rooms/no-such-room-here")).body).toMatchObject({
      statusCode: 404,
      message: "Room not found.",
    });
    expect((await room("/rooms/uuid/not-a-uuid")).status).toBe(400);
  });
});

describe("PATCH /rooms/{id}", () => {
  it("the owner edits; the password becomes a flag; null removes it", async () => {
    const a = await signUp();
    const r = await createRoom(a);
    const res = await room(`/rooms/${r.id}`, {
      method: "PATCH",
      token: a.token,
      body: { name: "Renamed", design: "BARN", password: "pw", afkMinutes: 0, autoSkipRatio: 0.25 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Renamed",
      design: "BARN",
      isPasswordProtected: true,
      afkMinutes: 0,
      autoSkipRatio: 0.25,
      slug: r.slug,
    });
    const cleared = await room(`/rooms/${r.slug}`, {
      method: "PATCH",
      token: a.token,
      body: { password: null },
    });
    expect(cleared.body.isPasswordProtected).toBe(false);
  });

  it("an owner flapping isLive is refused past 30 edits a minute (429), and the room keeps its last state", async () => {
    const a = await signUp();
    const r = await createRoom(a);
    const edit = (isLive: boolean) =>
      room(`/rooms/live-state/${r.id}/infrastructure`, {
        method: "PATCH",
        token: a.token,
        body: { isLive },
      });
    // Concurrent, as a script would send them: exactly 30 pass, whatever the interleaving.
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => edit(i % 2 === 0)));
    expect(answers.filter((x) => x.status === 200)).toHaveLength(30);
    const refused = answers.filter((x) => x.status === 429);
    expect(refused).toHaveLength(10);
    expect(refused[0].body.message).toMatch(/changed too often; try again in 1 minute/);
    const last = (await room(`/rooms/${r.id}`)).body.isLive;
    expect((await edit(!last)).status).toBe(429);
    expect((await room(`/rooms/${r.id}`)).body.isLive).toBe(last);
  });

  it("an admin may edit; a stranger is 403; no token 401", async () => {
    const r = await createRoom(await signUp());
    expect(
      (
        await room(`/rooms/${r.id}`, {
          method: "PATCH",
          token: (await admin()).token,
          body: { vibe: "chill" },
        })
      ).body.vibe,
    ).toBe("chill");
    const stranger = await room(`/rooms/${r.id}`, {
      method: "PATCH",
      token: (await signUp()).token,
      body: { vibe: "loud" },
    });
    expect(stranger.status).toBe(403);
    expect((await room(`/rooms/${r.id}`)).body.vibe).toBe("chill");
    expect((await room(`/rooms/${r.id}`, { method: "PATCH", body: { vibe: "x" } })).status).toBe(
      401,
    );
  });

  it.each([
    ["a bad design", { design: "castle" }],
    ["a structural field", { numberOfDjs: 3 }],
    ["promotion", { promoted: true }],
    ["an empty body", {}],
    ["a ratio above 1", { autoSkipRatio: 2 }],
  ])("400 for %s", async (_, body) => {
    const a = await signUp();
    const r = await createRoom(a);
    const res = await room(`/rooms/${r.id}`, { method: "PATCH", token: a.token, body });
    expect(res.status).toBe(400);
    expect(res.body.message).toBeTruthy();
  });
});

describe("PATCH and DELETE /rooms/{id}/infrastructure", () => {
  it("the owner changes structure and slug; a taken slug is 409; a bad djType 400; a co-owner-less stranger 403", async () => {
    const a = await signUp();
    const r = await createRoom(a);
    const other = await createRoom(a);
    const res = await room(`/rooms/${r.id}/infrastructure`, {
      method: "PATCH",
      token: a.token,
      body: { type: "PRIVATE", numberOfDjs: 3, slug: `New-${r.id}-slug`, entryFee: 10 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: "PRIVATE",
      numberOfDjs: 3,
      slug: `new-${r.id}-slug`,
      entryFee: 10,
    });
    expect(
      (
        await room(`/rooms/${r.id}/infrastructure`, {
          method: "PATCH",
          token: a.token,
          body: { slug: other.slug },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await room(`/rooms/${r.id}/infrastructure`, {
          method: "PATCH",
          token: a.token,
          body: { djType: "SOME" },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await room(`/rooms/${r.id}/infrastructure`, {
          method: "PATCH",
          token: (await signUp()).token,
          body: { numberOfDjs: 2 },
        })
      ).status,
    ).toBe(403);
  });

  it("delete: 403 for a stranger, then the owner deletes it and its favourites", async () => {
    const a = await signUp();
    const r = await createRoom(a);
    await room("/api/v1/room-favorites", { token: a.token, body: { roomUuid: r.uuid } });
    expect(
      (
        await room(`/rooms/${r.id}/infrastructure`, {
          method: "DELETE",
          token: (await signUp()).token,
        })
      ).status,
    ).toBe(403);
    expect((await room(`/rooms/${r.id}/infrastructure`, { method: "DELETE" })).status).toBe(401);
    const res = await room(`/rooms/${r.id}/infrastructure`, { method: "DELETE", token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: r.id, uuid: r.uuid, deleted: true });
    expect((await room(`/rooms/${r.uuid}`)).status).toBe(404);
    expect((await room("/api/v1/room-favorites", { token: a.token })).body).toEqual([]);
  });
});

describe("pinned messages, external URL, poster", () => {
  it("the owner pins up to 5 messages of at most 300 characters, and unpins", async () => {
    const a = await signUp();
    const r = await createRoom(a);
    for (let i = 0; i < 5; i++)
      expect(
        (
          await room(`/rooms/${r.id}/pinned-messages`, {
            token: a.token,
            body: { message: `pin ${i}` },
          })
        ).status,
      ).toBe(201);
    const sixth = await room(`/rooms/${r.id}/pinned-messages`, {
      token: a.token,
      body: { message: "one more" },
    });
    expect(sixth.status).toBe(400);
    expect(sixth.body.message).toContain("at most 5");
    const pins = (await room(`/rooms/${r.id}`)).body.pinnedMessages;
    expect(pins).toHaveLength(5);
    expect(pins[0]).toMatchObject({
      message: "pin 0",
      pinnedBy: a.uuid,
      id: expect.any(String),
      pinnedAt: expect.any(Number),
    });
    const unpin = await room(`/rooms/${r.id}/pinned-messages/${pins[0].id}`, {
      method: "DELETE",
      token: a.token,
    });
    expect(unpin.body.pinnedMessages).toHaveLength(4);
    expect(
      (
        await room(`/rooms/${r.id}/pinned-messages`, {
          token: a.token,
          body: { message: "x".repeat(301) },
        })
      ).status,
    ).toBe(400);
    expect(
      (await room(`/rooms/${r.id}/pinned-messages`, { token: a.token, body: { message: "  " } }))
        .status,
    ).toBe(400);
    expect(
      (
        await room(`/rooms/${r.id}/pinned-messages`, {
          token: (await signUp()).token,
          body: { message: "hi" },
        })
      ).status,
    ).toBe(403);
    expect((await room(`/rooms/${r.id}/pinned-messages`, { body: { message: "hi" } })).status).toBe(
      401,
    );
  });

  it("external URL: https only; null clears; a stranger is 403", async () => {
    const a = await signUp();
    const r = await createRoom(a);
    const ok = await room(`/rooms/${r.id}/externalUrl`, {
      token: a.token,
      body: { url: "https://example.com/party" },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.externalUrl).toBe("https://example.com/party");
    for (const url of ["http://example.com", "javascript:alert(1)", "ftp://x.org", "not a url"]) {
      expect(
        (await room(`/rooms/${r.id}/externalUrl`, { token: a.token, body: { url } })).status,
        url,
      ).toBe(400);
    }
    expect(
      (
        await room(`/rooms/${r.id}/externalUrl`, {
          token: (await signUp()).token,
          body: { url: "https://evil.example" },
        })
      ).status,
    ).toBe(403);
    expect(
      (await room(`/rooms/${r.id}/externalUrl`, { token: a.token, body: { url: null } })).body
        .externalUrl,
    ).toBeNull();
  });

  it("poster: upload to R2, serve, replace (old bytes gone), delete; a text file is 415; a stranger 403", async () => {
    const a = await signUp();
    const r = await createRoom(a);
    const up = await room(`/rooms/${r.id}/poster`, { token: a.token, body: posterForm(png()) });
    expect(up.status).toBe(201);
    expect(up.body.posterUrl).toMatch(
      new RegExp(`^/api/room-service/rooms/poster/${r.uuid}/[0-9a-f-]{36}$`),
    );
    const served = await SELF.fetch(`http://hangout.test${up.body.posterUrl}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("Content-Type")).toBe("image/png");
    await served.arrayBuffer();
    const again = await room(`/rooms/${r.id}/poster`, { token: a.token, body: posterForm(png()) });
    expect(
      (await env.UPLOADS.list({ prefix: `rooms/${r.uuid}/` })).objects.map((o) => o.key),
    ).toHaveLength(1);
    expect(again.body.posterUrl).not.toBe(up.body.posterUrl);
    expect(
      (
        await room(`/rooms/${r.id}/poster`, {
          token: a.token,
          body: posterForm(new File(["hello"], "a.txt", { type: "text/plain" })),
        })
      ).status,
    ).toBe(415);
    expect(
      (await room(`/rooms/${r.id}/poster`, { token: a.token, body: new FormData() })).status,
    ).toBe(400);
    expect(
      (
        await room(`/rooms/${r.id}/poster`, {
          token: (await signUp()).token,
          body: posterForm(png()),
        })
      ).status,
    ).toBe(403);
    const del = await room(`/rooms/${r.id}/poster`, { method: "DELETE", token: a.token });
    expect(del.body.posterUrl).toBeNull();
    expect((await env.UPLOADS.list({ prefix: `rooms/${r.uuid}/` })).objects).toHaveLength(0);
    expect((await room(`/rooms/${r.id}/poster`, { method: "DELETE", token: a.token })).status).toBe(
      404,
    );
  });
});

describe("edits reach the live object", () => {
  it.skipIf(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    typeof (Room.prototype as any).applySettings !== "function" ||
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      typeof (Room.prototype as any).getState !== "function",
  )("PATCH /rooms/{id} pushes the new settings (applySettings) at once", async () => {
    const a = await signUp();
    const r = await createRoom(a);
    await room(`/rooms/${r.id}`, {
      method: "PATCH",
      token: a.token,
      body: { name: "Live name", hasChat: false },
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const state: any = await ((await getServerByName(env.Room, r.uuid)) as any).getState();
    expect(state.settings).toMatchObject({
      uuid: r.uuid,
      slug: r.slug,
      name: "Live name",
      hasChat: false,
    });
  });
});
