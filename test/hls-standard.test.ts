import { SELF } from "cloudflare:test";
import { Parser, type ParsedSegment } from "m3u8-parser";
import { describe, expect, it } from "vitest";
import {
  concat,
  FRAME_BYTES,
  FRAME_HEADER,
  FRAME_SECONDS,
  mp3Frames,
  namedTag,
  uploadSong,
} from "./songs-helpers";
import { signUp } from "./helpers";

/**
 * Standard HLS (issue 18): the playlist read by a real parser (m3u8-parser, what video.js
 * uses), every segment fetched and decrypted as the playlist's KEY tag says, and each one
 * opening with the ID3 PRIV timestamp tag RFC 8216 section 3.4 requires of packed audio,
 * then MPEG audio frames. The tag is read here by hand, independently of the server's code.
 */

const origin = "http://hangout.test";
const get = (path: string, token?: string) =>
  SELF.fetch(new URL(path, origin), {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });

async function parsedPlaylist(songId: string, token: string) {
  const res = await get(`/api/upload-service/songs/${songId}/hls-playlist`, token);
  expect(res.status).toBe(200);
  const parser = new Parser();
  parser.push(await res.text());
  parser.end();
  return parser.manifest;
}

/** AES-128-CBC as RFC 8216 5.2 says: no IV attribute, so the IV is the media sequence number. */
async function decrypt(seg: ParsedSegment, sequence: number, key: ArrayBuffer, data: ArrayBuffer) {
  const iv = new Uint8Array(16);
  if (seg.key?.iv) seg.key.iv.forEach((w, i) => new DataView(iv.buffer).setUint32(i * 4, w));
  else new DataView(iv.buffer).setBigUint64(8, BigInt(sequence));
  const k = await crypto.subtle.importKey("raw", key, { name: "AES-CBC" }, false, ["decrypt"]);
  return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-CBC", iv }, k, data));
}

const syncsafe = (b: Uint8Array, at: number) =>
  (b[at] << 21) | (b[at + 1] << 14) | (b[at + 2] << 7) | b[at + 3];

/** The leading ID3v2 tag's PRIV frames: owner and data. Fails the test if there is no tag. */
function leadingPrivFrames(b: Uint8Array) {
  expect(String.fromCharCode(b[0], b[1], b[2]), "segment starts with an ID3 tag").toBe("ID3");
  const version = b[3];
  const end = 10 + syncsafe(b, 6);
  const frames: { owner: string; data: Uint8Array; end: number }[] = [];
  for (let at = 10; at + 10 <= end;) {
    const id = String.fromCharCode(...b.subarray(at, at + 4));
    if (id === "\0\0\0\0") break;
    const size =
      version === 4 ? syncsafe(b, at + 4) : new DataView(b.buffer, b.byteOffset).getUint32(at + 4);
    const body = b.subarray(at + 10, at + 10 + size);
    if (id === "PRIV") {
      const nul = body.indexOf(0);
      frames.push({
        owner: String.fromCharCode(...body.subarray(0, nul)),
        data: body.subarray(nul + 1),
        end,
      });
    }
    at += 10 + size;
  }
  return { frames, tagEnd: end };
}

describe("standard HLS packed audio (RFC 8216)", () => {
  it("parses with m3u8-parser, decrypts, and every segment opens with its transportStreamTimestamp, then MPEG frames", async () => {
    const a = await signUp();
    const frames = 1200; // ~31 s: six segments
    const res = await uploadSong(a.token, concat(namedTag("Standard", "HLS"), mp3Frames(frames)));
    expect(res.body.status).toBe("VERIFIED");
    const manifest = await parsedPlaylist(res.body.songId, a.token);
    expect(manifest.version).toBe(3);
    expect(manifest.endList).toBe(true);
    expect(manifest.playlistType).toBe("VOD");
    expect(manifest.segments.length).toBe(6);
    const sequence0 = manifest.mediaSequence ?? 0;

    const keyUri = manifest.segments[0].key!.uri;
    const keyRes = await get(keyUri);
    expect(keyRes.status).toBe(200);
    const key = await keyRes.arrayBuffer();
    expect(key.byteLength).toBe(16);

    let start = 0;
    let audioFrames = 0;
    for (const [i, seg] of manifest.segments.entries()) {
      expect(seg.key).toMatchObject({ method: "AES-128", uri: keyUri });
      const r = await get(seg.uri);
      expect(r.status, seg.uri).toBe(200);
      const clear = await decrypt(seg, sequence0 + i, key, await r.arrayBuffer());

      const { frames: privs, tagEnd } = leadingPrivFrames(clear);
      const stamp = privs.find((f) => f.owner === "com.apple.streaming.transportStreamTimestamp");
      expect(stamp, `segment ${i} has the timestamp PRIV frame`).toBeDefined();
      expect(stamp!.data.length).toBe(8);
      const view = new DataView(stamp!.data.buffer, stamp!.data.byteOffset, 8);
      // 33-bit timestamp: the upper 31 of the 64 bits are zero.
      expect(view.getUint32(0) >>> 1).toBe(0);
      const ticks = view.getUint32(0) * 2 ** 32 + view.getUint32(4);
      // The segment's start: the playlist's durations before it (printed to the millisecond).
      expect(Math.abs(ticks - start * 90_000), `segment ${i} timestamp`).toBeLessThanOrEqual(
        90 * (i + 1),
      );

      // Then MPEG audio frames, nothing else, right up to the end.
      const audio = clear.subarray(tagEnd);
      expect(audio.length % FRAME_BYTES).toBe(0);
      for (let at = 0; at < audio.length; at += FRAME_BYTES)
        expect([...audio.subarray(at, at + 4)]).toEqual(FRAME_HEADER);
      const n = audio.length / FRAME_BYTES;
      expect(Math.abs(n * FRAME_SECONDS - seg.duration)).toBeLessThan(0.001);
      audioFrames += n;
      start += seg.duration;
    }
    expect(audioFrames).toBe(frames);
  });

  it("stamps each segment with exactly its first frame's time (frames before it x 1152 / 44100 s)", async () => {
    const a = await signUp();
    const res = await uploadSong(a.token, concat(namedTag("Exact", "Stamps"), mp3Frames(700)));
    const manifest = await parsedPlaylist(res.body.songId, a.token);
    const key = await (await get(manifest.segments[0].key!.uri)).arrayBuffer();
    let before = 0;
    for (const [i, seg] of manifest.segments.entries()) {
      const clear = await decrypt(seg, i, key, await (await get(seg.uri)).arrayBuffer());
      const { frames: privs, tagEnd } = leadingPrivFrames(clear);
      const view = new DataView(privs[0].data.buffer, privs[0].data.byteOffset, 8);
      expect(view.getUint32(4)).toBe(Math.round((before * 1152 * 90_000) / 44_100));
      before += (clear.length - tagEnd) / FRAME_BYTES;
    }
  });
});

/** Demuxes an MPEG-TS segment by hand: PIDs seen, and the audio PES packets' PTS and payload. */
function demuxTs(b: Uint8Array) {
  expect(b.length % 188).toBe(0);
  const pids = new Set<number>();
  const pes: { pts: number; data: number[] }[] = [];
  for (let at = 0; at < b.length; at += 188) {
    expect(b[at], `sync byte at ${at}`).toBe(0x47);
    const pid = ((b[at + 1] & 0x1f) << 8) | b[at + 2];
    const start = (b[at + 1] & 0x40) !== 0;
    const afc = (b[at + 3] >> 4) & 3;
    pids.add(pid);
    let o = at + 4;
    if (afc & 2) o += 1 + b[o];
    if (!(afc & 1) || pid !== 0x100) continue;
    if (start) {
      expect([...b.subarray(o, o + 4)]).toEqual([0, 0, 1, 0xc0]);
      const p = b.subarray(o + 9, o + 14);
      const pts =
        ((p[0] >> 1) & 7) * 2 ** 30 +
        ((p[1] << 22) | ((p[2] >> 1) << 15) | (p[3] << 7) | (p[4] >> 1));
      pes.push({ pts, data: [] });
      o += 9 + b[o + 8];
    }
    pes.at(-1)!.data.push(...b.subarray(o, at + 188));
  }
  return { pids, pes };
}

describe("MPEG-TS segments for native players (container=ts)", () => {
  it("package the same frames as transport stream: PAT, PMT, PES with each segment's start as PTS", async () => {
    const a = await signUp();
    const frames = 700;
    const up = await uploadSong(
      a.token,
      concat(namedTag("Transport", "Stream"), mp3Frames(frames)),
    );
    const res = await get(
      `/api/upload-service/songs/${up.body.songId}/hls-playlist?container=ts`,
      a.token,
    );
    expect(res.status).toBe(200);
    const parser = new Parser();
    parser.push(await res.text());
    parser.end();
    const { segments } = parser.manifest;
    expect(segments.length).toBe(Math.ceil((frames * FRAME_SECONDS) / 6));
    const key = await (await get(segments[0].key!.uri)).arrayBuffer();
    let before = 0;
    for (const [i, seg] of segments.entries()) {
      expect(seg.uri).toContain("&c=ts&");
      const r = await get(seg.uri);
      expect(r.headers.get("Content-Type")).toBe("video/mp2t");
      const { pids, pes } = demuxTs(await decrypt(seg, i, key, await r.arrayBuffer()));
      expect([...pids].sort()).toEqual([0, 0x100, 0x1000]);
      expect(pes[0].pts).toBe(Math.round((before * 1152 * 90_000) / 44_100));
      const audio = Uint8Array.from(pes.flatMap((p) => p.data));
      expect(audio.length % FRAME_BYTES).toBe(0);
      for (let at = 0; at < audio.length; at += FRAME_BYTES)
        expect([...audio.subarray(at, at + 4)]).toEqual(FRAME_HEADER);
      before += audio.length / FRAME_BYTES;
    }
    expect(before).toBe(frames);
  });

  it("refuses a container it does not make with 400", async () => {
    const a = await signUp();
    const up = await uploadSong(a.token, concat(namedTag("No", "Flac"), mp3Frames(100)));
    const res = await get(
      `/api/upload-service/songs/${up.body.songId}/hls-playlist?container=flac`,
      a.token,
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(
      "container must be one of: mp3, ts",
    );
  });
});
