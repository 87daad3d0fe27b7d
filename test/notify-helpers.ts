import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { vi } from "vitest";
import worker from "../workers/app";
import type { Env } from "../workers/env";
import type { UsersMessage } from "../workers/queues/user-notifications";
import { call, type CallInit } from "./helpers";

/**
 * Helpers for the notification tests: the social-service client, a browser's side of Web
 * Push (its ECDH key pair and auth secret, and RFC 8291 decryption written here, apart
 * from the adapter, so the test checks the scheme, not the code against itself), a VAPID
 * check, a queue that records what producers send, and a way to consume it.
 */
export const social = (path: string, init?: CallInit) => call("social-service", path, init);
export const SERVICE = { "X-Service-Key": "test-service-key" };

export const b64u = (b: ArrayBuffer | Uint8Array) =>
  Buffer.from(b instanceof Uint8Array ? b : new Uint8Array(b)).toString("base64url");
type Bytes = Uint8Array<ArrayBuffer>;
export const unb64u = (s: string): Bytes => new Uint8Array(Buffer.from(s, "base64url"));
const utf8 = (s: string) => new TextEncoder().encode(s) as Bytes;
const cat = (...p: Uint8Array[]): Bytes => new Uint8Array(p.flatMap((x) => [...x]));

/** A browser's push keys, and the subscription JSON it would send us. */
export async function browser(
  endpoint = `https://fcm.googleapis.com/fcm/send/${crypto.randomUUID()}`,
) {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const pub = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
  const auth = crypto.getRandomValues(new Uint8Array(16));
  return {
    pair,
    pub,
    auth,
    subscription: { endpoint, expirationTime: null, keys: { p256dh: b64u(pub), auth: b64u(auth) } },
  };
}
export type Browser = Awaited<ReturnType<typeof browser>>;

async function hkdf(salt: Bytes, ikm: Bytes, info: Bytes, len: number) {
  const k = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info }, k, len * 8),
  );
}

/** Decrypts an aes128gcm push body with the browser's private key (RFC 8291 section 3). */
export async function decryptPush(b: Browser, body: Bytes): Promise<string> {
  const salt = body.slice(0, 16);
  const rs = new DataView(body.buffer, body.byteOffset).getUint32(16);
  const idlen = body[20];
  const asPublic = body.slice(21, 21 + idlen);
  const ct = body.slice(21 + idlen);
  if (rs < 18 || idlen !== 65 || ct.length > rs) throw new Error("bad aes128gcm header");
  const asKey = await crypto.subtle.importKey(
    "raw",
    asPublic,
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const secret = new Uint8Array(
    await crypto.subtle.deriveBits({ name: "ECDH", public: asKey }, b.pair.privateKey, 256),
  );
  const ikm = await hkdf(b.auth, secret, cat(utf8("WebPush: info\0"), b.pub, asPublic), 32);
  const cek = await hkdf(salt, ikm, utf8("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, utf8("Content-Encoding: nonce\0"), 12);
  const key = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["decrypt"]);
  const plain = new Uint8Array(
    await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, key, ct),
  );
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error("no last-record delimiter");
  return new TextDecoder().decode(plain.slice(0, end));
}

/** Checks `Authorization: vapid t=..., k=...` (RFC 8292): signature, audience, expiry, subject. */
export async function verifyVapid(header: string, endpoint: string) {
  const m = header.match(/^vapid t=([^,\s]+),\s*k=(\S+)$/);
  if (!m) throw new Error(`not a vapid header: ${header}`);
  const [, jwt, k] = m;
  const [h, p, s] = jwt.split(".");
  const key = await crypto.subtle.importKey(
    "raw",
    unb64u(k),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const ok = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    key,
    unb64u(s),
    utf8(`${h}.${p}`),
  );
  const header0 = JSON.parse(Buffer.from(h, "base64url").toString());
  const claims = JSON.parse(Buffer.from(p, "base64url").toString());
  return { ok, k, header: header0, claims, aud: new URL(endpoint).origin };
}

export interface Captured {
  url: string;
  headers: Headers;
  body: Bytes;
}

/**
 * Stubs fetch: every request is recorded and answered by `answer` (default 201). Requests
 * to the Worker itself (SELF) never pass through global fetch, so only outside calls land here.
 */
export function stubFetch(
  answer: (c: Captured) => Response | Promise<Response> = () => new Response(null, { status: 201 }),
) {
  const seen: Captured[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input as RequestInfo, init as RequestInit);
    const c = { url: req.url, headers: req.headers, body: new Uint8Array(await req.arrayBuffer()) };
    seen.push(c);
    return answer(c);
  });
  return seen;
}

/** A queue that records what producers send (sendBatch calls and their messages). */
export function recordingQueue() {
  const calls: UsersMessage[][] = [];
  const q = {
    send: async (body: UsersMessage) => void calls.push([body]),
    sendBatch: async (list: { body: UsersMessage }[]) => void calls.push(list.map((m) => m.body)),
  };
  return {
    calls,
    env: { ...env, NOTIFICATIONS: q } as unknown as Env,
    messages: () => calls.flat(),
  };
}

let seq = 0;
/** Delivers `bodies` to the real consumer as one batch; answers acks and retries by index. */
export async function consume(bodies: unknown[], over: Partial<Env> = {}, attempts = 1) {
  const ids = bodies.map(() => `m${seq++}`);
  const batch = createMessageBatch(
    "hangout-notifications",
    bodies.map((body, i) => ({ id: ids[i], timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, ...over } as Env);
  const r = await getQueueResult(batch, ctx);
  return {
    ids,
    acked: r.explicitAcks,
    retried: r.retryMessages.map((m: { msgId: string }) => m.msgId),
  };
}

/** The in-app rows of a user, newest first (silent ones too). */
export async function rowsOf(userUuid: string) {
  const { results } = await env.DB.prepare(
    "select * from notifications where user_uuid = ? order by id desc",
  )
    .bind(userUuid)
    .all<{
      uuid: string;
      kind: string;
      title: string;
      body: string;
      message_id: string;
      silent: number;
      pushed_at: number | null;
    }>();
  return results;
}
