/**
 * Agora AccessToken2 ("007" tokens), built as Agora's published builders build them
 * (AgoraIO/Tools, DynamicKey/AgoraDynamicKey: AccessToken2 and RtcTokenBuilder2), with Web
 * Crypto and CompressionStream so it runs in a Worker. test/agora-token.test.ts checks the
 * bytes against Agora's own published sample tokens.
 *
 * The token:
 * - signing key = HMAC-SHA256(key = uint32 salt, HMAC-SHA256(key = uint32 issueTs, certificate));
 * - signing info = appId, issueTs, expire, salt, the services (sorted by type), each a uint16
 *   type, a uint16-counted map of uint16 privilege -> uint32 expire (keys ascending), then the
 *   service's own strings (RTC: channel name and uid);
 * - content = string(HMAC-SHA256(signing key, signing info)) + signing info;
 * - "007" + base64(zlib deflate(content)).
 * Every integer is little-endian; a string is a uint16 length then its UTF-8 bytes.
 */

export const AGORA_ROLES = ["PUBLISHER", "SUBSCRIBER"] as const;
export type AgoraRole = (typeof AGORA_ROLES)[number];

/** Service types and RTC privileges, as Agora numbers them. */
export const RTC_SERVICE = 1;
export const RTC_PRIVILEGE = {
  joinChannel: 1,
  publishAudioStream: 2,
  publishVideoStream: 3,
  publishDataStream: 4,
} as const;

export interface AgoraService {
  type: number;
  /** privilege -> seconds from issue until it expires (0: as long as the token). */
  privileges: Record<number, number>;
  /** The service's own fields after the privileges, in order (RTC: channel, uid). */
  strings: string[];
}

export interface AccessToken2Input {
  appId: string;
  appCertificate: string;
  /** Seconds since the epoch. */
  issueTs: number;
  /** Seconds from issueTs until the token expires. */
  expire: number;
  /** 1 to 99,999,999 (Agora's range); random when omitted. */
  salt?: number;
  services: AgoraService[];
}

type Bytes = Uint8Array<ArrayBuffer>;
const HEX32 = /^[0-9a-fA-F]{32}$/;
const utf8 = new TextEncoder();

/** A little-endian writer in Agora's packing. */
class Packer {
  private parts: Bytes[] = [];
  u16(v: number) {
    const b = new Uint8Array(2);
    new DataView(b.buffer).setUint16(0, v, true);
    this.parts.push(b);
    return this;
  }
  u32(v: number) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v >>> 0, true);
    this.parts.push(b);
    return this;
  }
  bytes(b: Bytes) {
    this.u16(b.length);
    this.parts.push(b);
    return this;
  }
  str(s: string) {
    return this.bytes(utf8.encode(s) as Bytes);
  }
  raw(b: Bytes) {
    this.parts.push(b);
    return this;
  }
  done(): Bytes {
    return concat(this.parts);
  }
}

function concat(parts: Bytes[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function hmac(key: Bytes, message: Bytes): Promise<Bytes> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, message));
}

async function deflate(data: Bytes): Promise<Bytes> {
  const stream = new Blob([data]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function base64(bytes: Bytes): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function packService(s: AgoraService): Bytes {
  const p = new Packer().u16(s.type);
  const keys = Object.keys(s.privileges)
    .map(Number)
    .sort((a, b) => a - b);
  p.u16(keys.length);
  for (const k of keys) p.u16(k).u32(s.privileges[k]);
  for (const v of s.strings) p.str(v);
  return p.done();
}

/** Builds an AccessToken2. Throws on an app id or certificate that is not 32 hex digits. */
export async function buildAccessToken2(input: AccessToken2Input): Promise<string> {
  const { appId, appCertificate, issueTs, expire } = input;
  if (!HEX32.test(appId) || !HEX32.test(appCertificate))
    throw new Error("Agora app id and certificate must each be 32 hexadecimal digits");
  if (!input.services.length) throw new Error("An Agora token needs at least one service");
  const salt = input.salt ?? 1 + Math.floor(Math.random() * 99_999_999);
  const signing = await hmac(
    new Packer().u32(salt).done(),
    await hmac(new Packer().u32(issueTs).done(), utf8.encode(appCertificate) as Bytes),
  );
  // Stable by type (the published builder sorts the same way before packing).
  const services = [...input.services].sort((a, b) => a.type - b.type);
  const info = new Packer()
    .str(appId)
    .u32(issueTs)
    .u32(expire)
    .u32(salt)
    .u16(services.length)
    .raw(concat(services.map(packService)))
    .done();
  const signature = await hmac(signing, info);
  const content = new Packer().bytes(signature).raw(info).done();
  return `007${base64(await deflate(content))}`;
}

/**
 * An RTC service for `channel` and `account` (a string user account; Agora's numeric uid 0
 * is the empty string). PUBLISHER may join and publish audio, video and data; SUBSCRIBER may
 * only join (RtcTokenBuilder2's two roles).
 */
export function rtcService(
  channel: string,
  account: string,
  role: AgoraRole,
  privilegeExpire: number,
): AgoraService {
  const privileges: Record<number, number> = { [RTC_PRIVILEGE.joinChannel]: privilegeExpire };
  if (role === "PUBLISHER") {
    privileges[RTC_PRIVILEGE.publishAudioStream] = privilegeExpire;
    privileges[RTC_PRIVILEGE.publishVideoStream] = privilegeExpire;
    privileges[RTC_PRIVILEGE.publishDataStream] = privilegeExpire;
  }
  return { type: RTC_SERVICE, privileges, strings: [channel, account] };
}
