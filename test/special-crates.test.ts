import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { crates } from "../workers/db/schema";
import { MSG as CRATE_MSG } from "../workers/playlist-service/messages";
import {
  addSongs,
  expectDense,
  newCrate,
  pl,
  seedSong,
  seedSongs,
  songOrder,
} from "./crate-helpers";
import { countRows, guestToken, signUp } from "./helpers";

const SPECIAL = [
  ["queue", "default", "default"],
  ["likes", "tt-stars", "starred"],
] as const;

describe.each(SPECIAL)("/crate/%s", (kind, crateType, crateName) => {
  const base = `/crate/${kind}`;

  it("is made on first use, once, even under 10 concurrent first uses", async () => {
    const a = await signUp();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => pl(i % 2 ? base : `${base}/songs`, { token: a.token })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const rows = await db(env)
      .select()
      .from(crates)
      .where(and(eq(crates.userUuid, a.uuid), eq(crates.crateType, crateType)))
      .all();
    expect(rows.length).toBe(1);
    const dto = (await pl(base, { token: a.token })).body;
    expect(dto).toMatchObject({
      crateUuid: rows[0].crateUuid,
      crateName,
      crateType,
      userUuid: a.uuid,
      isPublic: false,
      crateSongsNumber: 0,
    });
    expect(dto.crateName).not.toMatch(/New Playlist/);
    // Unnamed crates still start at #1: the special crates take no number.
    expect((await newCrate(a.token)).crateName).toBe("New Playlist #1");
  });

  it("takes the song calls of any crate: add, list, move, remove, shuffle, current position", async () => {
    const a = await signUp();
    const list = await seedSongs(4);
    const added = await addSongs(a.token, base, list);
    expect(await songOrder(a.token, base)).toEqual(list.map((s) => s.songId));
    const top = await seedSong();
    expect(
      (await pl(`${base}/songs`, { body: { songId: top.songId, append: false }, token: a.token }))
        .body.position,
    ).toBe(0);
    const moved = await pl(`${base}/songs/${added[3].crateSongUuid}/position`, {
      method: "PUT",
      body: { newPosition: 0 },
      token: a.token,
    });
    expect(moved.status).toBe(200);
    expect((await songOrder(a.token, base))[0]).toBe(list[3].songId);
    expect(
      (
        await pl(`${base}/songs`, {
          method: "DELETE",
          body: { crateSongUuids: [added[0].crateSongUuid] },
          token: a.token,
        })
      ).body,
    ).toEqual({ removed: 1 });
    expect(
      (
        await pl(`${base}/current-position`, {
          method: "PUT",
          body: { currentPosition: 3 },
          token: a.token,
        })
      ).body.currentPosition,
    ).toBe(3);
    expect(
      (await pl(`${base}/shuffle`, { method: "POST", token: a.token })).body.crateSongsNumber,
    ).toBe(4);
    await expectDense((await pl(base, { token: a.token })).body.crateUuid);
  });

  it("clears, but cannot be deleted or renamed", async () => {
    const a = await signUp();
    await addSongs(a.token, base, await seedSongs(3));
    const del = await pl(base, { method: "DELETE", token: a.token });
    expect(del.status).toBe(403);
    expect(del.body.message).toBe(CRATE_MSG.specialLocked);
    const rename = await pl(base, {
      method: "PATCH",
      body: { crateName: "Other" },
      token: a.token,
    });
    expect(rename.status).toBe(403);
    expect(rename.body.message).toBe(CRATE_MSG.specialLocked);
    expect((await pl(base, { token: a.token })).body.crateName).toBe(crateName);
    const cleared = await pl(`${base}/clear`, { method: "DELETE", token: a.token });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ removed: 3 });
    expect((await pl(base, { token: a.token })).body).toMatchObject({
      crateSongsNumber: 0,
      currentPosition: 0,
    });
  });

  it("belongs to each caller: 401 without a token, 403 for guests, 400 for bad input", async () => {
    for (const [method, path] of [
      ["GET", base],
      ["GET", `${base}/songs`],
      ["DELETE", `${base}/clear`],
      ["POST", `${base}/shuffle`],
    ] as const) {
      expect((await pl(path, { method })).status).toBe(401);
      expect((await pl(path, { method, token: await guestToken() })).status).toBe(403);
    }
    const [a, b] = await Promise.all([signUp(), signUp()]);
    const song = await seedSong();
    await pl(`${base}/songs`, { body: { songId: song.songId }, token: a.token });
    expect((await pl(`${base}/songs`, { token: b.token })).body.total).toBe(0);
    const before = await countRows("crate_songs");
    expect((await pl(`${base}/songs`, { body: { songId: "x" }, token: a.token })).status).toBe(400);
    expect(
      (await pl(`${base}/current-position`, { method: "PUT", body: {}, token: a.token })).status,
    ).toBe(400);
    expect((await pl(`${base}/songs?limit=0`, { token: a.token })).status).toBe(400);
    expect(await countRows("crate_songs")).toBe(before);
  });

  it("is left out of GET /crate/user unless includeSpecial=true", async () => {
    const a = await signUp();
    await pl(base, { token: a.token });
    await newCrate(a.token, { crateName: "Plain" });
    expect(
      (await pl("/crate/user", { token: a.token })).body.data.map(
        (c: { crateName: string }) => c.crateName,
      ),
    ).toEqual(["Plain"]);
    const all = (await pl("/crate/user?includeSpecial=true", { token: a.token })).body;
    expect(all.data.map((c: { crateType: string | null }) => c.crateType)).toEqual([
      crateType,
      null,
    ]);
    // Others never see them (they are private).
    expect(
      (await pl(`/crate/user/${a.uuid}?includeSpecial=true`, { token: (await signUp()).token }))
        .body.total,
    ).toBe(1);
  });
});

describe("likes", () => {
  it("holds a song once; the queue may repeat it", async () => {
    const a = await signUp();
    const song = await seedSong();
    const first = await pl("/crate/likes/songs", { body: { songId: song.songId }, token: a.token });
    const again = await pl("/crate/likes/songs", { body: { songId: song.songId }, token: a.token });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.crateSongUuid).toBe(first.body.crateSongUuid);
    const racing = await Promise.all(
      Array.from({ length: 5 }, () =>
        pl("/crate/likes/songs", { body: { songId: song.songId, append: false }, token: a.token }),
      ),
    );
    expect(racing.every((r) => r.status === 200)).toBe(true);
    expect((await pl("/crate/likes/songs", { token: a.token })).body.total).toBe(1);
    await pl("/crate/queue/songs", { body: { songId: song.songId }, token: a.token });
    await pl("/crate/queue/songs", { body: { songId: song.songId }, token: a.token });
    expect((await pl("/crate/queue/songs", { token: a.token })).body.total).toBe(2);
  });

  it("routes /crate/queue and /crate/likes ahead of /crate/{id}", async () => {
    const a = await signUp();
    expect((await pl("/crate/queue", { token: a.token })).body.crateType).toBe("default");
    expect((await pl("/crate/likes/songs", { token: a.token })).body).toEqual({
      data: [],
      total: 0,
    });
    // Any other word is not a uuid.
    expect((await pl("/crate/favourites", { token: a.token })).status).toBe(400);
  });
});
