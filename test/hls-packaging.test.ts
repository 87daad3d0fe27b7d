import { describe, expect, it } from "vitest";
import { timestampTag, TIMESTAMP_OWNER, toTicks } from "../workers/songs/hls-timestamp";
import { crc32Mpeg, mp3ToTs } from "../workers/songs/mpeg-ts";
import { mp3Frames } from "./songs-helpers";

/** The byte-level details of the two segment packagings (workers/songs/hls-timestamp.ts, mpeg-ts.ts). */
describe("the RFC 8216 timestamp tag", () => {
  it("is an ID3v2.4 tag with one PRIV frame: owner, NUL, 8-byte big-endian 90 kHz time", () => {
    const tag = timestampTag(10);
    expect([...tag.subarray(0, 6)]).toEqual([0x49, 0x44, 0x33, 4, 0, 0]);
    expect([...tag.subarray(6, 10)]).toEqual([0, 0, 0, tag.length - 10]);
    expect(String.fromCharCode(...tag.subarray(10, 14))).toBe("PRIV");
    const owner = String.fromCharCode(...tag.subarray(20, 20 + TIMESTAMP_OWNER.length));
    expect(owner).toBe(TIMESTAMP_OWNER);
    const data = new DataView(tag.buffer, 20 + TIMESTAMP_OWNER.length + 1, 8);
    expect(data.getUint32(0)).toBe(0);
    expect(data.getUint32(4)).toBe(900_000);
  });

  it("carries the 33rd bit past 2^32 ticks (~13.3 hours) and wraps at 2^33", () => {
    const seconds = (2 ** 32 + 90) / 90_000;
    const tag = timestampTag(seconds);
    const data = new DataView(tag.buffer, tag.length - 8, 8);
    expect(data.getUint32(0)).toBe(1);
    expect(data.getUint32(4)).toBe(90);
    expect(toTicks((2 ** 33 + 45) / 90_000)).toBe(45);
  });
});

describe("MPEG-TS packaging", () => {
  const frames = mp3Frames(230);

  it("opens with a PAT and a PMT whose CRC-32/MPEG-2 checks, then 188-byte packets only", () => {
    const ts = mp3ToTs(frames, 0);
    expect(ts.length % 188).toBe(0);
    for (let at = 0; at < ts.length; at += 188) expect(ts[at]).toBe(0x47);
    for (const at of [0, 188]) {
      const sectionLength = ((ts[at + 6] & 0x0f) << 8) | ts[at + 7];
      // A section followed by its CRC divides to zero.
      expect(crc32Mpeg(ts.subarray(at + 5, at + 8 + sectionLength))).toBe(0);
    }
    // PMT: MPEG-1 audio (type 3) on PID 0x100.
    expect([...ts.subarray(188 + 17, 188 + 20)]).toEqual([0x03, 0xe1, 0x00]);
  });

  it("writes PTS with all 33 bits (a segment 20 hours in)", () => {
    const start = 20 * 3600;
    const ts = mp3ToTs(frames, start);
    // Third packet: the first PES, with the PCR adaptation field (1 + 7 bytes) before it.
    const pes = 2 * 188 + 4 + 1 + ts[2 * 188 + 4];
    expect([...ts.subarray(pes, pes + 4)]).toEqual([0, 0, 1, 0xc0]);
    const p = ts.subarray(pes + 9, pes + 14);
    const pts =
      ((p[0] >> 1) & 7) * 2 ** 30 +
      ((p[1] << 22) | ((p[2] >> 1) << 15) | (p[3] << 7) | (p[4] >> 1));
    expect(pts).toBe(start * 90_000);
  });
});
