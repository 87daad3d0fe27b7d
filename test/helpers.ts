import { env, SELF } from "cloudflare:test";
import { desc, eq } from "drizzle-orm";
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from "jose";
import { vi } from "vitest";
import type { UserRole } from "../shared/roles";
import { db } from "../workers/db/client";
import { devOutbox, users } from "../workers/db/schema";
import { api } from "../workers/api";
import type { Env } from "../workers/env";
import { signToken } from "../workers/lib/jwt";

/**
 * Test factories and a small client for the gateway (DESIGN.md: "factories for users,
 * tokens and rooms"). Every factory makes unique names, since storage is shared by the
 * tests of one file.
 */

export interface CallInit {
  method?: string;
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  /** The client address (`CF-Connecting-IP`); unset, the request carries none. */
  ip?: string;
}

/** Calls `/api/<service><path>` through the real Worker; `body` is JSON unless FormData. */
export async function call(
  service: string,
  path: string,
  init: CallInit = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.ip) headers["CF-Connecting-IP"] = init.ip;
  let body: BodyInit | undefined;
  if (init.body instanceof FormData) body = init.body;
  else if (init.body !== undefined) {
    body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    headers["Content-Type"] ??= "application/json";
  }
  const res = await SELF.fetch(`http://hangout.test/api/${service}${path}`, {
    method: init.method ?? (body ? "POST" : "GET"),
    headers,
    body,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/**
 * Like `call`, but on the gateway with `over` merged into the Worker's env: the same routes
 * under other configuration (a rotated JWT key, no ROOT_SECRET, ...).
 */
export async function callWith(
  over: Partial<Env>,
  service: string,
  path: string,
  init: CallInit = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  if (body !== undefined) headers["Content-Type"] ??= "application/json";
  const res = await api.request(
    `/api/${service}${path}`,
    { method: init.method ?? (body ? "POST" : "GET"), headers, body },
    { ...env, ...over } as Env,
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The user-service client most tests use. */
export const user = (path: string, init?: CallInit) => call("user-service", path, init);

/**
 * A web session for `token`'s account, as the sign-in pages make one: the `Cookie` header a
 * browser on http://hangout.test would send (workers/lib/web-sessions.ts).
 */
export async function webSessionCookie(token: string): Promise<string> {
  const res = await user("/auth/web-sessions", { method: "POST", token });
  if (res.status !== 201) throw new Error(`web session: ${res.status} ${JSON.stringify(res.body)}`);
  return `tt_session=${res.body.sessionId as string}`;
}

let n = 0;
let ipCount = 0;
/**
 * A client address of its own (198.18.0.0/15, the benchmarking range), so a test's
 * requests never share a per-IP abuse budget with another's unless it means them to.
 */
export const uniqueIp = () => {
  const i = ipCount++ + Math.floor(Math.random() * 60_000);
  return `198.${18 + ((i >> 16) & 1)}.${(i >> 8) & 255}.${i & 255}`;
};

export const uniqueEmail = (tag = "user") =>
  `${tag}.${Date.now().toString(36)}${(n++).toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;

export interface TestAccount {
  token: string;
  email: string;
  password: string;
  uuid: string;
  id: number;
}

/** Signs up a new account through the real route (its verification mail goes to the outbox). */
export async function signUp(
  over: { email?: string; password?: string; nickname?: string } = {},
): Promise<TestAccount> {
  const email = over.email ?? uniqueEmail();
  const password = over.password ?? "correct horse battery";
  // Each sign-up from its own address: factories make many accounts, far past the per-IP
  // sign-up limit (workers/lib/abuse-limits.ts), which test/abuse-limits.test.ts covers.
  const res = await user("/users/sign-up", {
    body: { email, password, nickname: over.nickname },
    ip: uniqueIp(),
  });
  if (res.status !== 201)
    throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.body.token, email, password, uuid: res.body.user.uuid, id: res.body.user.id };
}

/** An account holding `roles` (set directly in D1, as an admin would), with a fresh token. */
export async function accountWithRoles(
  roles: UserRole[],
  over: { email?: string } = {},
): Promise<TestAccount> {
  const a = await signUp(over);
  await db(env).update(users).set({ roles }).where(eq(users.uuid, a.uuid));
  const token = await signToken(env, { sub: a.uuid, type: "user", roles });
  return { ...a, token };
}

export const admin = () => accountWithRoles(["user", "admin"], { email: uniqueEmail("admin") });

/**
 * A forgery of `a`'s token: the same claims and our kid, well formed and RS256, but signed
 * with a fresh RSA key. Only a signature check refuses it.
 */
export async function forgedToken(a: Pick<TestAccount, "token">): Promise<string> {
  const { privateKey } = await generateKeyPair("RS256");
  const claims = decodeJwt(a.token);
  const { kid } = decodeProtectedHeader(a.token);
  return new SignJWT(claims).setProtectedHeader({ alg: "RS256", typ: "JWT", kid }).sign(privateKey);
}

/** A guest token (no account). */
export async function guestToken(): Promise<string> {
  return (await user("/auth/guest")).body.token;
}

/** Waits for the queue consumer to put a mail for `to` in the dev outbox; the newest first. */
export async function outbox(to: string, count = 1) {
  return vi.waitFor(
    async () => {
      const rows = await db(env)
        .select()
        .from(devOutbox)
        .where(eq(devOutbox.to, to))
        .orderBy(desc(devOutbox.id))
        .all();
      if (rows.length < count)
        throw new Error(`waiting for ${count} mail(s) to ${to}, have ${rows.length}`);
      return rows;
    },
    { timeout: 5000, interval: 50 },
  );
}

/** The six-digit code in the newest mail to `to`. */
export async function latestCode(to: string, count = 1): Promise<string> {
  const [mail] = await outbox(to, count);
  const m = mail.text.match(/\b(\d{6})\b/);
  if (!m) throw new Error(`no code in mail: ${mail.text}`);
  return m[1];
}

/**
 * An HMAC-SHA256 key derived the documented way (docs/DECISIONS.md, "Identity: keys and
 * tokens"): HKDF-SHA256 over `root` (ROOT_SECRET by default), empty salt, `info` = the
 * purpose's label, e.g. "hangout/hls/v1". Written here, not imported, so tests check the
 * scheme independently; pass another root to forge with a wrong key.
 */
export async function derivedKey(label: string, root = env.ROOT_SECRET!): Promise<CryptoKey> {
  const enc = new TextEncoder();
  const base = await crypto.subtle.importKey("raw", enc.encode(root), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: enc.encode(label) },
    base,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
}

/** HMAC-SHA256 of `message` under `key`, as bytes. */
export const hmacWith = async (key: CryptoKey, message: string) =>
  new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message)));

/** Counts rows of a D1 table, to prove a refused call wrote nothing. */
export async function countRows(table: string): Promise<number> {
  const row = await env.DB.prepare(`select count(*) as n from ${table}`).first<{ n: number }>();
  return row?.n ?? 0;
}
