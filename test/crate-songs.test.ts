import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { randomPermutation } from "../workers/crates/crate-repo";
import { CRATE_MSG } from "../workers/crates/messages";
import { SONG_MSG } from "../workers/songs/messages";
import {
  addSongs,
  crateRows,
  expectDense,
  newCrate,
  pl,
  seedSong,
  seedSongs,
  songOrder,
} from "./crate-helpers";
import { countRows, guestToken, signUp, type TestAccount } from "./helpers";

/** A crate of `n` seeded songs owned by a new account. */
async function filledCrate(n: number, over: Record<string, unknown> = {}) {
  const owner = await signUp();
  const crate = await newCrate(owner.token, over);
  const base = `/crate/${crate.crateUuid}`;
  const list = await seedSongs(n);
  const added = await addSongs(owner.token, base, list);
  return { owner, crate, base, list, added };
}

const move = (t: TestAccount, base: string, crateSongUuid: string, newPosition: unknown) =>
  pl(`${base}/songs/${crateSongUuid}/position`, {
    method: "PUT",
    body: { newPosition },
    token: t.token,
  });
const current = async (t: TestAccount, base: string) =>
  (await pl(base, { token: t.token })).body.currentPosition;

describe("GET /crate/{crateId}/songs", () => {
  it("lists the songs in order with paging", async () => {
    const { owner, base, list, crate } = await filledCrate(5);
    const res = await pl(`${base}/songs?limit=2&offset=1`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(5);
    expect(res.body.data.map((s: { songId: string }) => s.songId)).toEqual([
      list[1].songId,
      list[2].songId,
    ]);
    expect(res.body.data[0]).toMatchObject({
      position: 1,
      trackName: list[1].trackName,
      playbackToken: null,
    });
    expect(res.body.data[0].crateSongUuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      (await pl(`/crate/${crate.crateUuid}`, { token: owner.token })).body.crateSongsNumber,
    ).toBe(5);
  });

  it("shows a public crate to anyone with a token and hides a private one", async () => {
    const { base } = await filledCrate(1);
    const other = await signUp();
    expect((await pl(`${base}/songs`, { token: other.token })).status).toBe(200);
    expect((await pl(`${base}/songs`, { token: await guestToken() })).status).toBe(200);
    expect((await pl(`${base}/songs`)).status).toBe(401);
    const priv = await filledCrate(1, { isPublic: false });
    expect((await pl(`${priv.base}/songs`, { token: other.token })).status).toBe(404);
    expect((await pl(`${priv.base}/songs`, { token: priv.owner.token })).status).toBe(200);
    expect((await pl(`${base}/songs?limit=101`, { token: other.token })).status).toBe(400);
    expect((await pl("/crate/12/songs", { token: other.token })).status).toBe(400);
  });

  it("never shows songs the viewer may not see: another's private upload, or one taken down after it was added", async () => {
    const owner = await signUp();
    const other = await signUp();
    const crate = await newCrate(owner.token);
    const base = `/crate/${crate.crateUuid}`;
    const listed = await seedSong();
    const mine = await seedSong({
      ownerUuid: owner.uuid,
      isPublic: false,
      trackName: "Owner's Secret Demo",
    });
    const later = await seedSong({ ownerUuid: crypto.randomUUID(), isPublic: true });
    await addSongs(owner.token, base, [listed, mine, later]);
    // The uploader takes their song private after it was added.
    await env.DB.prepare("update songs set is_public = 0 where id = ?").bind(later.id).run();
    const ids = (body: { data: { songId: string }[] }) => body.data.map((s) => s.songId);
    for (const token of [other.token, await guestToken()]) {
      const res = await pl(`${base}/songs`, { token });
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual([listed.songId]);
      expect(res.body.total).toBe(1);
    }
    const own = await pl(`${base}/songs`, { token: owner.token });
    expect(ids(own.body)).toEqual([listed.songId, mine.songId]);
    expect(own.body.total).toBe(2);
    // The reorder answer is the owner's page too, without the hidden song.
    const moved = await move(owner, base, own.body.data[0].crateSongUuid, 2);
    expect(moved.status).toBe(200);
    expect(ids(moved.body)).toEqual([mine.songId, listed.songId]);
  });
});

describe("POST /crate/{crateId}/songs", () => {
  it("appends by default and prepends with append=false, keeping the current song current", async () => {
    const { owner, base, list, crate } = await filledCrate(2);
    await pl(`${base}/current-position`, {
      method: "PUT",
      body: { currentPosition: 1 },
      token: owner.token,
    });
    const top = await seedSong();
    const res = await pl(`${base}/songs`, {
      body: { songId: top.songId, append: false },
      token: owner.token,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ songId: top.songId, position: 0 });
    expect(await songOrder(owner.token, base)).toEqual([
      top.songId,
      list[0].songId,
      list[1].songId,
    ]);
    expect(await current(owner, base)).toBe(2);
    await expectDense(crate.crateUuid);
  });

  it("takes listed songs, catalogue songs and the caller's own uploads, nothing else", async () => {
    const { owner, base } = await filledCrate(0);
    const mine = await seedSong({
      ownerUuid: owner.uuid,
      isPublic: false,
      status: "PENDING_UPLOAD",
    });
    const catalogue = await seedSong({ ownerUuid: null, isPublic: false });
    const theirs = await seedSong({ ownerUuid: crypto.randomUUID(), isPublic: false });
    const unverified = await seedSong({
      ownerUuid: crypto.randomUUID(),
      isPublic: true,
      status: "UNVERIFIED",
    });
    expect(
      (await pl(`${base}/songs`, { body: { songId: mine.songId }, token: owner.token })).status,
    ).toBe(201);
    expect(
      (await pl(`${base}/songs`, { body: { songId: catalogue.songId }, token: owner.token }))
        .status,
    ).toBe(201);
    for (const s of [theirs, unverified]) {
      const res = await pl(`${base}/songs`, { body: { songId: s.songId }, token: owner.token });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(SONG_MSG.songNotFound);
    }
    expect(
      (await pl(`${base}/songs`, { body: { songId: crypto.randomUUID() }, token: owner.token }))
        .status,
    ).toBe(404);
  });

  it("refuses bad input, strangers and missing tokens without writing", async () => {
    const { owner, base, list } = await filledCrate(1);
    const before = await countRows("crate_songs");
    for (const body of [{}, { songId: "abc" }, { songId: list[0].songId, append: "yes" }, []]) {
      expect((await pl(`${base}/songs`, { body, token: owner.token })).status).toBe(400);
    }
    const other = await signUp();
    const res = await pl(`${base}/songs`, { body: { songId: list[0].songId }, token: other.token });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(SONG_MSG.crateForbidden);
    expect(
      (await pl(`${base}/songs`, { body: { songId: list[0].songId }, token: await guestToken() }))
        .status,
    ).toBe(403);
    expect((await pl(`${base}/songs`, { body: { songId: list[0].songId } })).status).toBe(401);
    expect(await countRows("crate_songs")).toBe(before);
  });
});

describe("DELETE /crate/{crateId}/songs", () => {
  it("removes songs, closes the gaps and keeps the current song current", async () => {
    const { owner, base, list, added, crate } = await filledCrate(6);
    await pl(`${base}/current-position`, {
      method: "PUT",
      body: { currentPosition: 3 },
      token: owner.token,
    });
    const res = await pl(`${base}/songs`, {
      method: "DELETE",
      body: {
        crateSongUuids: [
          added[0].crateSongUuid,
          added[2].crateSongUuid,
          added[5].crateSongUuid,
          crypto.randomUUID(),
        ],
      },
      token: owner.token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ removed: 3 });
    expect(await songOrder(owner.token, base)).toEqual(
      [list[1], list[3], list[4]].map((s) => s.songId),
    );
    expect(await current(owner, base)).toBe(1); // list[3] was current and still is
    await expectDense(crate.crateUuid);
    // Removing the current song makes the next one current; removing the last, the new last.
    await pl(`${base}/songs`, {
      method: "DELETE",
      body: { crateSongUuids: [added[3].crateSongUuid] },
      token: owner.token,
    });
    expect(await current(owner, base)).toBe(1);
    await pl(`${base}/songs`, {
      method: "DELETE",
      body: { crateSongUuids: [added[4].crateSongUuid] },
      token: owner.token,
    });
    expect(await current(owner, base)).toBe(0);
  });

  it("refuses bad input, strangers and missing tokens", async () => {
    const { owner, base, added } = await filledCrate(2);
    for (const body of [
      {},
      { crateSongUuids: [] },
      { crateSongUuids: ["x"] },
      { crateSongUuids: "a" },
    ]) {
      expect(
        (await pl(`${base}/songs`, { method: "DELETE", body, token: owner.token })).status,
      ).toBe(400);
    }
    const body = { crateSongUuids: [added[0].crateSongUuid] };
    expect(
      (await pl(`${base}/songs`, { method: "DELETE", body, token: (await signUp()).token })).status,
    ).toBe(403);
    expect((await pl(`${base}/songs`, { method: "DELETE", body })).status).toBe(401);
    expect((await songOrder(owner.token, base)).length).toBe(2);
  });
});

describe("PUT /crate/{crateId}/songs/{crateSongUuid}/position", () => {
  it("moves one song, shifting the ones between, and clamps the target", async () => {
    const { owner, base, list, added, crate } = await filledCrate(5);
    const ids = (order: number[]) => order.map((i) => list[i].songId);
    const res = await move(owner, base, added[0].crateSongUuid, 3);
    expect(res.status).toBe(200);
    expect(
      res.body.data.find(
        (s: { crateSongUuid: string }) => s.crateSongUuid === added[0].crateSongUuid,
      ).position,
    ).toBe(3);
    expect(await songOrder(owner.token, base)).toEqual(ids([1, 2, 3, 0, 4]));
    await move(owner, base, added[4].crateSongUuid, 1);
    expect(await songOrder(owner.token, base)).toEqual(ids([1, 4, 2, 3, 0]));
    await move(owner, base, added[1].crateSongUuid, 99);
    expect(await songOrder(owner.token, base)).toEqual(ids([4, 2, 3, 0, 1]));
    await move(owner, base, added[1].crateSongUuid, -7);
    expect(await songOrder(owner.token, base)).toEqual(ids([1, 4, 2, 3, 0]));
    await expectDense(crate.crateUuid);
  });

  it("answers the page the song lands on and keeps the current song current", async () => {
    const { owner, base, added } = await filledCrate(5);
    await pl(`${base}/current-position`, {
      method: "PUT",
      body: { currentPosition: 2 },
      token: owner.token,
    });
    const res = await pl(`${base}/songs/${added[0].crateSongUuid}/position?limit=2`, {
      method: "PUT",
      body: { newPosition: 4 },
      token: owner.token,
    });
    expect(res.body.data.map((s: { position: number }) => s.position)).toEqual([4]);
    expect(await current(owner, base)).toBe(1);
    await move(owner, base, added[2].crateSongUuid, 0);
    expect(await current(owner, base)).toBe(0);
  });

  it("refuses bad input, unknown songs, strangers and missing tokens", async () => {
    const { owner, base, added } = await filledCrate(3);
    const u = added[0].crateSongUuid;
    for (const v of [1.5, "2", null, undefined])
      expect((await move(owner, base, u, v)).status).toBe(400);
    expect((await move(owner, base, "nope", 1)).status).toBe(400);
    const missing = await move(owner, base, crypto.randomUUID(), 1);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(SONG_MSG.crateSongNotFound);
    expect((await move(await signUp(), base, u, 1)).status).toBe(403);
    expect(
      (await pl(`${base}/songs/${u}/position`, { method: "PUT", body: { newPosition: 1 } })).status,
    ).toBe(401);
    expect((await songOrder(owner.token, base))[0]).toBe(added[0].songId);
  });
});

describe("shuffle and current position", () => {
  it("POST /shuffle permutes the songs and keeps positions dense", async () => {
    const { owner, base, list, crate } = await filledCrate(8);
    await pl(`${base}/current-position`, {
      method: "PUT",
      body: { currentPosition: 5 },
      token: owner.token,
    });
    const res = await pl(`${base}/shuffle`, { method: "POST", token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.crateSongsNumber).toBe(8);
    const order = await songOrder(owner.token, base);
    expect([...order].sort()).toEqual(list.map((s) => s.songId).sort());
    expect(order[res.body.currentPosition]).toBe(list[5].songId);
    await expectDense(crate.crateUuid);
    expect(
      (await pl(`${base}/shuffle`, { method: "POST", token: (await signUp()).token })).status,
    ).toBe(403);
    expect((await pl(`${base}/shuffle`, { method: "POST" })).status).toBe(401);
  });

  it("draws every permutation about equally often", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 6000; i++) {
      const k = randomPermutation(3).join("");
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect(counts.size).toBe(6);
    // Each expected 1000; ±200 is over six standard deviations.
    for (const v of counts.values()) expect(Math.abs(v - 1000)).toBeLessThan(200);
  });

  it("PUT /current-position takes 0..n-1, or 0 for an empty crate", async () => {
    const { owner, base } = await filledCrate(3);
    const res = await pl(`${base}/current-position`, {
      method: "PUT",
      body: { currentPosition: 2 },
      token: owner.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.currentPosition).toBe(2);
    const out = await pl(`${base}/current-position`, {
      method: "PUT",
      body: { currentPosition: 3 },
      token: owner.token,
    });
    expect(out.status).toBe(400);
    expect(out.body.message).toBe(CRATE_MSG.positionRange(3));
    for (const v of [-1, 0.5, "1"])
      expect(
        (
          await pl(`${base}/current-position`, {
            method: "PUT",
            body: { currentPosition: v },
            token: owner.token,
          })
        ).status,
      ).toBe(400);
    expect(await current(owner, base)).toBe(2);
    expect(
      (
        await pl(`${base}/current-position`, {
          method: "PUT",
          body: { currentPosition: 0 },
          token: (await signUp()).token,
        })
      ).status,
    ).toBe(403);
    expect(
      (await pl(`${base}/current-position`, { method: "PUT", body: { currentPosition: 0 } }))
        .status,
    ).toBe(401);
    const empty = await filledCrate(0);
    expect(
      (
        await pl(`${empty.base}/current-position`, {
          method: "PUT",
          body: { currentPosition: 0 },
          token: empty.owner.token,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await pl(`${empty.base}/current-position`, {
          method: "PUT",
          body: { currentPosition: 1 },
          token: empty.owner.token,
        })
      ).body.message,
    ).toBe(CRATE_MSG.positionRange(0));
  });
});

describe("concurrent changes", () => {
  it("20 concurrent moves, adds, removes and a shuffle leave positions 0..n-1 and lose no song", async () => {
    const { owner, base, list, added, crate } = await filledCrate(12);
    const extra = await seedSongs(6);
    const removed = [added[1], added[4], added[7]].map((a) => a.crateSongUuid);
    const ops: Promise<{ status: number }>[] = [];
    for (let i = 0; i < 20; i++) {
      const k = i % 5;
      if (k === 0 || k === 1)
        ops.push(move(owner, base, added[(i * 5) % 12].crateSongUuid, (i * 7) % 14));
      else if (k === 2)
        ops.push(
          pl(`${base}/songs`, {
            body: { songId: extra[i % 6].songId, append: i % 2 === 0 },
            token: owner.token,
          }),
        );
      else if (k === 3)
        ops.push(
          pl(`${base}/songs`, {
            method: "DELETE",
            body: { crateSongUuids: [removed[i % 3]] },
            token: owner.token,
          }),
        );
      else
        ops.push(
          i === 4
            ? pl(`${base}/shuffle`, { method: "POST", token: owner.token })
            : move(owner, base, added[(i + 3) % 12].crateSongUuid, 0),
        );
    }
    const statuses = (await Promise.all(ops)).map((r) => r.status);
    // A move of a song removed meanwhile is a 404; nothing else may fail.
    expect(statuses.every((s) => [200, 201, 404].includes(s))).toBe(true);
    const rows = await expectDense(crate.crateUuid);
    const { crate: row } = await crateRows(crate.crateUuid);
    const kept = added
      .filter((a) => !removed.includes(a.crateSongUuid))
      .map((a) => a.crateSongUuid);
    const addedCount = statuses.filter((s, i) => i % 5 === 2 && s === 201).length;
    expect(addedCount).toBe(4);
    expect(rows.length).toBe(kept.length + addedCount);
    for (const u of kept) expect(rows.some((r) => r.crateSongUuid === u)).toBe(true);
    expect(row!.currentPosition).toBeLessThan(rows.length);
    expect(
      new Set(
        (await songOrder(owner.token, base)).filter((id) => list.some((s) => s.songId === id)),
      ).size,
    ).toBe(9);
  });
});

describe("Add to queue, once (issue 20: the button says “already queued”)", () => {
  it("`once` adds a song the queue lacks (201) and answers the one it holds (200), adding nothing", async () => {
    const a = await signUp();
    const [song] = await seedSongs(1);
    const first = await pl("/crate/queue/songs", {
      token: a.token,
      body: { songId: song.songId, once: true },
    });
    expect(first.status).toBe(201);
    const again = await pl("/crate/queue/songs", {
      token: a.token,
      body: { songId: song.songId, once: true },
    });
    expect(again.status).toBe(200);
    expect(again.body.crateSongUuid).toBe(first.body.crateSongUuid);
    const list = await pl("/crate/queue/songs", { token: a.token });
    expect(list.body.data).toHaveLength(1);
    // Without it the queue may still repeat a song, as before.
    expect(
      (await pl("/crate/queue/songs", { token: a.token, body: { songId: song.songId } })).status,
    ).toBe(201);
    expect(
      (
        await pl("/crate/queue/songs", {
          token: a.token,
          body: { songId: song.songId, once: "yes" },
        })
      ).status,
    ).toBe(400);
  });

  it("a double click or two tabs at once: ten concurrent `once` adds make one row, one 201", async () => {
    const a = await signUp();
    const [song] = await seedSongs(1);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        pl("/crate/queue/songs", { token: a.token, body: { songId: song.songId, once: true } }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.every((r) => r.status === 201 || r.status === 200)).toBe(true);
    const list = await pl("/crate/queue/songs", { token: a.token });
    expect(list.body.data).toHaveLength(1);
  });
});
