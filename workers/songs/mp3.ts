import {
  extendedHeaderLength,
  frameHeaderLength,
  parseFrameHeader,
  parseId3Header,
  readTextFrame,
  wantsFrame,
  type Id3FrameHeader,
  type Id3Header,
  type Id3Tags,
} from "./id3";

/**
 * Cuts an MP3 into HLS segments without a decoder or transcoder (docs/DECISIONS.md,
 * "Uploaded songs"). MPEG audio is a run of self-contained frames, each with a 4-byte
 * header that gives its length, so a byte range that starts and ends on frame boundaries is
 * itself a playable MP3: a segment is `{ offset, length, duration }` of the original file.
 *
 * Streaming: `push` chunks of any size, then `finish`. Only a carry of at most one frame plus
 * one header (under 1.5 KB) and one chunk is held, so a 50 MB file never sits in memory; an
 * ID3 tag's cover art is skipped as it streams past. Any chunking gives the same index.
 */

export type { Id3Tags } from "./id3";

export interface HlsSegment {
  offset: number;
  length: number;
  /** Seconds. */
  duration: number;
}

export interface Mp3Index {
  segments: HlsSegment[];
  /** Seconds of audio (a Xing/Info/VBRI header frame carries none). */
  duration: number;
  frames: number;
  /** Bytes inside accepted frames, and bytes after the tag that were not (junk, trailing tags). */
  audioBytes: number;
  skippedBytes: number;
  /** Size of the leading ID3v2 tag (0 without one): where audio may start. */
  tagBytes: number;
  tags: Id3Tags;
  /** More than `maxSegments` segments (a file broken up by junk): the list is cut short. */
  overflow: boolean;
}

export interface Mp3Options {
  /** Segments close once they reach this many seconds (HLS authors use about 6). */
  targetSeconds?: number;
  maxSegments?: number;
}

export interface FrameHeader {
  version: 1 | 2 | 25;
  sampleRate: number;
  bitrate: number;
  /** Bytes, header included. */
  length: number;
  samples: number;
  mono: boolean;
}

const BITRATES_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const SAMPLE_RATES = {
  1: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  25: [11025, 12000, 8000],
} as const;

/** An MPEG-1/2/2.5 Layer III frame header at `at`, or undefined if those 4 bytes are not one. */
export function parseFrameHeaderAt(b: Uint8Array, at: number): FrameHeader | undefined {
  const b1 = b[at + 1],
    b2 = b[at + 2],
    b3 = b[at + 3];
  if (b[at] !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const v = (b1 >> 3) & 3,
    layer = (b1 >> 1) & 3,
    br = b2 >> 4,
    sr = (b2 >> 2) & 3;
  // Reserved version, not Layer III, free-format or bad bitrate, reserved rate or emphasis.
  if (v === 1 || layer !== 1 || br === 0 || br === 15 || sr === 3 || (b3 & 3) === 2)
    return undefined;
  const version = v === 3 ? 1 : v === 2 ? 2 : 25;
  const bitrate = (version === 1 ? BITRATES_V1 : BITRATES_V2)[br] * 1000;
  const sampleRate = SAMPLE_RATES[version][sr];
  const samples = version === 1 ? 1152 : 576;
  const length = Math.floor(((samples / 8) * bitrate) / sampleRate) + ((b2 >> 1) & 1);
  return { version, sampleRate, bitrate, length, samples, mono: b3 >> 6 === 3 };
}

const sameStream = (a: FrameHeader, b: FrameHeader) =>
  a.version === b.version && a.sampleRate === b.sampleRate;

/** Whether a frame is an encoder's Xing/Info/VBRI header (a silent frame describing the file). */
function isInfoFrame(b: Uint8Array, at: number, h: FrameHeader): boolean {
  const side = h.version === 1 ? (h.mono ? 17 : 32) : h.mono ? 9 : 17;
  const tag = (o: number) =>
    String.fromCharCode(b[at + o], b[at + o + 1], b[at + o + 2], b[at + o + 3]);
  const x = tag(4 + side);
  return x === "Xing" || x === "Info" || tag(36) === "VBRI";
}

/** A growable byte queue: amortised appends, so tiny chunks cost no quadratic copying. */
class Carry {
  buf = new Uint8Array(4096);
  start = 0;
  end = 0;
  /** Absolute file offset of `buf[start]`. */
  base = 0;
  get length() {
    return this.end - this.start;
  }
  push(chunk: Uint8Array) {
    if (this.end + chunk.length > this.buf.length) {
      const live = this.length;
      const target =
        live + chunk.length > this.buf.length
          ? new Uint8Array(Math.max(this.buf.length * 2, live + chunk.length))
          : this.buf;
      target.set(this.buf.subarray(this.start, this.end), 0);
      this.buf = target;
      this.start = 0;
      this.end = live;
    }
    this.buf.set(chunk, this.end);
    this.end += chunk.length;
  }
  drop(n: number) {
    this.start += n;
    this.base += n;
  }
  view(n: number) {
    return this.buf.subarray(this.start, this.start + n);
  }
}

type State = "head" | "id3ext" | "id3frame" | "id3keep" | "skip" | "sync";

export class Mp3Indexer {
  private readonly carry = new Carry();
  private state: State = "head";
  private tag?: Id3Header;
  private frame?: Id3FrameHeader;
  private skipTo = 0;
  private afterSkip: State = "sync";
  private locked?: FrameHeader;
  private current?: HlsSegment;
  private finished = false;
  private readonly target: number;
  private readonly maxSegments: number;
  private readonly index: Mp3Index = {
    segments: [],
    duration: 0,
    frames: 0,
    audioBytes: 0,
    skippedBytes: 0,
    tagBytes: 0,
    tags: {},
    overflow: false,
  };

  constructor(opts: Mp3Options = {}) {
    this.target = opts.targetSeconds ?? 6;
    this.maxSegments = opts.maxSegments ?? 5000;
  }

  push(chunk: Uint8Array): void {
    if (this.finished) throw new Error("Mp3Indexer: push after finish");
    if (!chunk.length) return;
    this.carry.push(chunk);
    this.run(false);
  }

  finish(): Mp3Index {
    if (!this.finished) {
      this.run(true);
      this.index.skippedBytes += this.carry.length; // a truncated last frame or stray bytes
      this.closeSegment();
      this.finished = true;
    }
    return this.index;
  }

  /** Advances the state machine as far as the carried bytes allow. */
  private run(final: boolean) {
    const c = this.carry;
    for (;;) {
      const have = c.length;
      const buf = c.buf,
        at = c.start;
      switch (this.state) {
        case "head": {
          if (have < 10 && !final) return;
          const h = parseId3Header(c.view(10));
          if (!h) {
            this.state = "sync";
            break;
          }
          this.tag = h;
          this.index.tagBytes = h.tagEnd;
          c.drop(10);
          if (h.opaque) this.skip(h.tagEnd, "sync");
          else this.state = h.extendedHeader ? "id3ext" : "id3frame";
          break;
        }
        case "id3ext": {
          if (have < 4) {
            if (!final) return;
            this.skip(this.tag!.tagEnd, "sync");
            break;
          }
          const end = c.base + extendedHeaderLength(this.tag!.version, c.view(4));
          this.skip(
            end < this.tag!.framesEnd ? end : this.tag!.tagEnd,
            end < this.tag!.framesEnd ? "id3frame" : "sync",
          );
          break;
        }
        case "id3frame": {
          const tag = this.tag!,
            hl = frameHeaderLength(tag.version);
          if (c.base + hl > tag.framesEnd) {
            this.skip(tag.tagEnd, "sync");
            break;
          }
          if (have < hl) {
            if (!final) return;
            this.skip(tag.tagEnd, "sync");
            break;
          }
          const f = parseFrameHeader(tag.version, c.view(hl));
          // Padding (zeros) or garbage ends the frames; the tag's size still says where audio starts.
          if (!f || c.base + hl + f.size > tag.framesEnd) {
            this.skip(tag.tagEnd, "sync");
            break;
          }
          c.drop(hl);
          if (wantsFrame(tag.version, f)) {
            this.frame = f;
            this.state = "id3keep";
          } else this.skip(c.base + f.size, "id3frame");
          break;
        }
        case "id3keep": {
          const f = this.frame!;
          if (have < f.size) {
            if (!final) return;
            this.skip(this.tag!.tagEnd, "sync");
            break;
          }
          readTextFrame(this.tag!.version, this.tag!, f, c.view(f.size), this.index.tags);
          c.drop(f.size);
          this.state = "id3frame";
          break;
        }
        case "skip": {
          const n = Math.min(have, this.skipTo - c.base);
          c.drop(n);
          if (c.base < this.skipTo) return; // more to skip than we have: wait for the next chunk
          this.state = this.afterSkip;
          break;
        }
        case "sync": {
          if (have < 4) return;
          const h = parseFrameHeaderAt(buf, at);
          if (h && this.locked && sameStream(h, this.locked)) {
            // In sync: the next frame is where the last one ended.
            if (have < h.length) return; // a short last frame stays in the carry: finish() counts it as skipped
            this.accept(h);
            break;
          }
          this.locked = undefined;
          if (h) {
            // Out of sync, a candidate is only believed if another header follows it.
            if (have >= h.length + 4) {
              const next = parseFrameHeaderAt(buf, at + h.length);
              if (next && sameStream(h, next)) {
                this.locked = h;
                this.accept(h);
                break;
              }
            } else if (!final) return;
            else if (have === h.length) {
              this.locked = h;
              this.accept(h);
              break;
            } // a frame that ends exactly at the end of the file
          }
          // Junk: jump to the next 0xFF, the only byte a header can start with.
          const next = buf.indexOf(0xff, at + 1);
          const n = next < 0 || next >= c.end ? have : next - at;
          this.index.skippedBytes += n;
          c.drop(n);
          break;
        }
      }
    }
  }

  private skip(to: number, then: State) {
    this.skipTo = to;
    this.afterSkip = then;
    this.state = "skip";
  }

  private accept(h: FrameHeader) {
    const c = this.carry,
      ix = this.index;
    const duration =
      ix.frames === 0 && isInfoFrame(c.buf, c.start, h) ? 0 : h.samples / h.sampleRate;
    ix.frames++;
    ix.audioBytes += h.length;
    ix.duration += duration;
    const cur = this.current;
    // A segment grows until it reaches the target; a gap (skipped junk) also ends it, since a segment is one byte range.
    if (cur && cur.offset + cur.length === c.base && cur.duration < this.target) {
      cur.length += h.length;
      cur.duration += duration;
    } else {
      this.closeSegment();
      this.current = { offset: c.base, length: h.length, duration };
    }
    c.drop(h.length);
  }

  private closeSegment() {
    const cur = this.current;
    if (!cur) return;
    this.current = undefined;
    if (this.index.segments.length >= this.maxSegments) {
      this.index.overflow = true;
      return;
    }
    this.index.segments.push({ ...cur, duration: Math.round(cur.duration * 1e6) / 1e6 });
  }
}

/** Indexes a stream (an R2 object's body, a request part) chunk by chunk. */
export async function indexMp3Stream(
  stream: ReadableStream<Uint8Array>,
  opts?: Mp3Options,
): Promise<Mp3Index> {
  const ix = new Mp3Indexer(opts);
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    ix.push(value);
  }
  return ix.finish();
}

/** Indexes bytes already in memory (tests, small files). */
export function indexMp3(bytes: Uint8Array, opts?: Mp3Options): Mp3Index {
  const ix = new Mp3Indexer(opts);
  ix.push(bytes);
  return ix.finish();
}

/** Whether an index is playable: some frames, and most of the bytes after the tag are frames. */
export function isPlayable(ix: Mp3Index): boolean {
  return ix.frames > 0 && !ix.overflow && ix.audioBytes >= ix.skippedBytes;
}
