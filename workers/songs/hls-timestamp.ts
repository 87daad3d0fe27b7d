import type { HlsSegment } from "./mp3";

/**
 * The timestamp tag RFC 8216 (section 3.4, "Packed Audio") requires at the start of every
 * packed-audio segment: an ID3v2.4 tag holding one PRIV frame whose owner is
 * `com.apple.streaming.transportStreamTimestamp` and whose data is the segment's first
 * sample time as a 33-bit MPEG-2 90 kHz timestamp in an 8-byte big-endian number (upper 31
 * bits zero). Native players (Safari, iOS, Chrome's built-in HLS) place a packed-audio
 * segment on the timeline by it; hls.js tolerates its absence, they may not.
 */

export const TIMESTAMP_OWNER = "com.apple.streaming.transportStreamTimestamp";
const CLOCK_HZ = 90_000;
/** 33 bits: the MPEG-2 timestamp wraps here (after ~26.5 hours). */
const WRAP = 2 ** 33;

const enc = new TextEncoder();
const OWNER = enc.encode(`${TIMESTAMP_OWNER}\0`);
/** PRIV frame body: owner + NUL + 8 bytes. */
const FRAME_BODY = OWNER.length + 8;
/** Tag header (10) + frame header (10) + body: 73 bytes. */
export const TIMESTAMP_TAG_BYTES = 20 + FRAME_BODY;

/** A syncsafe 28-bit size (ID3v2.4 uses it for the tag and for frames). */
function putSyncsafe(b: Uint8Array, at: number, n: number) {
  b[at] = (n >> 21) & 0x7f;
  b[at + 1] = (n >> 14) & 0x7f;
  b[at + 2] = (n >> 7) & 0x7f;
  b[at + 3] = n & 0x7f;
}

/** 90 kHz ticks for `seconds`, wrapped to 33 bits. Rounded, so summed float durations never drift by a tick. */
export const toTicks = (seconds: number) => Math.round(seconds * CLOCK_HZ) % WRAP;

/** The 73-byte ID3 tag that opens a segment starting `seconds` into the song. */
export function timestampTag(seconds: number): Uint8Array<ArrayBuffer> {
  const tag = new Uint8Array(TIMESTAMP_TAG_BYTES);
  tag.set([0x49, 0x44, 0x33, 4, 0, 0]); // "ID3", v2.4.0, no flags
  putSyncsafe(tag, 6, TIMESTAMP_TAG_BYTES - 10);
  tag.set(enc.encode("PRIV"), 10);
  putSyncsafe(tag, 14, FRAME_BODY); // frame flags (18, 19) stay zero
  tag.set(OWNER, 20);
  const ticks = toTicks(seconds);
  const view = new DataView(tag.buffer);
  // 33 bits do not fit a 32-bit write: the high bit in its own word (the upper 31 stay zero).
  view.setUint32(20 + OWNER.length, Math.floor(ticks / 2 ** 32));
  view.setUint32(20 + OWNER.length + 4, ticks >>> 0);
  return tag;
}

/** Where segment `n` starts in the song: the durations of the segments before it. */
export const segmentStart = (segments: readonly HlsSegment[], n: number) =>
  segments.slice(0, n).reduce((t, s) => t + s.duration, 0);

/** Segment `n`'s bytes as served (before encryption): the timestamp tag, then its MPEG audio frames. */
export function withTimestamp(
  segments: readonly HlsSegment[],
  n: number,
  frames: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const tag = timestampTag(segmentStart(segments, n));
  const out = new Uint8Array(tag.length + frames.length);
  out.set(tag);
  out.set(frames, tag.length);
  return out;
}
