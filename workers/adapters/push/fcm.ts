import { importPKCS8 } from "jose";
import { z } from "zod";
import type { Env } from "../../env";
import {
  compactJws,
  PUSH_TIMEOUT_MS,
  transient,
  type PushOutcome,
  type PushPayload,
} from "./types";

/**
 * Firebase Cloud Messaging, HTTP v1. FCM_SERVICE_ACCOUNT is the service account's JSON
 * (project_id, client_email, private_key; token_uri optional). An RS256 JWT (RFC 7523) is
 * exchanged for an OAuth access token at FCM_TOKEN_URL (default the account's token_uri,
 * else Google's), cached until a minute before it expires, with one refresh at a time per
 * isolate; messages go to `<FCM_API_URL>/v1/projects/<project_id>/messages:send`.
 */

const serviceAccount = z.object({
  project_id: z.string().min(1),
  client_email: z.string().min(1),
  private_key: z.string().min(1),
  token_uri: z.url().optional(),
});
type ServiceAccount = z.infer<typeof serviceAccount>;

const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
const FCM_URL = "https://fcm.googleapis.com";
const SCOPE = "https://www.googleapis.com/auth/firebase.messaging";

export function fcmAccount(env: Env): ServiceAccount | null {
  if (!env.FCM_SERVICE_ACCOUNT) return null;
  try {
    const r = serviceAccount.safeParse(JSON.parse(env.FCM_SERVICE_ACCOUNT));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}
export const fcmOn = (env: Env) => fcmAccount(env) !== null;

interface CachedToken {
  token: string;
  /** Epoch ms after which it is not used (a minute before Google's expiry). */
  until: number;
}
const tokens = new Map<string, CachedToken>();
const refreshing = new Map<string, Promise<CachedToken>>();

async function fetchAccessToken(env: Env, sa: ServiceAccount): Promise<CachedToken> {
  const tokenUrl = env.FCM_TOKEN_URL ?? sa.token_uri ?? GOOGLE_TOKEN_URL;
  const key = await importPKCS8(sa.private_key, "RS256");
  const iat = Math.floor(Date.now() / 1000);
  const assertion = await compactJws(
    { alg: "RS256", typ: "JWT" },
    { iss: sa.client_email, scope: SCOPE, aud: tokenUrl, iat, exp: iat + 3600 },
    (input) => crypto.subtle.sign("RSASSA-PKCS1-v1_5", key as CryptoKey, input),
  );
  const res = await fetch(tokenUrl, {
    method: "POST",
    signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion,
    }).toString(),
  });
  if (!res.ok) throw new Error(`FCM token exchange answered ${res.status}`);
  const body = (await res.json()) as { access_token?: string; expires_in?: number };
  if (!body.access_token) throw new Error("FCM token exchange gave no access_token");
  const ttl = Math.max(60, Number(body.expires_in) || 3600);
  return { token: body.access_token, until: Date.now() + (ttl - 60) * 1000 };
}

/** The cached access token, or one fresh exchange shared by every caller waiting for it. */
export async function fcmAccessToken(env: Env, sa: ServiceAccount): Promise<string> {
  const id = sa.client_email;
  const hit = tokens.get(id);
  if (hit && hit.until > Date.now()) return hit.token;
  let flight = refreshing.get(id);
  if (!flight) {
    flight = fetchAccessToken(env, sa).finally(() => refreshing.delete(id));
    refreshing.set(id, flight);
  }
  const fresh = await flight;
  tokens.set(id, fresh);
  return fresh.token;
}

/** Drops the cached tokens (tests; and after a 401, so the next send exchanges again). */
export const forgetFcmTokens = () => tokens.clear();

/** FCM's data map takes string values only. */
const stringMap = (o: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(o).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );

/** The v1 request body (firebase.google.com/docs/reference/fcm/rest/v1/projects.messages). */
export function fcmMessage(token: string, p: PushPayload) {
  const data = stringMap({ ...p.data, uuid: p.uuid, kind: p.kind });
  return {
    message: p.silent
      ? {
          token,
          data,
          android: { priority: "NORMAL" },
          apns: {
            headers: { "apns-push-type": "background", "apns-priority": "5" },
            payload: { aps: { "content-available": 1 } },
          },
        }
      : {
          token,
          notification: { title: p.title, body: p.body },
          data,
          android: { priority: "HIGH" },
        },
  };
}

/**
 * Whether an FCM error says the token itself is dead: 404 UNREGISTERED, or 400
 * INVALID_ARGUMENT about the token (not about some other field of our request).
 */
function tokenIsDead(status: number, body: unknown): boolean {
  const err = (body as { error?: { status?: string; message?: string; details?: unknown[] } })
    ?.error;
  const codes = (err?.details ?? []).map((d) => (d as { errorCode?: string })?.errorCode);
  if (status === 404 || codes.includes("UNREGISTERED")) return true;
  if (status !== 400 || (err?.status !== "INVALID_ARGUMENT" && !codes.includes("INVALID_ARGUMENT")))
    return false;
  const about = JSON.stringify(err ?? {});
  return /registration token|message\.token|"token"/i.test(about);
}

export async function sendFcm(env: Env, token: string, payload: PushPayload): Promise<PushOutcome> {
  const sa = fcmAccount(env);
  if (!sa) return "failed";
  try {
    const access = await fcmAccessToken(env, sa);
    const base = (env.FCM_API_URL ?? FCM_URL).replace(/\/+$/, "");
    const res = await fetch(
      `${base}/v1/projects/${encodeURIComponent(sa.project_id)}/messages:send`,
      {
        method: "POST",
        signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
        headers: { Authorization: `Bearer ${access}`, "Content-Type": "application/json" },
        body: JSON.stringify(fcmMessage(token, payload)),
      },
    );
    if (res.ok) return "sent";
    const body = await res.json().catch(() => null);
    if (tokenIsDead(res.status, body)) return "gone";
    if (res.status === 401) {
      tokens.delete(sa.client_email);
      return "failed";
    }
    if (transient(res.status)) return "failed";
    console.error(`FCM refused a message: ${res.status} ${JSON.stringify(body)}`);
    return "refused";
  } catch (err) {
    console.error("FCM send failed", err);
    return "failed";
  }
}
