import { env, SELF } from "cloudflare:test";
import { pickSong } from "../durable/room/library";
import { describe, expect, it } from "vitest";
import { GUEST_FREE_PLAYS } from "../shared/rooms";
import { db } from "../workers/db/client";
import { guestPlays } from "../workers/db/schema";
import { SONG_MSG } from "../workers/songs/messages";
import { MSG as UPLOAD_MSG } from "../workers/upload-service/messages";
import { admin, derivedKey, guestToken, hmacWith, signUp, type TestAccount } from "./helpers";
import {
  concat,
  FRAME_SECONDS,
  framesFor,
  mp3,
  mp3Frames,
  namedTag,
  sameBytes,
  svc,
  uploadSong,
} from "./songs-helpers";

const origin = "http://hangout.test";
const fetchPath = (path: string, token?: string) =>
  SELF.fetch(`${origin}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });

async function playlist(songId: string, token: string) {
  const res = await fetchPath(`/api/upload-service/songs/${songId}/hls-playlist`, token);
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/vnd.apple.mpegurl");
  const text = await res.text();
  const keyUri = text.match(/^#EXT-X-KEY:METHOD=AES-128,URI="([^"]+)"$/m)![1];
  const lines = text.trim().split("\n");
  const segments = lines.flatMap((l, i) =>
    l.startsWith("#EXTINF:") ? [{ duration: Number(l.slice(8, -1)), uri: lines[i + 1] }] : [],
  );
  return { text, lines, keyUri, segments };
}

/** Decrypts one HLS AES-128 segment the way a player does: the key from the KEY URI, IV = media sequence number. */
async function decrypt(key: ArrayBuffer, sequence: number, data: ArrayBuffer) {
  const iv = new Uint8Array(16);
  new DataView(iv.buffer).setUint32(12, sequence);
  const k = await crypto.subtle.importKey("raw", key, { name: "AES-CBC" }, false, ["decrypt"]);
  return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-CBC", iv }, k, data));
}

/** HMAC-SHA256 with the HLS key derived from the test ROOT_SECRET, to check the documented scheme independently. */
const hmac = async (message: string) => hmacWith(await derivedKey("hangout/hls/v1"), message);
const b64url = (b: Uint8Array) =>
  btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

async function uploadVerified(a: TestAccount, seconds: number, isPublic = true) {
  const tag = namedTag("Stream Me", "Encoder");
  const bytes = mp3(seconds, tag);
  const res = await uploadSong(a.token, bytes, { isPublic: String(isPublic) });
  expect(res.body.status).toBe("VERIFIED");
  return { songId: res.body.songId as string, bytes, audio: bytes.subarray(tag.length) };
}

/**
 * The audio of a decrypted segment: past the RFC 8216 timestamp tag every segment opens with
 * (its content is checked in hls-standard.test.ts).
 */
function audioOf(clear: Uint8Array) {
  expect(String.fromCharCode(...clear.subarray(0, 3))).toBe("ID3");
  const size = (clear[6] << 21) | (clear[7] << 14) | (clear[8] << 7) | clear[9];
  return clear.subarray(10 + size);
}

/** Fetches the key and every segment, decrypts them, and answers the concatenated audio bytes. */
async function playAll(songId: string, token: string) {
  const { keyUri, segments } = await playlist(songId, token);
  const keyRes = await fetchPath(keyUri);
  expect(keyRes.status).toBe(200);
  const key = await keyRes.arrayBuffer();
  const clear: Uint8Array[] = [];
  for (const [n, s] of segments.entries()) {
    const res = await fetchPath(s.uri);
    expect(res.status, s.uri).toBe(200);
    const body = await res.arrayBuffer();
    expect(body.byteLength % 16).toBe(0);
    clear.push(audioOf(await decrypt(key, n, body)));
  }
  return concat(...clear);
}

describe("GET /songs/{songId}/hls-playlist", () => {
  it("answers an HLS v3 VOD playlist with an AES-128 key and one signed URI per segment", async () => {
    const a = await signUp();
    const { songId } = await uploadVerified(a, 30);
    const { lines, keyUri, segments } = await playlist(songId, a.token);
    expect(lines.slice(0, 5)).toEqual([
      "#EXTM3U",
      "#EXT-X-VERSION:3",
      "#EXT-X-TARGETDURATION:6",
      "#EXT-X-MEDIA-SEQUENCE:0",
      "#EXT-X-PLAYLIST-TYPE:VOD",
    ]);
    expect(lines.at(-1)).toBe("#EXT-X-ENDLIST");
    expect(keyUri).toMatch(
      new RegExp(`^/api/upload-service/songs/hls/key\\?songId=${songId}&exp=\\d+&sig=[\\w-]{43}$`),
    );
    expect(segments).toHaveLength(5);
    segments.forEach((s, n) =>
      expect(s.uri).toMatch(
        new RegExp(
          `^/api/upload-service/songs/${songId}/segments/${n}\\?v=\\d+&exp=\\d+&sig=[\\w-]{43}$`,
        ),
      ),
    );
    const total = segments.reduce((t, s) => t + s.duration, 0);
    expect(Math.abs(total - framesFor(30) * FRAME_SECONDS)).toBeLessThan(0.01);
    // Expiry is six hours out.
    const exp = Number(new URL(keyUri, origin).searchParams.get("exp"));
    expect(Math.abs(exp - (Date.now() / 1000 + 6 * 3600))).toBeLessThan(60);
  });

  it("is for any token, guests included; 401 without one; 404 unknown; 403 unless VERIFIED", async () => {
    const a = await signUp();
    const { songId } = await uploadVerified(a, 3);
    expect(
      (await fetchPath(`/api/upload-service/songs/${songId}/hls-playlist`, await guestToken()))
        .status,
    ).toBe(200);
    expect(
      (await fetchPath(`/api/upload-service/songs/${songId}/hls-playlist`, (await signUp()).token))
        .status,
    ).toBe(200);
    expect((await svc(`/songs/${songId}/hls-playlist`)).status).toBe(401);
    expect(
      (await svc(`/songs/${crypto.randomUUID()}/hls-playlist`, { token: a.token })).status,
    ).toBe(404);
    expect((await svc("/songs/not-a-uuid/hls-playlist", { token: a.token })).body.message).toBe(
      "songId must be a UUID",
    );
    const unnamed = (await uploadSong(a.token, mp3(3))).body;
    const res = await svc(`/songs/${unnamed.songId}/hls-playlist`, { token: a.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      statusCode: 403,
      message: "Song is not verified.",
      error: "Forbidden",
    });
  });
});

describe("guests past the free-play limit", () => {
  it("get no playlist once they have heard more than GUEST_FREE_PLAYS songs; up to it they do", async () => {
    const a = await signUp();
    const { songId } = await uploadVerified(a, 3);
    const guest = await guestToken();
    const uuid = JSON.parse(atob(guest.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).sub;
    const heard = (plays: number) =>
      db(env)
        .insert(guestPlays)
        .values({ guestUuid: uuid, plays, lastPlayId: `p${plays}`, updatedAt: Date.now() })
        .onConflictDoUpdate({ target: guestPlays.guestUuid, set: { plays } });
    const ask = () => fetchPath(`/api/upload-service/songs/${songId}/hls-playlist`, guest);
    await heard(GUEST_FREE_PLAYS);
    expect((await ask()).status).toBe(200);
    await heard(GUEST_FREE_PLAYS + 1);
    const res = await ask();
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toBe(
      `Guests hear ${GUEST_FREE_PLAYS} songs free: sign up to keep listening.`,
    );
    // Another guest, and any account, still play it.
    expect(
      (await fetchPath(`/api/upload-service/songs/${songId}/hls-playlist`, await guestToken()))
        .status,
    ).toBe(200);
    expect(
      (await fetchPath(`/api/upload-service/songs/${songId}/hls-playlist`, a.token)).status,
    ).toBe(200);
  });
});

describe("segments and key", () => {
  it("decrypt, segment by segment, to exactly the original file's audio bytes", async () => {
    const a = await signUp();
    const { songId, audio } = await uploadVerified(a, 30);
    expect(sameBytes(await playAll(songId, await guestToken()), audio)).toBe(true);
  });

  it("do so for a multi-megabyte file stored in R2 parts, ranges crossing part boundaries", async () => {
    const a = await signUp();
    const { songId, audio } = await uploadVerified(a, 6 * 60);
    expect(sameBytes(await playAll(songId, a.token), audio)).toBe(true);
  }, 60_000);

  it("skip junk the file had between frames", async () => {
    const a = await signUp();
    const tag = namedTag("Junky", "Bytes");
    const junk = new TextEncoder().encode("<<not audio>>");
    const res = await uploadSong(a.token, concat(tag, mp3Frames(300), junk, mp3Frames(300)));
    expect(res.body.status).toBe("VERIFIED");
    expect(sameBytes(await playAll(res.body.songId, a.token), mp3Frames(600))).toBe(true);
  });

  it('answer with the right types and cache rules; the key is HMAC-SHA256(signing key, "hls-key:" + songId)[0..16]', async () => {
    const a = await signUp();
    const { songId } = await uploadVerified(a, 3);
    const { keyUri, segments } = await playlist(songId, a.token);
    const key = await fetchPath(keyUri);
    expect(key.headers.get("Content-Type")).toBe("application/octet-stream");
    expect(key.headers.get("Cache-Control")).toBe("private, no-store");
    expect(new Uint8Array(await key.arrayBuffer())).toEqual(
      (await hmac(`hls-key:${songId}`)).subarray(0, 16),
    );
    const seg = await fetchPath(segments[0].uri);
    expect(seg.headers.get("Content-Type")).toBe("audio/mpeg");
    expect(seg.headers.get("Cache-Control")).toBe("private");
    await seg.arrayBuffer();
  });

  it("refuse a tampered, expired, or borrowed signature with 403", async () => {
    const a = await signUp();
    const { songId } = await uploadVerified(a, 13);
    const other = await uploadVerified(a, 3);
    const { keyUri, segments } = await playlist(songId, a.token);
    const theirs = await playlist(other.songId, a.token);
    const flip = (uri: string) =>
      uri.replace(/sig=(.)/, (_, c: string) => `sig=${c === "A" ? "B" : "A"}`);
    const later = (uri: string) =>
      uri.replace(/exp=(\d+)/, (_, e: string) => `exp=${Number(e) + 1}`);
    const bad = [
      flip(segments[1].uri),
      later(segments[1].uri),
      segments[1].uri.replace("/segments/1?", "/segments/2?"), // a signature is for one segment
      theirs.segments[0].uri.replace(other.songId, songId), // and for one song
      flip(keyUri),
      keyUri.replace(songId, other.songId),
      segments[0].uri.replace(/exp=\d+/, "exp=1000"),
    ];
    for (const uri of bad) {
      const res = await fetchPath(uri);
      expect(res.status, uri).toBe(403);
      expect(((await res.json()) as { message: string }).message).toBe(UPLOAD_MSG.badSignature);
    }
    expect((await fetchPath(segments[1].uri.replace(/&sig=.*/, ""))).status).toBe(400);
    expect((await fetchPath(`/api/upload-service/songs/hls/key?exp=1&sig=x`)).status).toBe(400);
    expect((await fetchPath(segments[1].uri)).status).toBe(200);
  });

  it("is 404 past the last segment (a correctly signed URL for segment 99)", async () => {
    const a = await signUp();
    const { songId } = await uploadVerified(a, 3);
    const exp = Math.floor(Date.now() / 1000) + 60;
    const sig = b64url(await hmac(`hls-seg:${songId}:99:${exp}`));
    const res = await fetchPath(
      `/api/upload-service/songs/${songId}/segments/99?exp=${exp}&sig=${sig}`,
    );
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe(UPLOAD_MSG.segmentNotFound);
  });

  it("stop at once when an admin takes the song down, even with URLs already handed out", async () => {
    const a = await signUp();
    const { songId } = await uploadVerified(a, 3);
    const { keyUri, segments } = await playlist(songId, a.token);
    expect(
      (
        await svc(`/songs/${songId}`, {
          method: "PATCH",
          token: (await admin()).token,
          body: { status: "UNVERIFIED" },
        })
      ).status,
    ).toBe(200);
    for (const uri of [keyUri, segments[0].uri]) {
      const res = await fetchPath(uri);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { message: string }).message).toBe(SONG_MSG.notVerified);
    }
  });
});

describe("private uploads", () => {
  it("stream to their owner and admins only: a guest and another user are told it does not exist", async () => {
    const owner = await signUp();
    const { songId, audio } = await uploadVerified(owner, 3, false);
    for (const token of [await guestToken(), (await signUp()).token]) {
      const res = await fetchPath(`/api/upload-service/songs/${songId}/hls-playlist`, token);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toBe(SONG_MSG.songNotFound);
      const stream = await fetchPath(`/api/playlist-service/song-data/stream/US/${songId}`, token);
      expect(stream.status).toBe(404);
    }
    expect(sameBytes(await playAll(songId, owner.token), audio)).toBe(true);
    await playlist(songId, (await admin()).token);
    const mine = await fetchPath(
      `/api/playlist-service/song-data/stream/US/${songId}`,
      owner.token,
    );
    expect(mine.status).toBe(200);
    // Made public, it plays to anyone again.
    expect(
      (
        await svc(`/songs/${songId}`, {
          method: "PATCH",
          token: owner.token,
          body: { isPublic: true },
        })
      ).status,
    ).toBe(200);
    await playlist(songId, await guestToken());
  });

  it("play to a room's listeners through the play grant on the URL the room hands out", async () => {
    const dj = await signUp();
    const { songId } = await uploadVerified(dj, 3, false);
    const add = await SELF.fetch(`${origin}/api/playlist-service/crate/queue/songs`, {
      method: "POST",
      headers: { Authorization: `Bearer ${dj.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ songId }),
    });
    expect(add.status).toBe(201);
    const picked = await pickSong(env, dj.uuid, 3600, new Set());
    const url = picked!.song.streamUrls.uploadService!;
    expect(url).toMatch(/hls-playlist\?scope=/);
    const listener = (await signUp()).token;
    expect((await fetchPath(url, listener)).status).toBe(200);
    expect((await fetchPath(url, await guestToken())).status).toBe(200);
    // Tampered or without the grant: it does not exist.
    expect(
      (await fetchPath(url.replace(/sig=[^&]+/, `sig=${"A".repeat(43)}`), listener)).status,
    ).toBe(404);
    expect(
      (await fetchPath(url.replace(/scope=[^&]+/, "scope=play%3Aother"), listener)).status,
    ).toBe(404);
    expect((await fetchPath(url.split("?")[0], listener)).status).toBe(404);
  });
});
