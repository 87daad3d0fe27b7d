import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SONG_STATUSES } from "../shared/songs";
import { db } from "../workers/db/client";
import { songs } from "../workers/db/schema";
import { newShortId } from "../workers/songs/dto";
import { SONG_MSG } from "../workers/songs/messages";
import { MSG as UPLOAD_MSG } from "../workers/upload-service/messages";
import { SONG_TRANSITIONS } from "../workers/upload-service/uploads";
import { admin, forgedToken, guestToken, signUp, type TestAccount } from "./helpers";
import { concat, mp3, namedTag, songRowCounts, svc, uploadSong } from "./songs-helpers";

/** Uploads a 3-second MP3 named by its tag; answers the SongDto. */
async function upload(
  a: TestAccount,
  track: string,
  artist = "Artist",
  fields: Record<string, string> = {},
) {
  const res = await uploadSong(a.token, mp3(3, namedTag(track, artist)), fields);
  expect(res.status).toBe(201);
  return res.body;
}
const get = (id: string, token?: string) => svc(`/songs/${id}`, { token });
const patch = (id: string, token: string | undefined, body: unknown) =>
  svc(`/songs/${id}`, { method: "PATCH", token, body });

describe("GET /songs/{songId}", () => {
  it("shows a private upload to its owner and admins only; others get 404", async () => {
    const owner = await signUp();
    const song = await upload(owner, "Private One");
    expect((await get(song.songId, owner.token)).body).toEqual(song);
    expect((await get(song.songId, (await admin()).token)).body.songId).toBe(song.songId);
    for (const token of [(await signUp()).token, await guestToken(), undefined]) {
      const res = await get(song.songId, token);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        statusCode: 404,
        message: SONG_MSG.songNotFound,
        error: "Not Found",
      });
    }
  });

  it("shows a public VERIFIED upload to anyone, without the owner-only detail", async () => {
    const owner = await signUp();
    const song = await upload(owner, "Public One", "Artist", { isPublic: "true" });
    const res = await get(song.songId);
    expect(res.status).toBe(200);
    const { detail: _, ...dto } = song;
    expect(res.body).toEqual(dto);
    // Public but not verified: still hidden.
    const unnamed = (await uploadSong(owner.token, mp3(3), { isPublic: "true" })).body;
    expect(unnamed.status).toBe("MISSING_METADATA");
    expect((await get(unnamed.songId, (await signUp()).token)).status).toBe(404);
  });

  it("is 400 for an id that is not a UUID, 404 for unknown ids and catalogue songs", async () => {
    const bad = await get("nope");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("songId must be a UUID");
    expect((await get(crypto.randomUUID())).status).toBe(404);
    expect((await get(crypto.randomUUID(), await forgedToken(await signUp()))).status).toBe(401);
    const songId = crypto.randomUUID();
    await db(env).insert(songs).values({
      songId,
      songShortId: newShortId(),
      trackName: "Catalogue",
      artistName: "Label",
      status: "VERIFIED",
      isPublic: true,
    });
    expect((await get(songId)).status).toBe(404);
  });
});

describe("PATCH /songs/{songId} and POST /metadata", () => {
  it("lets the owner edit tags (null clears), with strict validation that writes nothing", async () => {
    const owner = await signUp();
    const song = await upload(owner, "Before", "Band");
    const ok = await patch(song.songId, owner.token, {
      trackName: "After",
      albumName: "LP",
      genre: "Pop",
      releaseYear: 1999,
      explicit: true,
      isrc: "GBAYE0601498",
      isPublic: true,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      trackName: "After",
      artistName: "Band",
      albumName: "LP",
      genre: "Pop",
      releaseYear: 1999,
      explicit: true,
      isrc: "GBAYE0601498",
      isPublic: true,
      status: "VERIFIED",
    });
    expect((await patch(song.songId, owner.token, { albumName: null })).body.albumName).toBeNull();
    const before = (await get(song.songId, owner.token)).body;
    const cases: [unknown, string][] = [
      [{}, UPLOAD_MSG.nothingToUpdate],
      [{ mood: "sad" }, 'Unrecognized key: "mood"'],
      [{ trackName: "" }, "trackName must not be empty"],
      [{ artistName: "a".repeat(201) }, "artistName must be at most 200 characters"],
      [{ genre: "g".repeat(51) }, "genre must be at most 50 characters"],
      [{ releaseYear: 1899 }, "releaseYear must be 1900 or later"],
      [{ releaseYear: 2101 }, "releaseYear must be 2100 or earlier"],
      [{ releaseYear: 1999.5 }, "releaseYear must be a whole year"],
      [{ isrc: "US-RC1-76-07839" }, "isrc must be an ISRC like USRC17607839"],
      [{ explicit: "yes" }, "explicit must be true or false"],
      [{ status: "VERIFICATION_ERROR" }, "status must be UNVERIFIED or VERIFIED"],
    ];
    for (const [body, message] of cases) {
      const res = await patch(song.songId, owner.token, body);
      expect(res.status, message).toBe(400);
      expect([res.body.message].flat().join(" | "), message).toContain(message);
    }
    expect((await get(song.songId, owner.token)).body).toEqual(before);
  });

  it("refuses anyone but the owner with the catalogue's message, admins included", async () => {
    const owner = await signUp();
    const song = await upload(owner, "Mine", "Me");
    for (const token of [(await signUp()).token, (await admin()).token]) {
      for (const res of [
        await patch(song.songId, token, { trackName: "Stolen" }),
        await svc("/metadata", { token, body: { songId: song.songId, trackName: "Stolen" } }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          statusCode: 403,
          message: "Unauthorized to edit tags that not belongs to the user.",
          error: "Forbidden",
        });
      }
    }
    expect((await patch(song.songId, await guestToken(), { trackName: "x" })).status).toBe(403);
    expect((await patch(song.songId, undefined, { trackName: "x" })).status).toBe(401);
    expect((await patch(crypto.randomUUID(), owner.token, { trackName: "x" })).status).toBe(404);
    expect((await get(song.songId, owner.token)).body.trackName).toBe("Mine");
  });

  it("checks POST /metadata's body: songId required, at least one field", async () => {
    const owner = await signUp();
    const song = await upload(owner, "Meta");
    expect(
      (await svc("/metadata", { token: owner.token, body: { trackName: "x" } })).body.message,
    ).toBe("songId must be a UUID");
    expect(
      (await svc("/metadata", { token: owner.token, body: { songId: song.songId } })).body.message,
    ).toBe(UPLOAD_MSG.nothingToUpdate);
    expect(
      (
        await svc("/metadata", {
          token: owner.token,
          body: { songId: crypto.randomUUID(), trackName: "x" },
        })
      ).status,
    ).toBe(404);
    expect((await svc("/metadata", { body: { songId: song.songId, trackName: "x" } })).status).toBe(
      401,
    );
  });

  it("lets only an admin take a song down (UNVERIFIED: not playable, not public) and put it back", async () => {
    const owner = await signUp();
    const boss = await admin();
    const song = await upload(owner, "Takedown", "Target", { isPublic: "true" });
    const own = await patch(song.songId, owner.token, { status: "UNVERIFIED" });
    expect(own.status).toBe(403);
    expect(own.body.message).toBe(UPLOAD_MSG.statusAdminOnly);
    const down = await patch(song.songId, boss.token, { status: "UNVERIFIED" });
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ status: "UNVERIFIED", streamUrls: {} });
    expect(
      (await svc(`/songs/${song.songId}/hls-playlist`, { token: owner.token })).body.message,
    ).toBe(SONG_MSG.notVerified);
    expect((await get(song.songId, (await signUp()).token)).status).toBe(404);
    // The owner's edits do not verify it again.
    expect((await patch(song.songId, owner.token, { trackName: "Renamed" })).body.status).toBe(
      "UNVERIFIED",
    );
    expect((await patch(song.songId, boss.token, { status: "VERIFIED" })).body).toMatchObject({
      status: "VERIFIED",
      trackName: "Renamed",
    });
    // Only a taken-down song with audio can be verified by hand.
    const broken = (
      await uploadSong(owner.token, concat(namedTag("Broken", "X"), new Uint8Array(3000)))
    ).body;
    const refused = await patch(broken.songId, boss.token, { status: "VERIFIED" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(UPLOAD_MSG.cannotReinstate);
  });

  it("keeps the status table complete", () => {
    expect(Object.keys(SONG_TRANSITIONS).sort()).toEqual([...SONG_STATUSES].sort());
    for (const [from, to] of Object.entries(SONG_TRANSITIONS))
      for (const s of to) expect(SONG_STATUSES, `${from} -> ${s}`).toContain(s);
  });
});

describe("DELETE /songs/{songId}", () => {
  it("lets the owner or an admin delete: rows and R2 objects gone; others are refused", async () => {
    const owner = await signUp();
    const mine = await upload(owner, "Delete Me");
    const theirs = await upload(owner, "Admin Deletes");
    const other = await svc(`/songs/${mine.songId}`, {
      method: "DELETE",
      token: (await signUp()).token,
    });
    expect(other.status).toBe(403);
    expect(other.body.message).toBe(UPLOAD_MSG.deleteForbidden);
    expect(
      (await svc(`/songs/${mine.songId}`, { method: "DELETE", token: await guestToken() })).status,
    ).toBe(403);
    expect((await svc(`/songs/${mine.songId}`, { method: "DELETE" })).status).toBe(401);
    expect((await svc("/songs/nope", { method: "DELETE", token: owner.token })).body.message).toBe(
      "songId must be a UUID",
    );
    const rows = await songRowCounts();
    const res = await svc(`/songs/${mine.songId}`, { method: "DELETE", token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ songId: mine.songId, deleted: true });
    expect(await songRowCounts()).toEqual({ songs: rows.songs - 1, files: rows.files - 1 });
    expect((await env.UPLOADS.list({ prefix: `songs/${mine.songId}/` })).objects).toEqual([]);
    expect((await get(mine.songId, owner.token)).status).toBe(404);
    expect(
      (await svc(`/songs/${mine.songId}`, { method: "DELETE", token: owner.token })).status,
    ).toBe(404);
    expect(
      (await svc(`/songs/${theirs.songId}`, { method: "DELETE", token: (await admin()).token }))
        .body,
    ).toEqual({ songId: theirs.songId, deleted: true });
  });
});

describe("lists and search", () => {
  it("GET /songs lists the caller's own uploads, filtered by verified, with limit/offset and total", async () => {
    const a = await signUp();
    const v1 = await upload(a, "One");
    const pending = (await uploadSong(a.token, mp3(3))).body;
    const v2 = await upload(a, "Two");
    await upload(await signUp(), "Someone else's");
    const all = await svc("/songs", { token: a.token });
    expect(all.body.total).toBe(3);
    expect(all.body.data.map((s: { songId: string }) => s.songId)).toEqual([
      v2.songId,
      pending.songId,
      v1.songId,
    ]);
    expect(
      (await svc("/songs?verified=true", { token: a.token })).body.data.map(
        (s: { trackName: string }) => s.trackName,
      ),
    ).toEqual(["Two", "One"]);
    expect((await svc("/songs?verified=false", { token: a.token })).body).toMatchObject({
      total: 1,
      data: [{ songId: pending.songId, status: "MISSING_METADATA" }],
    });
    const paged = (await svc("/songs?limit=1&offset=1", { token: a.token })).body;
    expect(paged.total).toBe(3);
    expect(paged.data.map((s: { songId: string }) => s.songId)).toEqual([pending.songId]);
    expect((await svc("/songs?verified=maybe", { token: a.token })).body.message).toBe(
      "verified must be true or false",
    );
    expect((await svc("/songs?limit=0", { token: a.token })).status).toBe(400);
    expect((await svc("/songs")).status).toBe(401);
    expect((await svc("/songs", { token: await guestToken() })).status).toBe(403);
  });

  it("GET /songs/public lists public VERIFIED uploads only, newest first, for anyone", async () => {
    const a = await signUp();
    const older = await upload(a, "Public Older", "Artist", { isPublic: "true" });
    const priv = await upload(a, "Private");
    const unnamed = (await uploadSong(a.token, mp3(3), { isPublic: "true" })).body;
    const newer = await upload(a, "Public Newer", "Artist", { isPublic: "true" });
    const res = await svc("/songs/public?limit=100");
    expect(res.status).toBe(200);
    const ids = res.body.data.map((s: { songId: string }) => s.songId);
    expect(ids.indexOf(newer.songId)).toBeLessThan(ids.indexOf(older.songId));
    expect(ids.indexOf(older.songId)).toBeGreaterThanOrEqual(0);
    expect(ids).not.toContain(priv.songId);
    expect(ids).not.toContain(unnamed.songId);
    expect(res.body.total).toBeGreaterThanOrEqual(2);
    expect(
      res.body.data.every(
        (s: { status: string; isPublic: boolean }) => s.status === "VERIFIED" && s.isPublic,
      ),
    ).toBe(true);
    expect((await svc("/songs/public?limit=101")).body.message).toBe("limit must be at most 100");
    expect((await svc("/songs/public", { token: await forgedToken(await signUp()) })).status).toBe(
      401,
    );
  });

  it("GET /search finds the caller's uploads and public ones, never others' private ones", async () => {
    const word = `zq${crypto.randomUUID().slice(0, 8)}`;
    const a = await signUp();
    const b = await signUp();
    const mine = (await uploadSong(a.token, mp3(3), { trackName: `${word} mine` })).body; // MISSING_METADATA, still mine
    const theirsPublic = await upload(b, `${word} public`, "B", { isPublic: "true" });
    await upload(b, `${word} private`, "B");
    const res = await svc(`/search?term=${word}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.data.map((s: { songId: string }) => s.songId).sort()).toEqual(
      [mine.songId, theirsPublic.songId].sort(),
    );
    expect(
      (await svc(`/search?term=${word}%20publ`, { token: a.token })).body.data.map(
        (s: { songId: string }) => s.songId,
      ),
    ).toEqual([theirsPublic.songId]);
    for (const term of ["", "%20%20", "!!", undefined]) {
      const bad = await svc(term === undefined ? "/search" : `/search?term=${term}`, {
        token: a.token,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe(SONG_MSG.emptySearch);
    }
    expect((await svc(`/search?term=${word}`)).status).toBe(401);
    expect((await svc(`/search?term=${word}`, { token: await guestToken() })).status).toBe(403);
  });
});
