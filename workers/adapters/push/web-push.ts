import type { WebPushSubscriptionRow } from "../../db/schema";
import type { Env } from "../../env";
import {
  b64url,
  compactJws,
  concat,
  fromB64url,
  PUSH_TIMEOUT_MS,
  transient,
  utf8,
  type Bytes,
  type PushOutcome,
  type PushPayload,
} from "./types";

/**
 * Web Push: VAPID (RFC 8292) and the aes128gcm content encoding (RFC 8291 over RFC 8188),
 * with WebCrypto only. Keys: VAPID_PUBLIC_KEY is the uncompressed P-256 point (65 bytes,
 * base64url: what a page passes as `applicationServerKey`), VAPID_PRIVATE_KEY its scalar
 * (32 bytes, base64url), VAPID_SUBJECT a `mailto:` or `https:` contact for the push
 * services. scripts/setup.mjs makes a pair on first run; with none set web push is off.
 */

export const webPushOn = (env: Env) =>
  !!(env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY && env.VAPID_SUBJECT);

/** One record holds the whole message; 4096 is the size every push service must accept. */
const RECORD_SIZE = 4096;
/** How long a push service keeps an undelivered message (seconds). */
const TTL_SECONDS = 24 * 3600;
/** VAPID tokens live 12 hours (RFC 8292 allows at most 24) and are reused per audience. */
const VAPID_TTL_S = 12 * 3600;

/** The VAPID private key as an ECDSA signing key (x and y come from the public point). */
async function vapidKey(env: Env): Promise<CryptoKey> {
  const pub = fromB64url(env.VAPID_PUBLIC_KEY!);
  const d = env.VAPID_PRIVATE_KEY!;
  if (!pub || pub.length !== 65 || pub[0] !== 4)
    throw new Error("VAPID_PUBLIC_KEY is not a P-256 point");
  return crypto.subtle.importKey(
    "jwk",
    {
      kty: "EC",
      crv: "P-256",
      x: b64url(pub.slice(1, 33)),
      y: b64url(pub.slice(33)),
      d,
      ext: false,
    },
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
}

const vapidCache = new Map<string, { header: string; exp: number }>();

/** `Authorization: vapid t=<JWT>, k=<public key>` for the endpoint's origin (RFC 8292 section 3). */
export async function vapidAuthorization(env: Env, endpoint: string, now = Date.now()) {
  const aud = new URL(endpoint).origin;
  const cacheKey = `${env.VAPID_PUBLIC_KEY}|${aud}`;
  const hit = vapidCache.get(cacheKey);
  // Reused while it has over an hour left, so a token never expires in flight.
  if (hit && hit.exp * 1000 - now > 3600_000) return hit.header;
  const key = await vapidKey(env);
  const exp = Math.floor(now / 1000) + VAPID_TTL_S;
  const jwt = await compactJws(
    { typ: "JWT", alg: "ES256" },
    { aud, exp, sub: env.VAPID_SUBJECT },
    (input) => crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, input),
  );
  const header = `vapid t=${jwt}, k=${env.VAPID_PUBLIC_KEY}`;
  // Endpoints are user-supplied, so their origins are too: the cache stays small.
  if (vapidCache.size >= 64) vapidCache.clear();
  vapidCache.set(cacheKey, { header, exp });
  return header;
}

/** HKDF-SHA-256 (RFC 5869) of `length` bytes. */
async function hkdf(salt: Bytes, ikm: Bytes, info: Bytes, length: number): Promise<Bytes> {
  const key = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt, info },
    key,
    length * 8,
  );
  return new Uint8Array(bits);
}

/**
 * Encrypts `plaintext` for a subscription (RFC 8291 section 3, one aes128gcm record):
 * an ephemeral ECDH key pair meets the browser's p256dh key; the shared secret and the
 * browser's auth secret give the IKM; a random salt gives the content key and nonce.
 * Body: salt(16) | rs(4) | idlen(1) | keyid = our ephemeral public key(65) | ciphertext.
 */
export async function encryptAes128gcm(
  uaPublic: Bytes,
  authSecret: Bytes,
  plaintext: Bytes,
): Promise<Bytes> {
  if (plaintext.length > RECORD_SIZE - 17 - 86) throw new Error("web push payload too large");
  const ua = await crypto.subtle.importKey(
    "raw",
    uaPublic,
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const as = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const asPublic = new Uint8Array(
    (await crypto.subtle.exportKey("raw", as.publicKey)) as ArrayBuffer,
  );
  const ecdhSecret = new Uint8Array(
    await crypto.subtle.deriveBits({ name: "ECDH", public: ua }, as.privateKey, 256),
  );
  const keyInfo = concat(utf8("WebPush: info\0"), uaPublic, asPublic);
  const ikm = await hkdf(authSecret, ecdhSecret, keyInfo, 32);
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const cek = await hkdf(salt, ikm, utf8("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, utf8("Content-Encoding: nonce\0"), 12);
  const aes = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["encrypt"]);
  // The last (only) record ends with the delimiter 0x02, then no padding.
  const record = concat(plaintext, new Uint8Array([2]));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce }, aes, record),
  );
  const header = new Uint8Array(21 + asPublic.length);
  header.set(salt, 0);
  new DataView(header.buffer).setUint32(16, RECORD_SIZE);
  header[20] = asPublic.length;
  header.set(asPublic, 21);
  return concat(header, sealed);
}

/**
 * Sends one notification to one browser. The payload is the JSON the service worker
 * shows (`{uuid, kind, title, body, data}`). 404/410 from the push service: the
 * subscription is gone; 429/5xx/network: failed (retry later); any other answer is a
 * request the service will never take (logged, not retried).
 */
export async function sendWebPush(
  env: Env,
  sub: Pick<WebPushSubscriptionRow, "endpoint" | "p256dh" | "auth">,
  payload: PushPayload,
): Promise<PushOutcome> {
  const uaPublic = fromB64url(sub.p256dh);
  const auth = fromB64url(sub.auth);
  if (!uaPublic || uaPublic.length !== 65 || !auth || auth.length !== 16) return "gone";
  const { uuid, kind, title, body, data, silent } = payload;
  const json = JSON.stringify(
    silent ? { uuid, kind, data, silent } : { uuid, kind, title, body, data },
  );
  try {
    const res = await fetch(sub.endpoint, {
      method: "POST",
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
      headers: {
        Authorization: await vapidAuthorization(env, sub.endpoint),
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        TTL: String(TTL_SECONDS),
        Urgency: silent ? "low" : "high",
      },
      body: await encryptAes128gcm(uaPublic, auth, utf8(json)),
    });
    if (res.ok) return "sent";
    if (res.status === 404 || res.status === 410) return "gone";
    if (transient(res.status)) return "failed";
    console.error(`web push refused by ${new URL(sub.endpoint).host}: ${res.status}`);
    return "refused";
  } catch (err) {
    console.error("web push failed", err);
    return "failed";
  }
}
