import { Mp3Encoder } from "@breezystack/lamejs";
import { describe, expect, it } from "vitest";
import {
  indexMp3,
  indexMp3Stream,
  isPlayable,
  Mp3Indexer,
  parseFrameHeaderAt,
  type Mp3Index,
} from "../workers/songs/mp3";
import {
  concat,
  FRAME_BYTES,
  FRAME_SECONDS,
  framesFor,
  id3Frame,
  id3Tag,
  id3Text,
  mp3,
  mp3Frames,
  namedTag,
} from "./songs-helpers";

/** Indexes `bytes` pushed in chunks of `size`. */
function chunked(bytes: Uint8Array, size: number): Mp3Index {
  const ix = new Mp3Indexer();
  for (let i = 0; i < bytes.length; i += size) ix.push(bytes.subarray(i, i + size));
  return ix.finish();
}

/** Every segment is a run of whole frames: its bytes start with a header every 417 bytes. */
function expectWholeFrames(bytes: Uint8Array, ix: Mp3Index) {
  for (const s of ix.segments) {
    expect(s.length % FRAME_BYTES).toBe(0);
    for (let at = s.offset; at < s.offset + s.length; at += FRAME_BYTES)
      expect([...bytes.subarray(at, at + 4)]).toEqual([0xff, 0xfb, 0x90, 0x64]);
  }
}

describe("MPEG audio frame headers", () => {
  it("reads bitrate, sample rate, padding and samples for MPEG-1, 2 and 2.5 Layer III", () => {
    const h = (...b: number[]) => parseFrameHeaderAt(new Uint8Array(b), 0);
    expect(h(0xff, 0xfb, 0x90, 0x64)).toMatchObject({
      version: 1,
      bitrate: 128000,
      sampleRate: 44100,
      length: 417,
      samples: 1152,
    });
    expect(h(0xff, 0xfb, 0x92, 0x64)?.length).toBe(418); // padding bit
    expect(h(0xff, 0xfb, 0xe4, 0x00)).toMatchObject({
      bitrate: 320000,
      sampleRate: 48000,
      length: 960,
    });
    expect(h(0xff, 0xf3, 0x80, 0x44)).toMatchObject({
      version: 2,
      bitrate: 64000,
      sampleRate: 22050,
      length: 208,
      samples: 576,
    });
    expect(h(0xff, 0xe3, 0x88, 0xc4)).toMatchObject({
      version: 25,
      bitrate: 64000,
      sampleRate: 8000,
      length: 576,
      samples: 576,
      mono: true,
    });
    // Not Layer III, reserved version, free format, bad bitrate, reserved rate, no sync.
    for (const bad of [
      [0xff, 0xfd, 0x90, 0x64],
      [0xff, 0xeb, 0x90, 0x64],
      [0xff, 0xfb, 0x00, 0x64],
      [0xff, 0xfb, 0xf0, 0x64],
      [0xff, 0xfb, 0x9c, 0x64],
      [0xfe, 0xfb, 0x90, 0x64],
    ]) {
      expect(h(...bad), bad.map((x) => x.toString(16)).join(" ")).toBeUndefined();
    }
  });
});

describe("segmenting an MP3", () => {
  it("cuts 30 s into ~6 s segments that cover every byte after the tag exactly once", () => {
    const tag = namedTag("Thirty", "Seconds");
    const bytes = mp3(30, tag);
    const ix = indexMp3(bytes);
    expect(ix.tagBytes).toBe(tag.length);
    expect(ix.frames).toBe(framesFor(30));
    expect(Math.abs(ix.duration - 30)).toBeLessThan(0.1);
    expect(ix.segments.length).toBe(5);
    let next = tag.length;
    for (const s of ix.segments) {
      expect(s.offset).toBe(next);
      next += s.length;
    }
    expect(next).toBe(bytes.length);
    for (const s of ix.segments.slice(0, -1)) {
      expect(s.duration).toBeGreaterThanOrEqual(6);
      expect(s.duration).toBeLessThan(6 + FRAME_SECONDS);
    }
    expect(ix.segments.reduce((t, s) => t + s.duration, 0)).toBeCloseTo(ix.duration, 4);
    expect(ix.skippedBytes).toBe(0);
    expect(ix.tags).toEqual({ title: "Thirty", artist: "Seconds" });
    expect(isPlayable(ix)).toBe(true);
    expectWholeFrames(bytes, ix);
  });

  it("gives the same index whatever the chunk size, and from a stream", async () => {
    const bytes = concat(
      namedTag("Chunks", "Anyone"),
      mp3Frames(300),
      new TextEncoder().encode("junk!"),
      mp3Frames(200),
    );
    const whole = indexMp3(bytes);
    for (const size of [1, 7, 4096])
      expect(chunked(bytes, size), `chunks of ${size}`).toEqual(whole);
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        for (let i = 0; i < bytes.length; i += 1000) ctl.enqueue(bytes.slice(i, i + 1000));
        ctl.close();
      },
    });
    expect(await indexMp3Stream(stream)).toEqual(whole);
  });

  it("skips junk between frames, resyncing only on two headers in a row", () => {
    // A lone header inside the junk (no header follows it) must not be taken for a frame.
    const junk = concat(
      new TextEncoder().encode("JUNK"),
      new Uint8Array([0xff, 0x00, 0xff]),
      new Uint8Array([0xff, 0xfb, 0x90, 0x64]),
      new Uint8Array(37).fill(7),
    );
    const a = mp3Frames(100),
      b = mp3Frames(120);
    const bytes = concat(junk, a, junk, b, junk);
    const ix = indexMp3(bytes);
    expect(ix.frames).toBe(220);
    expect(ix.audioBytes).toBe(220 * FRAME_BYTES);
    expect(ix.skippedBytes).toBe(3 * junk.length);
    // No segment contains junk: a gap ends a segment.
    const covered = ix.segments.reduce((n, s) => n + s.length, 0);
    expect(covered).toBe(220 * FRAME_BYTES);
    expect(ix.segments[0].offset).toBe(junk.length);
    expect(ix.segments.some((s) => s.offset === 2 * junk.length + a.length)).toBe(true);
    expectWholeFrames(bytes, ix);
  });

  it("drops a truncated last frame and trailing ID3v1 bytes", () => {
    const frames = mp3Frames(50);
    const bytes = concat(
      frames,
      mp3Frames(1).subarray(0, 200),
      new TextEncoder().encode("TAG".padEnd(128, " ")),
    );
    const ix = indexMp3(bytes);
    expect(ix.frames).toBe(50);
    expect(ix.segments.at(-1)!.offset + ix.segments.at(-1)!.length).toBe(frames.length);
    expect(ix.skippedBytes).toBe(200 + 128);
  });

  it("counts no time for a Xing/Info header frame, and 576-sample frames for MPEG-2", () => {
    const info = mp3Frames(1);
    info.set(new TextEncoder().encode("Info"), 4 + 32);
    const ix = indexMp3(concat(info, mp3Frames(99)));
    expect(ix.frames).toBe(100);
    expect(ix.duration).toBeCloseTo(99 * FRAME_SECONDS, 6);
    const v2 = indexMp3(mp3Frames(100, [0xff, 0xf3, 0x80, 0x44], 208));
    expect(v2.frames).toBe(100);
    expect(v2.duration).toBeCloseTo((100 * 576) / 22050, 6);
  });

  it("indexes a real encoder's output (lamejs: padded frames, stereo and mono, 44.1 and 22.05 kHz)", () => {
    for (const [channels, rate, kbps] of [
      [2, 44100, 128],
      [1, 22050, 64],
      [1, 44100, 192],
    ]) {
      const seconds = 7;
      const pcm = Int16Array.from({ length: seconds * rate }, (_, i) =>
        Math.round(12000 * Math.sin((2 * Math.PI * 440 * i) / rate)),
      );
      const enc = new Mp3Encoder(channels, rate, kbps);
      const bytes = concat(enc.encodeBuffer(pcm, channels === 2 ? pcm : undefined), enc.flush());
      const ix = chunked(bytes, 1000);
      expect(ix.skippedBytes, `${channels}ch ${rate} Hz`).toBe(0);
      expect(ix.audioBytes).toBe(bytes.length);
      // The encoder adds its delay and pads the last frame: a little over what was rendered.
      expect(ix.duration).toBeGreaterThanOrEqual(seconds);
      expect(ix.duration).toBeLessThan(seconds + 0.1);
      expect(ix.segments.length).toBe(2);
    }
  });

  it("finds nothing playable in what is not MP3", () => {
    const png = new Uint8Array([
      0x89,
      0x50,
      0x4e,
      0x47,
      0x0d,
      0x0a,
      0x1a,
      0x0a,
      ...new Uint8Array(2000),
    ]);
    for (const bytes of [
      png,
      new Uint8Array(0),
      concat(namedTag("Only", "A tag")),
      crypto.getRandomValues(new Uint8Array(5000)).map((x) => (x === 0xff ? 0 : x)),
    ]) {
      const ix = indexMp3(bytes);
      expect(ix.frames).toBe(0);
      expect(ix.segments).toEqual([]);
      expect(isPlayable(ix)).toBe(false);
    }
    // Mostly junk with a few frames is not playable either.
    expect(isPlayable(indexMp3(concat(mp3Frames(3), new Uint8Array(10_000).fill(1))))).toBe(false);
  });
});

describe("ID3v2 tags", () => {
  it("reads v2.3 text in ISO-8859-1 and UTF-16 with a BOM, and resolves numeric genres", () => {
    const tag = id3Tag(
      3,
      [
        id3Text(3, "TIT2", "Café del Mar"),
        id3Text(3, "TPE1", "Energy 52 ✓", "utf16"),
        id3Text(3, "TALB", "Ibiza"),
        id3Text(3, "TCON", "(17)"),
        id3Text(3, "TYER", "1993"),
      ],
      100,
    );
    expect(indexMp3(concat(tag, mp3Frames(10))).tags).toEqual({
      title: "Café del Mar",
      artist: "Energy 52 ✓",
      album: "Ibiza",
      genre: "Rock",
      year: 1993,
    });
  });

  it("reads v2.4 text in UTF-8 and UTF-16BE, TDRC dates and several values", () => {
    const tag = id3Tag(4, [
      id3Text(4, "TIT2", "Ünïcödé 🎵", "utf8"),
      id3Text(4, "TPE1", "Björk\u0000Thom Yorke", "utf8"),
      id3Text(4, "TALB", "Selmasongs", "utf16be"),
      id3Text(4, "TCON", "Electronic"),
      id3Text(4, "TDRC", "2000-09-18"),
    ]);
    expect(indexMp3(concat(tag, mp3Frames(10))).tags).toEqual({
      title: "Ünïcödé 🎵",
      artist: "Björk/Thom Yorke",
      album: "Selmasongs",
      genre: "Electronic",
      year: 2000,
    });
  });

  it("skips cover art (even with sync-like bytes) and unknown frames, streaming past them", () => {
    const art = new Uint8Array(300_000);
    for (let i = 0; i < art.length; i += FRAME_BYTES) art.set([0xff, 0xfb, 0x90, 0x64], i);
    const tag = id3Tag(
      3,
      [
        id3Frame(3, "APIC", art),
        id3Frame(3, "PRIV", [1, 2, 3]),
        id3Text(3, "TIT2", "After the art"),
        id3Text(3, "TPE1", "Painter"),
      ],
      1024,
    );
    const bytes = concat(tag, mp3Frames(200));
    const ix = chunked(bytes, 4096);
    expect(ix.tags).toEqual({ title: "After the art", artist: "Painter" });
    expect(ix.tagBytes).toBe(tag.length);
    expect(ix.frames).toBe(200);
    expect(ix.segments[0].offset).toBe(tag.length);
  });

  it("handles v2.4 data-length indicators and unsynchronised frames", () => {
    const title = [0, ...new TextEncoder().encode("Title")];
    // "ÿ T" in ISO-8859-1, unsynchronised: the 0xFF is followed by an inserted 0x00.
    const artist = [0, 0xff, 0x00, 0x20, 0x54];
    const tag = id3Tag(4, [
      id3Frame(4, "TIT2", [0, 0, 0, title.length, ...title], 0x01),
      id3Frame(4, "TPE1", artist, 0x02),
    ]);
    expect(indexMp3(concat(tag, mp3Frames(5))).tags).toEqual({ title: "Title", artist: "ÿ T" });
  });
});
