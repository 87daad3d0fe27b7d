import { toTicks } from "./hls-timestamp";
import { parseFrameHeaderAt } from "./mp3";

/**
 * MPEG-2 transport stream segments for players that take HLS natively but not packed audio
 * (docs/DECISIONS.md, "Standard HLS"): Chromium's built-in HLS player only demuxes MPEG-TS,
 * so the player's native path asks for `container=ts`. The same MPEG audio frames go into
 * PES packets (stream id 0xC0) whose PTS is each packet's first sample time on the 90 kHz
 * clock, behind one PAT and one PMT per segment (ISO/IEC 13818-1), so every segment starts
 * on its own, as RFC 8216 section 3.2 requires. Continuity counters restart per segment:
 * players treat each segment as a fresh start, and no state links segments.
 */

const PACKET = 188;
const PMT_PID = 0x1000;
const AUDIO_PID = 0x100;
/** Under the 16-bit PES_packet_length (65,535) with room for the header. */
const MAX_PES_PAYLOAD = 60_000;

/** CRC-32/MPEG-2 (poly 0x04C11DB7, no reflection, init 0xFFFFFFFF), what PSI sections end with. */
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    t[i] = c >>> 0;
  }
  return t;
})();
export function crc32Mpeg(b: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of b) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]) >>> 0;
  return crc >>> 0;
}

/** A PSI section (PAT or PMT) as the payload of one packet: pointer field, section, CRC, 0xFF fill. */
function psiPacket(pid: number, section: number[]): Uint8Array {
  const p = new Uint8Array(PACKET).fill(0xff);
  p.set([0x47, 0x40 | (pid >> 8), pid & 0xff, 0x10, 0x00]);
  const body = Uint8Array.from(section);
  p.set(body, 5);
  new DataView(p.buffer).setUint32(5 + body.length, crc32Mpeg(body));
  return p;
}

const PAT = psiPacket(0, [
  0x00,
  0xb0,
  13,
  0x00,
  0x01,
  0xc1,
  0x00,
  0x00,
  0x00,
  0x01,
  0xe0 | (PMT_PID >> 8),
  PMT_PID & 0xff,
]);

/** The PMT: one MPEG audio stream (type 3: MPEG-1, 4: MPEG-2/2.5), which also carries the PCR. */
const pmt = (streamType: number) =>
  psiPacket(PMT_PID, [
    0x02,
    0xb0,
    18,
    0x00,
    0x01,
    0xc1,
    0x00,
    0x00,
    0xe0 | (AUDIO_PID >> 8),
    AUDIO_PID & 0xff,
    0xf0,
    0x00,
    streamType,
    0xe0 | (AUDIO_PID >> 8),
    AUDIO_PID & 0xff,
    0xf0,
    0x00,
  ]);

/** The 5-byte PTS field ('0010' prefix, marker bits) for a 33-bit tick count. */
function ptsBytes(ticks: number): number[] {
  const hi = Math.floor(ticks / 2 ** 30) & 0x07; // bits 32..30
  const lo = ticks % 2 ** 30; // bits 29..0
  return [
    0x21 | (hi << 1),
    (lo >>> 22) & 0xff,
    ((lo >>> 14) & 0xfe) | 1,
    (lo >>> 7) & 0xff,
    ((lo << 1) & 0xfe) | 1,
  ];
}

/** The 6-byte PCR field (33-bit base, 6 reserved bits, 9-bit extension 0). */
function pcrBytes(ticks: number): number[] {
  const hi = Math.floor(ticks / 2 ** 25); // bits 32..25
  const lo = ticks % 2 ** 25; // bits 24..0
  return [
    hi & 0xff,
    (lo >>> 17) & 0xff,
    (lo >>> 9) & 0xff,
    (lo >>> 1) & 0xff,
    ((lo & 1) << 7) | 0x7e,
    0x00,
  ];
}

/** One PES packet cut into TS packets; the first carries the PCR when `pcr` is given. */
function pesPackets(payload: Uint8Array, pts: number, pcr: number | undefined, cc: { n: number }) {
  const header = [0x00, 0x00, 0x01, 0xc0, 0, 0, 0x80, 0x80, 0x05, ...ptsBytes(pts)];
  const pesLength = header.length - 6 + payload.length;
  header[4] = pesLength >> 8;
  header[5] = pesLength & 0xff;
  const pes = new Uint8Array(header.length + payload.length);
  pes.set(header);
  pes.set(payload, header.length);
  const packets: Uint8Array[] = [];
  for (let at = 0, first = true; at < pes.length; first = false) {
    const left = pes.length - at;
    // Adaptation field body (after its length byte): the PCR on the first packet, and
    // 0xFF stuffing so the last packet ends exactly at 188 bytes.
    let af: number[] | undefined =
      first && pcr !== undefined ? [0x10, ...pcrBytes(pcr)] : undefined;
    if (af) {
      const room = PACKET - 4 - 1 - af.length;
      if (left < room) af.push(...new Array<number>(room - left).fill(0xff));
    } else if (left < PACKET - 4) {
      const total = PACKET - 4 - left; // length byte included
      af = total > 1 ? [0x00, ...new Array<number>(total - 2).fill(0xff)] : [];
    }
    const p = new Uint8Array(PACKET);
    p[0] = 0x47;
    p[1] = (first ? 0x40 : 0) | (AUDIO_PID >> 8);
    p[2] = AUDIO_PID & 0xff;
    p[3] = (af ? 0x30 : 0x10) | (cc.n++ & 0x0f);
    let o = 4;
    if (af) {
      p[o++] = af.length;
      p.set(af, o);
      o += af.length;
    }
    const take = PACKET - o;
    p.set(pes.subarray(at, at + take), o);
    at += take;
    packets.push(p);
  }
  return packets;
}

/**
 * Segment bytes as MPEG-TS: `frames` (whole MPEG audio frames, as the indexer cut them)
 * starting `startSeconds` into the song.
 */
export function mp3ToTs(frames: Uint8Array, startSeconds: number): Uint8Array<ArrayBuffer> {
  const first = parseFrameHeaderAt(frames, 0);
  const packets: Uint8Array[] = [PAT, pmt(first?.version === 1 || !first ? 0x03 : 0x04)];
  const cc = { n: 0 };
  let at = 0;
  let samples = 0;
  let firstPes = true;
  while (at < frames.length) {
    // Whole frames up to the PES size bound; PTS is the first frame's time.
    const pesStart = at;
    const pts = toTicks(startSeconds + (first ? samples / first.sampleRate : 0));
    while (at < frames.length) {
      const h = parseFrameHeaderAt(frames, at);
      const length = h ? h.length : frames.length - at; // not a frame: the rest goes as is
      if (at > pesStart && at + length - pesStart > MAX_PES_PAYLOAD) break;
      at += length;
      samples += h ? h.samples : 0;
    }
    packets.push(...pesPackets(frames.subarray(pesStart, at), pts, firstPes ? pts : undefined, cc));
    firstPes = false;
  }
  const out = new Uint8Array(packets.length * PACKET);
  packets.forEach((p, i) => out.set(p, i * PACKET));
  return out;
}
