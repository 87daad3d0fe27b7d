import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../workers/db/client";
import { songFiles, songs } from "../workers/db/schema";
import { SONG_MSG } from "../workers/songs/messages";
import { MSG as UPLOAD_MSG } from "../workers/upload-service/messages";
import { admin, derivedKey, guestToken, hmacWith, signUp, type TestAccount } from "./helpers";
import { mp3, namedTag, sameBytes, svc, uploadSong } from "./songs-helpers";

/**
 * The segment cache (issue 18): after the signature check, a segment's ciphertext comes from
 * the Cache API, keyed by song, segment and key epoch, never by who asks. Observable through
 * the `x-segment-cache` header, and through R2: once the object is gone, only a cached
 * segment still plays.
 */

const origin = "http://hangout.test";
const get = (path: string, token?: string) =>
  SELF.fetch(new URL(path, origin), {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });

const b64url = (b: Uint8Array) =>
  btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

async function segmentUris(songId: string, token: string) {
  const res = await get(`/api/upload-service/songs/${songId}/hls-playlist`, token);
  expect(res.status).toBe(200);
  return (await res.text()).split("\n").filter((l) => l.includes("/segments/"));
}

async function fetchSegment(uri: string) {
  const res = await get(uri);
  const body = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, cache: res.headers.get("x-segment-cache"), body };
}

async function upload(a: TestAccount, isPublic = true) {
  const res = await uploadSong(a.token, mp3(13, namedTag("Cached", "Segments")), {
    isPublic: String(isPublic),
  });
  expect(res.body.status).toBe("VERIFIED");
  return res.body.songId as string;
}

const r2KeyOf = async (songId: string) => {
  const row = await db(env)
    .select({ r2Key: songFiles.r2Key })
    .from(songFiles)
    .innerJoin(songs, eq(songs.id, songFiles.songId))
    .where(eq(songs.songId, songId))
    .get();
  return row!.r2Key;
};

describe("the segment cache", () => {
  it("serves a second listener's fetch from the cache: same bytes, no R2 read", async () => {
    const owner = await signUp();
    const songId = await upload(owner);
    const first = await segmentUris(songId, owner.token);
    const miss = await fetchSegment(first[0]);
    expect(miss).toMatchObject({ status: 200, cache: "miss" });

    // Another listener's playlist, and a URL signed for another expiry: the cache is keyed
    // by song, segment and epoch, never by the URL's signature or who asks.
    const second = await segmentUris(songId, await guestToken());
    const v = Number(new URL(first[0], origin).searchParams.get("v"));
    const exp = Math.floor(Date.now() / 1000) + 120;
    const sig = b64url(
      await hmacWith(await derivedKey("hangout/hls/v1"), `hls-seg:${songId}:0:${v}:${exp}`),
    );
    const resigned = `/api/upload-service/songs/${songId}/segments/0?v=${v}&exp=${exp}&sig=${sig}`;
    // The audio leaves R2: only the cache can still answer.
    await env.UPLOADS.delete(await r2KeyOf(songId));
    for (const uri of [second[0], resigned]) {
      const hit = await fetchSegment(uri);
      expect(hit).toMatchObject({ status: 200, cache: "hit" });
      expect(sameBytes(hit.body, miss.body)).toBe(true);
    }
    // A segment nobody fetched yet was never cached: it needs R2, which is gone.
    const cold = await get(second[1]);
    expect(cold.status).toBe(404);
    expect(((await cold.json()) as { message: string }).message).toBe(UPLOAD_MSG.audioMissing);
  });

  it("misses when the key epoch changes (a new version of the file)", async () => {
    const owner = await signUp();
    const songId = await upload(owner);
    const before = await segmentUris(songId, owner.token);
    expect((await fetchSegment(before[0])).cache).toBe("miss");
    expect((await fetchSegment(before[0])).cache).toBe("hit");
    // What a transcoder writing a new rendition does to the file row: a new version.
    const row = await db(env).select().from(songs).where(eq(songs.songId, songId)).get();
    await db(env)
      .update(songFiles)
      .set({ updatedAt: Date.now() + 1000 })
      .where(eq(songFiles.songId, row!.id));
    const after = await segmentUris(songId, owner.token);
    expect(after[0]).not.toBe(before[0]);
    expect((await fetchSegment(after[0])).cache).toBe("miss");
    expect((await fetchSegment(after[0])).cache).toBe("hit");
  });

  it("keeps packed audio and MPEG-TS apart: the same segment in the other container misses", async () => {
    const owner = await signUp();
    const songId = await upload(owner);
    const [mp3Uri] = await segmentUris(songId, owner.token);
    await fetchSegment(mp3Uri);
    expect((await fetchSegment(mp3Uri)).cache).toBe("hit");
    const tsUri = mp3Uri.replace("&exp=", "&c=ts&exp=");
    const ts = await fetchSegment(tsUri);
    expect(ts).toMatchObject({ status: 200, cache: "miss" });
    const again = await fetchSegment(tsUri);
    expect(again.cache).toBe("hit");
    expect(sameBytes(again.body, ts.body)).toBe(true);
    expect(sameBytes(again.body, (await fetchSegment(mp3Uri)).body)).toBe(false);
  });

  it("checks the signature before the cache: a forged or borrowed URL for a cached segment is 403", async () => {
    const owner = await signUp();
    const songId = await upload(owner);
    const other = await upload(owner);
    const uris = await segmentUris(songId, owner.token);
    expect((await fetchSegment(uris[0])).status).toBe(200);
    const forged = [
      uris[0].replace(/sig=[^&]+/, `sig=${"A".repeat(43)}`),
      uris[0].replace(/v=\d+/, (v) => `v=${Number(v.slice(2)) + 1}`),
      (await segmentUris(other, owner.token))[0].replace(other, songId),
      uris[0].replace(/&sig=.*/, ""),
    ];
    for (const uri of forged) {
      const res = await fetchSegment(uri);
      expect(res.status, uri).toBeGreaterThanOrEqual(400);
      expect(res.status, uri).toBeLessThan(500);
      expect(res.cache).toBeNull();
    }
  });

  it("keeps a private song private: a cached segment gives a stranger no playlist and no URL", async () => {
    const owner = await signUp();
    const songId = await upload(owner, false);
    const uris = await segmentUris(songId, owner.token);
    expect((await fetchSegment(uris[0])).status).toBe(200);
    for (const token of [await guestToken(), (await signUp()).token]) {
      const res = await get(`/api/upload-service/songs/${songId}/hls-playlist`, token);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toBe(SONG_MSG.songNotFound);
    }
  });

  it("forgets a song at its takedown: a cached segment stops playing at once, and plays again once reinstated", async () => {
    const owner = await signUp();
    const songId = await upload(owner);
    const uris = await segmentUris(songId, owner.token);
    await fetchSegment(uris[0]);
    expect((await fetchSegment(uris[0])).cache).toBe("hit");
    const boss = (await admin()).token;
    const down = await svc(`/songs/${songId}`, {
      method: "PATCH",
      token: boss,
      body: { status: "UNVERIFIED" },
    });
    expect(down.status).toBe(200);
    const res = await get(uris[0]);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toBe(SONG_MSG.notVerified);
    const up = await svc(`/songs/${songId}`, {
      method: "PATCH",
      token: boss,
      body: { status: "VERIFIED" },
    });
    expect(up.status).toBe(200);
    expect(await fetchSegment(uris[0])).toMatchObject({ status: 200, cache: "miss" });
  });

  it("forgets a deleted song's segments", async () => {
    const owner = await signUp();
    const songId = await upload(owner);
    const uris = await segmentUris(songId, owner.token);
    await fetchSegment(uris[0]);
    expect((await fetchSegment(uris[0])).cache).toBe("hit");
    expect((await svc(`/songs/${songId}`, { method: "DELETE", token: owner.token })).status).toBe(
      200,
    );
    expect((await get(uris[0])).status).toBe(404);
  });
});
