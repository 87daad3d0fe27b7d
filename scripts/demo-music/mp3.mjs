// MP3 encoding (lamejs), ID3v2.3 tags, and a frame walker that checks a file is whole.
import { Mp3Encoder } from "@breezystack/lamejs";

export const SR = 44100;
export const KBPS = 128;

/** Encodes mono float samples to a 128 kbps MP3 (MPEG-1 Layer III) with lamejs. */
export function encodeMp3(samples) {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i] * 32767;
    pcm[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  const enc = new Mp3Encoder(1, SR, KBPS);
  const parts = [];
  // 1152 samples per frame; feeding whole multiples keeps lamejs's internal copying small.
  for (let i = 0; i < pcm.length; i += 1152 * 64)
    parts.push(enc.encodeBuffer(pcm.subarray(i, i + 1152 * 64)));
  parts.push(enc.flush());
  return Buffer.concat(
    parts.filter((p) => p.length).map((p) => Buffer.from(p.buffer, p.byteOffset, p.length)),
  );
}

/** An ID3v2.3 tag: text frames in ISO-8859-1 when they fit, else UTF-16 with a BOM. */
export function id3v23(frames) {
  const bodies = [];
  for (const [id, value] of Object.entries(frames)) {
    if (value === undefined || value === null || value === "") continue;
    const text = String(value);
    const latin = /^[\x00-\xff]*$/.test(text);
    const content = latin
      ? Buffer.concat([Buffer.from([0]), Buffer.from(text, "latin1")])
      : Buffer.concat([Buffer.from([1, 0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const head = Buffer.alloc(10);
    head.write(id, 0, "ascii");
    head.writeUInt32BE(content.length, 4); // v2.3 frame sizes are plain 32-bit, not syncsafe
    bodies.push(head, content);
  }
  const body = Buffer.concat(bodies);
  const size = body.length;
  // The tag size in the header is syncsafe: 7 bits per byte.
  const header = Buffer.from([
    0x49,
    0x44,
    0x33,
    3,
    0,
    0,
    (size >> 21) & 0x7f,
    (size >> 14) & 0x7f,
    (size >> 7) & 0x7f,
    size & 0x7f,
  ]);
  return Buffer.concat([header, body]);
}

/** Reads the ID3v2 text frames we write (enough to check a cached file is ours and current). */
export function readId3(buf) {
  if (buf.length < 10 || buf.toString("latin1", 0, 3) !== "ID3") return { size: 0, frames: {} };
  const size = 10 + ((buf[6] << 21) | (buf[7] << 14) | (buf[8] << 7) | buf[9]);
  const frames = {};
  for (let o = 10; o + 10 <= size;) {
    const id = buf.toString("latin1", o, o + 4);
    const len = buf.readUInt32BE(o + 4);
    if (!/^[A-Z0-9]{4}$/.test(id) || o + 10 + len > size) break;
    const c = buf.subarray(o + 10, o + 10 + len);
    frames[id] = c[0] === 1 ? c.subarray(3).toString("utf16le") : c.subarray(1).toString("latin1");
    o += 10 + len;
  }
  return { size, frames };
}

export const BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
export const RATES_V1 = [44100, 48000, 32000];
/**
 * Walks the MPEG audio frames after the ID3 tag, header by header (MPEG-1 Layer III only,
 * which is what we write). Throws on anything that is not a clean run of frames to the end.
 */
export function parseMp3Frames(buf) {
  const { size } = readId3(buf);
  let o = size;
  let frames = 0;
  const bitrates = new Set();
  const rates = new Set();
  const modes = new Set();
  while (o + 4 <= buf.length) {
    const h = buf.readUInt32BE(o);
    if (h >>> 21 !== 0x7ff) throw new Error(`no frame sync at byte ${o} (frame ${frames})`);
    const version = (h >>> 19) & 3;
    const layer = (h >>> 17) & 3;
    const br = BITRATES_V1_L3[(h >>> 12) & 15];
    const rate = RATES_V1[(h >>> 10) & 3];
    if (version !== 3 || layer !== 1 || !br || !rate)
      throw new Error(`frame ${frames} at byte ${o} is not MPEG-1 Layer III`);
    const padding = (h >>> 9) & 1;
    const len = Math.floor((144 * br * 1000) / rate) + padding;
    bitrates.add(br);
    rates.add(rate);
    modes.add(["stereo", "joint stereo", "dual channel", "mono"][(h >>> 6) & 3]);
    o += len;
    frames++;
  }
  if (o !== buf.length)
    throw new Error(`trailing ${buf.length - o} bytes after frame ${frames} (truncated file?)`);
  const sampleRate = [...rates][0];
  return {
    id3Bytes: size,
    frames,
    bitrates: [...bitrates],
    sampleRates: [...rates],
    modes: [...modes],
    seconds: (frames * 1152) / sampleRate,
  };
}
