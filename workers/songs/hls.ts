import type { HlsSegment } from "./mp3";

/**
 * HLS for uploaded songs, the pure parts (docs/DECISIONS.md, "Uploaded songs"): the v3
 * media playlist, signed segment and key URLs, the per-song AES-128 key and the IV of a
 * segment. Routes in workers/upload-service/hls.ts use these; so can tests. Every function
 * takes the HLS purpose key (HMAC-SHA256, lib/purpose-keys.ts).
 */

/**
 * How segments are packaged: "mp3" is RFC 8216 packed audio (the timestamp ID3 tag, then
 * the MPEG frames), what hls.js and Safari play; "ts" is the same frames in an MPEG-2
 * transport stream (songs/mpeg-ts.ts), for native players without packed-audio support
 * (Chromium's). The container is not signed: it repackages what the URL already grants.
 */
export const SEGMENT_CONTAINERS = ["mp3", "ts"] as const;
export type SegmentContainer = (typeof SEGMENT_CONTAINERS)[number];

/** How long playlist URLs stay valid: longer than any song, short enough that a leaked link dies. */
export const HLS_URL_TTL_S = 6 * 60 * 60;

const BASE = "/api/upload-service/songs";
const enc = new TextEncoder();

const b64url = (b: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(b)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
function fromB64url(s: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/**
 * What a signature covers. Each kind has its own prefix, and none is "hls-key:", so no
 * signature printed in a URL can ever equal (part of) a song's key.
 */
const segmentMessage = (songId: string, n: number, exp: number, epoch?: number) =>
  epoch === undefined ? `hls-seg:${songId}:${n}:${exp}` : `hls-seg:${songId}:${n}:${epoch}:${exp}`;
const keyMessage = (songId: string, exp: number) => `hls-key-url:${songId}:${exp}`;
const grantMessage = (songId: string, scope: string, exp: number) =>
  `hls-play-grant:${songId}:${scope}:${exp}`;

async function sign(key: CryptoKey, message: string): Promise<string> {
  return b64url(await crypto.subtle.sign("HMAC", key, enc.encode(message)));
}

/** Constant-time check (WebCrypto's verify) that `sig` signs `message` and `exp` (epoch seconds) is not past. */
async function verify(
  key: CryptoKey,
  message: string,
  sig: string,
  exp: number,
  nowS: number,
): Promise<boolean> {
  if (exp < nowS) return false;
  const bytes = fromB64url(sig);
  if (!bytes || bytes.length !== 32) return false;
  return crypto.subtle.verify("HMAC", key, bytes, enc.encode(message));
}

/**
 * A segment URL's signature. `epoch` (the `v` parameter) is the file version the playlist
 * was built from, which keys the segment cache (upload-service/segment-cache.ts); URLs from
 * before it existed carry none and are still honoured, uncached, until they expire.
 */
export const verifySegmentSig = (
  key: CryptoKey,
  songId: string,
  n: number,
  exp: number,
  sig: string,
  epoch?: number,
  nowS = Math.floor(Date.now() / 1000),
) => verify(key, segmentMessage(songId, n, exp, epoch), sig, exp, nowS);
export const verifyKeySig = (
  key: CryptoKey,
  songId: string,
  exp: number,
  sig: string,
  nowS = Math.floor(Date.now() / 1000),
) => verify(key, keyMessage(songId, exp), sig, exp, nowS);

/**
 * A play grant (issue 18, "Private means private"): a private upload plays to its owner
 * and admins, and to the listeners of a room while it plays there. The room hands them the
 * playlist URL with a grant signed over song, scope (the play) and expiry (the song's end
 * plus slack), so the playlist route lets them in without naming them one by one.
 */
export async function playGrantQuery(
  key: CryptoKey,
  songId: string,
  scope: string,
  exp: number,
): Promise<string> {
  const sig = await sign(key, grantMessage(songId, scope, exp));
  return new URLSearchParams({ scope, exp: String(exp), sig }).toString();
}
export const verifyPlayGrant = (
  key: CryptoKey,
  songId: string,
  scope: string,
  exp: number,
  sig: string,
  nowS = Math.floor(Date.now() / 1000),
) => verify(key, grantMessage(songId, scope, exp), sig, exp, nowS);

/** The song's AES-128 key: the first 16 bytes of HMAC-SHA256(HLS key, "hls-key:" + songId). Derived, so never stored. */
export async function songKey(key: CryptoKey, songId: string): Promise<Uint8Array<ArrayBuffer>> {
  const mac = await crypto.subtle.sign("HMAC", key, enc.encode(`hls-key:${songId}`));
  return new Uint8Array(mac.slice(0, 16));
}

/** The IV HLS uses when the KEY tag names none: the media sequence number as a 16-byte big-endian integer. */
export function segmentIv(sequence: number): Uint8Array<ArrayBuffer> {
  const iv = new Uint8Array(16);
  new DataView(iv.buffer).setBigUint64(8, BigInt(sequence));
  return iv;
}

/** AES-128-CBC with PKCS#7 padding (what WebCrypto does), as HLS "METHOD=AES-128" expects. */
export async function encryptSegment(
  key: Uint8Array<ArrayBuffer>,
  sequence: number,
  data: Uint8Array<ArrayBuffer>,
): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey("raw", key, { name: "AES-CBC" }, false, ["encrypt"]);
  return crypto.subtle.encrypt({ name: "AES-CBC", iv: segmentIv(sequence) }, k, data);
}

export const segmentPath = (songId: string, n: number) => `${BASE}/${songId}/segments/${n}`;
export const keyPath = () => `${BASE}/hls/key`;

/**
 * The VOD media playlist. URIs are absolute paths, so they resolve against whatever origin
 * served the playlist (the gateway, a dev server, a proxy). Target duration is the longest
 * segment rounded to the nearest second, as RFC 8216 (4.3.3.1) requires for version 3.
 */
export async function buildPlaylist(
  mac: CryptoKey,
  songId: string,
  segments: HlsSegment[],
  epoch: number,
  container: SegmentContainer = "mp3",
  nowS = Math.floor(Date.now() / 1000),
): Promise<string> {
  const exp = nowS + HLS_URL_TTL_S;
  const target = Math.max(1, ...segments.map((s) => Math.round(s.duration)));
  const keySig = await sign(mac, keyMessage(songId, exp));
  const lines = [
    "#EXTM3U",
    "#EXT-X-VERSION:3",
    `#EXT-X-TARGETDURATION:${target}`,
    "#EXT-X-MEDIA-SEQUENCE:0",
    "#EXT-X-PLAYLIST-TYPE:VOD",
    `#EXT-X-KEY:METHOD=AES-128,URI="${keyPath()}?songId=${songId}&exp=${exp}&sig=${keySig}"`,
  ];
  const sigs = await Promise.all(
    segments.map((_, n) => sign(mac, segmentMessage(songId, n, exp, epoch))),
  );
  segments.forEach((s, n) =>
    lines.push(
      `#EXTINF:${s.duration.toFixed(3)},`,
      `${segmentPath(songId, n)}?v=${epoch}${container === "ts" ? "&c=ts" : ""}&exp=${exp}&sig=${sigs[n]}`,
    ),
  );
  lines.push("#EXT-X-ENDLIST", "");
  return lines.join("\n");
}
