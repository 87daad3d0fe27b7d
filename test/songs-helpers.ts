import { signTranscoderBody } from "../workers/adapters/transcoder";
import { env, SELF } from "cloudflare:test";
import { call, type CallInit } from "./helpers";

/**
 * Builders for song tests: real MP3 bytes (MPEG-1 Layer III frames, optionally behind an
 * ID3v2 tag), multipart bodies streamed by hand, and the upload-service client.
 */

/** MPEG-1 Layer III, 128 kbps, 44.1 kHz, no padding, no CRC, joint stereo: 417-byte frames of 1152 samples. */
export const FRAME_HEADER = [0xff, 0xfb, 0x90, 0x64];
export const FRAME_BYTES = 417;
export const FRAME_SECONDS = 1152 / 44100;
export const framesFor = (seconds: number) => Math.ceil(seconds / FRAME_SECONDS);

export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `count` frames with `header` and a zero payload (valid, silent-ish frames). */
export function mp3Frames(
  count: number,
  header: number[] = FRAME_HEADER,
  length = FRAME_BYTES,
): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(count * length);
  for (let i = 0; i < count; i++) out.set(header, i * length);
  return out;
}

/** An MP3 of about `seconds` (whole frames), behind `tag` if given. */
export const mp3 = (seconds: number, tag: Uint8Array = new Uint8Array(0)) =>
  concat(tag, mp3Frames(framesFor(seconds)));

type Encoding = "latin1" | "utf16" | "utf16be" | "utf8";
const ENCODING_BYTE: Record<Encoding, number> = { latin1: 0, utf16: 1, utf16be: 2, utf8: 3 };

function encodeText(text: string, encoding: Encoding): number[] {
  const units = [...text].flatMap((ch) => {
    const cp = ch.codePointAt(0)!;
    return cp > 0xffff
      ? [0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff)]
      : [cp];
  });
  switch (encoding) {
    case "latin1":
      return units.map((u) => u & 0xff);
    case "utf8":
      return [...new TextEncoder().encode(text)];
    case "utf16":
      return [0xff, 0xfe, ...units.flatMap((u) => [u & 0xff, u >> 8])];
    case "utf16be":
      return units.flatMap((u) => [u >> 8, u & 0xff]);
  }
}

const syncsafe = (n: number) => [(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f];
const u32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

/** One ID3v2.3/2.4 frame with a raw body. */
export function id3Frame(
  version: 3 | 4,
  id: string,
  body: number[] | Uint8Array,
  formatFlags = 0,
): Uint8Array<ArrayBuffer> {
  const size = version === 4 ? syncsafe(body.length) : u32(body.length);
  return new Uint8Array([...[...id].map((c) => c.charCodeAt(0)), ...size, 0, formatFlags, ...body]);
}

/** A text frame (encoding byte, then the text). */
export const id3Text = (version: 3 | 4, id: string, text: string, encoding: Encoding = "latin1") =>
  id3Frame(version, id, [ENCODING_BYTE[encoding], ...encodeText(text, encoding)]);

/** An ID3v2 tag holding `frames`, then `padding` zero bytes. */
export function id3Tag(version: 3 | 4, frames: Uint8Array[], padding = 0): Uint8Array<ArrayBuffer> {
  const body = concat(...frames, new Uint8Array(padding));
  return concat(new Uint8Array([0x49, 0x44, 0x33, version, 0, 0, ...syncsafe(body.length)]), body);
}

/** The usual: an ID3v2.3 tag with title and artist. */
export const namedTag = (title: string, artist: string) =>
  id3Tag(3, [id3Text(3, "TIT2", title), id3Text(3, "TPE1", artist)], 64);

/** A minimal WAV header (RIFF/WAVE, fmt, data) with silence: enough to sniff as WAV. */
export function wav(bytes = 4096): Uint8Array<ArrayBuffer> {
  const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
  const le32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
  const head = [
    ...ascii("RIFF"),
    ...le32(36 + bytes),
    ...ascii("WAVEfmt "),
    ...le32(16),
    1,
    0,
    2,
    0,
    ...le32(44100),
    ...le32(176400),
    4,
    0,
    16,
    0,
    ...ascii("data"),
    ...le32(bytes),
  ];
  return concat(new Uint8Array(head), new Uint8Array(bytes));
}

export const flac = (bytes = 4096) =>
  concat(new TextEncoder().encode("fLaC"), new Uint8Array([0, 0, 0, 34]), new Uint8Array(bytes));

/** The upload-service client. */
export const svc = (path: string, init?: CallInit) => call("upload-service", path, init);

export function songForm(
  file: Uint8Array<ArrayBuffer> | undefined,
  fields: Record<string, string> = {},
  name = "song.mp3",
  type = "audio/mpeg",
) {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (file) f.append("file", new File([file], name, { type }));
  return f;
}

export const uploadSong = (
  token: string | undefined,
  file: Uint8Array<ArrayBuffer> | undefined,
  fields: Record<string, string> = {},
  name?: string,
  type?: string,
) => svc("/upload/song", { method: "POST", token, body: songForm(file, fields, name, type) });

/** R2 keys under the songs prefix (all songs of this test file). */
export const songKeys = async () =>
  (await env.UPLOADS.list({ prefix: "songs/" })).objects.map((o) => o.key).sort();

/**
 * Posts a multipart body generated on the fly (no Content-Length): `fileBytes` bytes of MP3
 * frames in 64 KiB chunks, so a body over the limit never exists in memory at once.
 */
export async function streamUpload(token: string, fileBytes: number): Promise<Response> {
  const boundary = "----song-stream-boundary";
  const enc = new TextEncoder();
  const chunk = mp3Frames(Math.ceil((64 * 1024) / FRAME_BYTES));
  let sent = 0;
  let stage = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(ctl) {
      if (stage === 0) {
        ctl.enqueue(
          enc.encode(
            `--${boundary}\r\nContent-Disposition: form-data; name="trackName"\r\n\r\nBig\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
          ),
        );
        stage = 1;
      } else if (stage === 1) {
        const n = Math.min(chunk.length, fileBytes - sent);
        ctl.enqueue(chunk.slice(0, n));
        sent += n;
        if (sent >= fileBytes) stage = 2;
      } else {
        ctl.enqueue(enc.encode(`\r\n--${boundary}--\r\n`));
        ctl.close();
      }
    },
  });
  return SELF.fetch("http://hangout.test/api/upload-service/upload/song", {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": `multipart/form-data; boundary=${boundary}`,
    },
    body,
    // @ts-expect-error: undici's streaming-body flag, unknown to the Workers types
    duplex: "half",
  });
}

/** Rows of the song tables, to prove a refused call wrote nothing. */
export async function songRowCounts() {
  const n = async (t: string) =>
    (await env.DB.prepare(`select count(*) as n from ${t}`).first<{ n: number }>())!.n;
  return { songs: await n("songs"), files: await n("song_files") };
}

/** Byte equality without vitest's element-by-element diffing, which is far too slow for megabytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A transcoder report to POST /upload/transcoder_sns, signed as the transcoder signs it
 * (adapters/transcoder.ts) with the suite's secret, or another `secret`, at another time
 * `at` (unix seconds), or with a given `signature` header (null: none).
 */
export async function transcoderReport(
  body: unknown,
  opts: { secret?: string; at?: number; signature?: string | null } = {},
) {
  const raw = JSON.stringify(body);
  const signature =
    opts.signature !== undefined
      ? opts.signature
      : await signTranscoderBody(opts.secret ?? "test-transcoder-secret", raw, opts.at);
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (signature !== null) headers["X-Transcoder-Signature"] = signature;
  return svc("/upload/transcoder_sns", { body: raw, headers });
}
