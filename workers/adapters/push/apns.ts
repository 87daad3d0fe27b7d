import { importPKCS8 } from "jose";
import type { Env } from "../../env";
import {
  compactJws,
  PUSH_TIMEOUT_MS,
  transient,
  type PushOutcome,
  type PushPayload,
} from "./types";

/**
 * Apple Push Notification service, token-based: an ES256 provider JWT (`kid` = APNS_KEY_ID,
 * `iss` = APNS_TEAM_ID, `iat`) made with APNS_KEY (the .p8 PKCS#8 PEM). Apple refuses a
 * token older than an hour and one refreshed more often than every 20 minutes, so one is
 * reused for 50 minutes. Requests: `POST https://<APNS_HOST>/3/device/<token>` with
 * apns-topic (APNS_TOPIC, the app's bundle id), apns-push-type and apns-priority.
 * APNS_HOST defaults to production (api.push.apple.com; api.sandbox.push.apple.com for
 * development builds). Note: APNs speaks HTTP/2 only; Workers' outbound fetch negotiates it.
 */

export const apnsOn = (env: Env) =>
  !!(env.APNS_KEY && env.APNS_KEY_ID && env.APNS_TEAM_ID && env.APNS_TOPIC);

const REUSE_MS = 50 * 60_000;
const jwts = new Map<string, { jwt: string; madeAt: number }>();

export async function apnsJwt(env: Env, now = Date.now()): Promise<string> {
  const id = `${env.APNS_TEAM_ID}|${env.APNS_KEY_ID}`;
  const hit = jwts.get(id);
  if (hit && now - hit.madeAt < REUSE_MS) return hit.jwt;
  const key = (await importPKCS8(env.APNS_KEY!, "ES256")) as CryptoKey;
  const jwt = await compactJws(
    { alg: "ES256", kid: env.APNS_KEY_ID },
    { iss: env.APNS_TEAM_ID, iat: Math.floor(now / 1000) },
    (input) => crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, input),
  );
  jwts.set(id, { jwt, madeAt: now });
  return jwt;
}

export const forgetApnsJwts = () => jwts.clear();

/** The JSON body: `aps` plus our fields beside it (Apple's "custom data" keys). */
export function apnsBody(p: PushPayload) {
  const custom = { ...p.data, uuid: p.uuid, kind: p.kind };
  return p.silent
    ? { aps: { "content-available": 1 }, ...custom }
    : { aps: { alert: { title: p.title, body: p.body }, sound: "default" }, ...custom };
}

/** APNs reasons that mean the token is dead (410 Unregistered, 400 BadDeviceToken). */
const DEAD = new Set(["Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic"]);

export async function sendApns(
  env: Env,
  token: string,
  payload: PushPayload,
): Promise<PushOutcome> {
  if (!apnsOn(env)) return "failed";
  try {
    const host = env.APNS_HOST ?? "api.push.apple.com";
    const res = await fetch(`https://${host}/3/device/${encodeURIComponent(token)}`, {
      method: "POST",
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
      headers: {
        authorization: `bearer ${await apnsJwt(env)}`,
        "apns-topic": env.APNS_TOPIC!,
        "apns-push-type": payload.silent ? "background" : "alert",
        // Apple requires 5 for background pushes; 10 delivers an alert at once.
        "apns-priority": payload.silent ? "5" : "10",
        "apns-expiration": String(Math.floor(Date.now() / 1000) + 24 * 3600),
        "content-type": "application/json",
      },
      body: JSON.stringify(apnsBody(payload)),
    });
    if (res.ok) return "sent";
    const reason = ((await res.json().catch(() => null)) as { reason?: string } | null)?.reason;
    if (res.status === 410 || (res.status === 400 && reason && DEAD.has(reason))) return "gone";
    if (res.status === 403 && reason === "ExpiredProviderToken") {
      jwts.clear();
      return "failed";
    }
    if (transient(res.status)) return "failed";
    console.error(`APNs refused a message: ${res.status} ${reason ?? ""}`);
    return "refused";
  } catch (err) {
    console.error("APNs send failed", err);
    return "failed";
  }
}
