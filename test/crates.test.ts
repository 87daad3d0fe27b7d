import { describe, expect, it } from "vitest";
import { SONG_MSG } from "../workers/songs/messages";
import { MSG as CRATE_MSG } from "../workers/playlist-service/messages";
import {
  addSongs,
  crateRows,
  expectDense,
  newCrate,
  pl,
  seedSongs,
  songOrder,
} from "./crate-helpers";
import { admin, countRows, guestToken, signUp } from "./helpers";

const SERVICE = { "X-Service-Key": "test-service-key" };

describe("POST /crate", () => {
  it("creates a named crate owned by the caller", async () => {
    const a = await signUp();
    const res = await pl("/crate", {
      body: { crateName: "  Road trip ", description: "songs", isPublic: false },
      token: a.token,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      crateName: "Road trip",
      description: "songs",
      isPublic: false,
      userUuid: a.uuid,
      crateType: null,
      crateSongsNumber: 0,
      count: 0,
      currentPosition: 0,
      importStatus: null,
    });
    expect(res.body.crateUuid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("names unnamed crates New Playlist #N with the lowest free N", async () => {
    const a = await signUp();
    const names = [];
    for (let i = 0; i < 3; i++) names.push((await newCrate(a.token)).crateName);
    expect(names).toEqual(["New Playlist #1", "New Playlist #2", "New Playlist #3"]);
    const second = (await pl("/crate/user", { token: a.token })).body.data.find(
      (c: { crateName: string }) => c.crateName === "New Playlist #2",
    );
    expect(
      (await pl(`/crate/${second.crateUuid}`, { method: "DELETE", token: a.token })).status,
    ).toBe(200);
    expect((await newCrate(a.token, { crateName: "" })).crateName).toBe("New Playlist #2");
    expect((await newCrate(a.token)).crateName).toBe("New Playlist #4");
    // Names that only look alike do not take a number; other users have their own numbers.
    await newCrate(a.token, { crateName: "New Playlist #05" });
    expect((await newCrate(a.token)).crateName).toBe("New Playlist #5");
    expect((await newCrate((await signUp()).token)).crateName).toBe("New Playlist #1");
  });

  it("gives concurrent unnamed creates distinct numbers", async () => {
    const a = await signUp();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => pl("/crate", { body: {}, token: a.token })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const names = results
      .map((r) => r.body.crateName)
      .sort((x: string, y: string) => Number(x.slice(14)) - Number(y.slice(14)));
    expect(names).toEqual(Array.from({ length: 12 }, (_, i) => `New Playlist #${i + 1}`));
  });

  it("refuses bad input with 400 and writes nothing", async () => {
    const a = await signUp();
    const before = await countRows("crates");
    for (const body of [
      { crateName: 5 },
      { crateName: "x".repeat(101) },
      { isPublic: "yes" },
      { description: "d".repeat(1001) },
      "not json",
    ]) {
      const res = await pl("/crate", { body, token: a.token });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("Bad Request");
    }
    expect(await countRows("crates")).toBe(before);
  });

  it("needs an account: 401 without a token, 403 for a guest", async () => {
    expect((await pl("/crate", { body: {} })).status).toBe(401);
    expect((await pl("/crate", { body: {}, token: await guestToken() })).status).toBe(403);
  });
});

describe("GET, PATCH and DELETE /crate/{id}", () => {
  it("lets anyone with a token read a public crate, and only the owner a private one", async () => {
    const [a, b] = await Promise.all([signUp(), signUp()]);
    const pub = await newCrate(a.token, { crateName: "Open" });
    const priv = await newCrate(a.token, { crateName: "Secret", isPublic: false });
    expect((await pl(`/crate/${pub.crateUuid}`, { token: b.token })).body.crateName).toBe("Open");
    expect((await pl(`/crate/${pub.crateUuid}`, { token: await guestToken() })).status).toBe(200);
    expect((await pl(`/crate/${priv.crateUuid}`, { token: a.token })).status).toBe(200);
    const hidden = await pl(`/crate/${priv.crateUuid}`, { token: b.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body.message).toBe(SONG_MSG.crateNotFound);
    expect((await pl(`/crate/${crypto.randomUUID()}`, { token: a.token })).status).toBe(404);
    expect((await pl("/crate/not-a-uuid", { token: a.token })).status).toBe(400);
    expect((await pl(`/crate/${pub.crateUuid}`)).status).toBe(401);
  });

  it("lets only the owner edit", async () => {
    const [a, b] = await Promise.all([signUp(), signUp()]);
    const crate = await newCrate(a.token, { crateName: "Mine" });
    const res = await pl(`/crate/${crate.crateUuid}`, {
      method: "PATCH",
      body: { crateName: "Renamed", description: null, isPublic: false },
      token: a.token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ crateName: "Renamed", description: null, isPublic: false });
    // Private now: to others it does not exist; while public, others are forbidden.
    expect(
      (
        await pl(`/crate/${crate.crateUuid}`, {
          method: "PATCH",
          body: { crateName: "Theirs" },
          token: b.token,
        })
      ).status,
    ).toBe(404);
    await pl(`/crate/${crate.crateUuid}`, {
      method: "PATCH",
      body: { isPublic: true },
      token: a.token,
    });
    const forbidden = await pl(`/crate/${crate.crateUuid}`, {
      method: "PATCH",
      body: { crateName: "Theirs" },
      token: b.token,
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toBe(SONG_MSG.crateForbidden);
    expect(
      (await pl(`/crate/${crate.crateUuid}`, { method: "PATCH", body: { crateName: "X" } })).status,
    ).toBe(401);
    for (const body of [{}, { crateName: "" }, { crateName: 1 }, { isPublic: "no" }]) {
      expect(
        (await pl(`/crate/${crate.crateUuid}`, { method: "PATCH", body, token: a.token })).status,
      ).toBe(400);
    }
    expect((await pl(`/crate/${crate.crateUuid}`, { token: a.token })).body.crateName).toBe(
      "Renamed",
    );
  });

  it("lets only the owner delete, with the crate's songs", async () => {
    const [a, b] = await Promise.all([signUp(), signUp()]);
    const crate = await newCrate(a.token);
    await addSongs(a.token, `/crate/${crate.crateUuid}`, await seedSongs(2));
    expect((await pl(`/crate/${crate.crateUuid}`, { method: "DELETE" })).status).toBe(401);
    expect(
      (await pl(`/crate/${crate.crateUuid}`, { method: "DELETE", token: b.token })).status,
    ).toBe(403);
    expect((await pl("/crate/nope", { method: "DELETE", token: a.token })).status).toBe(400);
    const before = await countRows("crate_songs");
    const res = await pl(`/crate/${crate.crateUuid}`, { method: "DELETE", token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ crateUuid: crate.crateUuid, deleted: true });
    expect(await countRows("crate_songs")).toBe(before - 2);
    expect((await pl(`/crate/${crate.crateUuid}`, { token: a.token })).status).toBe(404);
  });

  it("refuses to delete or rename the queue and likes, even by uuid", async () => {
    const a = await signUp();
    const likes = (await pl("/crate/likes", { token: a.token })).body;
    const del = await pl(`/crate/${likes.crateUuid}`, { method: "DELETE", token: a.token });
    expect(del.status).toBe(403);
    expect(del.body.message).toBe(CRATE_MSG.specialLocked);
    expect(
      (
        await pl(`/crate/${likes.crateUuid}`, {
          method: "PATCH",
          body: { crateName: "mine" },
          token: a.token,
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await pl(`/crate/${likes.crateUuid}`, {
          method: "PATCH",
          body: { description: "what I like" },
          token: a.token,
        })
      ).body.description,
    ).toBe("what I like");
  });
});

describe("crate lists", () => {
  it("GET /crate/user lists the caller's crates with song counts, special ones only on request", async () => {
    const a = await signUp();
    const one = await newCrate(a.token, { crateName: "One" });
    await newCrate(a.token, { crateName: "Two", isPublic: false });
    await addSongs(a.token, `/crate/${one.crateUuid}`, await seedSongs(3));
    await pl("/crate/queue", { token: a.token });
    const res = await pl("/crate/user", { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.data.map((c: { crateName: string }) => c.crateName)).toEqual(["Two", "One"]);
    expect(res.body.data[1]).toMatchObject({ crateSongsNumber: 3, count: 3 });
    const all = await pl("/crate/user?includeSpecial=true", { token: a.token });
    expect(all.body.total).toBe(3);
    expect(all.body.data[0].crateType).toBe("default");
    const page = await pl("/crate/user?limit=1&offset=1", { token: a.token });
    expect(page.body).toMatchObject({ total: 2, data: [{ crateName: "One" }] });
    for (const q of ["limit=0", "limit=101", "offset=-1", "includeSpecial=maybe"])
      expect((await pl(`/crate/user?${q}`, { token: a.token })).status).toBe(400);
    expect((await pl("/crate/user")).status).toBe(401);
    expect((await pl("/crate/user", { token: await guestToken() })).status).toBe(403);
  });

  it("GET /crate/user/{userUuid} shows others only the public crates", async () => {
    const [a, b] = await Promise.all([signUp(), signUp()]);
    await newCrate(a.token, { crateName: "Shown" });
    await newCrate(a.token, { crateName: "Hidden", isPublic: false });
    const theirs = await pl(`/crate/user/${a.uuid}`, { token: b.token });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ total: 1, data: [{ crateName: "Shown" }] });
    expect((await pl(`/crate/user/${a.uuid}`, { token: a.token })).body.total).toBe(2);
    expect((await pl(`/crate/user/${a.uuid}?limit=500`, { token: b.token })).status).toBe(400);
    expect((await pl("/crate/user/abc", { token: b.token })).status).toBe(400);
    expect((await pl(`/crate/user/${a.uuid}`)).status).toBe(401);
  });

  it("GET /crate/service lists every crate for services and admins only", async () => {
    const a = await signUp();
    await newCrate(a.token, { crateName: "Private", isPublic: false });
    const res = await pl("/crate/service?take=100", { headers: SERVICE });
    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThanOrEqual(1);
    expect(res.body.data.some((c: { userUuid: string }) => c.userUuid === a.uuid)).toBe(true);
    expect((await pl("/crate/service", { token: (await admin()).token })).status).toBe(200);
    expect((await pl("/crate/service", { token: a.token })).status).toBe(403);
    expect((await pl("/crate/service")).status).toBe(401);
    expect((await pl("/crate/service?take=0", { headers: SERVICE })).status).toBe(400);
  });
});

describe("PUT /crate/{crateId}/copy", () => {
  it("copies the caller's crate with its songs in order", async () => {
    const a = await signUp();
    const src = await newCrate(a.token, { crateName: "Original", description: "d" });
    const list = await seedSongs(4);
    const added = await addSongs(a.token, `/crate/${src.crateUuid}`, list);
    await pl(`/crate/${src.crateUuid}/songs/${added[3].crateSongUuid}/position`, {
      method: "PUT",
      body: { newPosition: 0 },
      token: a.token,
    });
    const res = await pl(`/crate/${src.crateUuid}/copy`, {
      method: "PUT",
      body: {},
      token: a.token,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      crateName: "Original (copy)",
      description: "d",
      userUuid: a.uuid,
      crateSongsNumber: 4,
      crateType: null,
    });
    expect(res.body.crateUuid).not.toBe(src.crateUuid);
    const expected = [list[3], list[0], list[1], list[2]].map((s) => s.songId);
    expect(await songOrder(a.token, `/crate/${res.body.crateUuid}`)).toEqual(expected);
    expect(await songOrder(a.token, `/crate/${src.crateUuid}`)).toEqual(expected);
    const [copyRows, srcRows] = [
      await expectDense(res.body.crateUuid),
      (await crateRows(src.crateUuid)).rows,
    ];
    expect(
      copyRows
        .map((r) => r.crateSongUuid)
        .filter((u) => srcRows.some((s) => s.crateSongUuid === u)),
    ).toEqual([]);
    const named = await pl(`/crate/${src.crateUuid}/copy`, {
      method: "PUT",
      body: { crateName: "Mine too" },
      token: a.token,
    });
    expect(named.body.crateName).toBe("Mine too");
  });

  it("lets only the owner copy", async () => {
    const [a, b] = await Promise.all([signUp(), signUp()]);
    const pub = await newCrate(a.token, { crateName: "Public" });
    const priv = await newCrate(a.token, { crateName: "Private", isPublic: false });
    const before = await countRows("crates");
    expect(
      (await pl(`/crate/${pub.crateUuid}/copy`, { method: "PUT", body: {}, token: b.token }))
        .status,
    ).toBe(403);
    expect(
      (await pl(`/crate/${priv.crateUuid}/copy`, { method: "PUT", body: {}, token: b.token }))
        .status,
    ).toBe(404);
    expect((await pl(`/crate/${pub.crateUuid}/copy`, { method: "PUT", body: {} })).status).toBe(
      401,
    );
    expect(
      (
        await pl(`/crate/${pub.crateUuid}/copy`, {
          method: "PUT",
          body: { crateName: 3 },
          token: a.token,
        })
      ).status,
    ).toBe(400);
    expect((await pl("/crate/xyz/copy", { method: "PUT", body: {}, token: a.token })).status).toBe(
      400,
    );
    expect(await countRows("crates")).toBe(before);
  });
});
