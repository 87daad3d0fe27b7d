import type { Env } from "../env";
import { hex, secretsEqual } from "../lib/crypto";
import { purposeKey } from "../lib/purpose-keys";

/**
 * The transcoder adapter (issue 18; docs/DECISIONS.md, "Uploaded songs"). WAV, FLAC, Ogg and
 * M4A play from an MP3 rendition made outside the Worker:
 *
 * 1. The queue consumer (workers/queues/transcodes.ts) POSTs a job to `${TRANSCODER_URL}/jobs`,
 *    signed like the callback (below): `{ songId, contentType, sourceUrl, renditionUrl,
 *    callbackUrl }`.
 * 2. The transcoder GETs the original from `sourceUrl` and PUTs the MP3 to `renditionUrl`:
 *    both are this Worker's own routes, signed with the transcoder-URL purpose key and
 *    expiring (R2 has no signed URLs through the binding, and this way the transcoder never
 *    holds R2 credentials).
 * 3. It POSTs the report to `callbackUrl` (`POST /upload/transcoder_sns`): COMPLETE with the
 *    rendition's key, or ERROR with a detail.
 *
 * Both directions carry `X-Transcoder-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(
 * TRANSCODER_SECRET, "<t>.<body>")>`, checked within SIGNATURE_TOLERANCE_S: a forged body
 * fails, and an old one cannot be replayed later (the callback is idempotent besides).
 *
 * In production TRANSCODER_URL is the outside service; locally `npm run dev` starts
 * scripts/transcoder.mjs (Debian's ffmpeg) and points TRANSCODER_URL at it.
 */

export const SIGNATURE_HEADER = "X-Transcoder-Signature";
/** How old a signed request may be (and how far in the future, for clock skew). */
export const SIGNATURE_TOLERANCE_S = 300;
/** Signed source and rendition URLs live this long: a transcode of 50 MB fits easily. */
export const TRANSCODER_URL_TTL_S = 2 * 3600;
/** The local transcoder's health check may take this long before it counts as not running. */
const HEALTH_TIMEOUT_MS = 1500;

export interface TranscoderConfig {
  url: string;
  secret: string;
}

export interface TranscodeJob {
  songId: string;
  contentType: string;
  sourceUrl: string;
  renditionUrl: string;
  callbackUrl: string;
}

/** The transcoder's settings, or null when either is missing (then non-MP3 uploads are 415). */
export function transcoderConfig(env: Env): TranscoderConfig | null {
  const url = env.TRANSCODER_URL?.trim().replace(/\/+$/, "");
  const secret = env.TRANSCODER_SECRET;
  return url && secret ? { url, secret } : null;
}

/** A loopback URL is the local dev transcoder, which may not be running. */
const isLoopback = (url: string) => {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "[::1]" || host.startsWith("127.");
};

/**
 * Whether an upload that needs a transcode can be accepted: a transcoder is configured and,
 * when it is the local one, answers its health check with ffmpeg present. A production
 * service is trusted to be there (jobs retry through the queue).
 */
export async function transcoderAvailable(env: Env): Promise<boolean> {
  const cfg = transcoderConfig(env);
  if (!cfg) return false;
  if (!isLoopback(cfg.url)) return true;
  try {
    const res = await fetch(`${cfg.url}/health`, {
      signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
    });
    if (!res.ok) return false;
    const body = (await res.json()) as { ffmpeg?: unknown };
    return body.ffmpeg === true;
  } catch {
    return false;
  }
}

const enc = new TextEncoder();

async function mac(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(await crypto.subtle.sign("HMAC", key, enc.encode(message)));
}

/** The signature header for `body`, made at `nowS` (unix seconds). */
export async function signTranscoderBody(
  secret: string,
  body: string,
  nowS = Math.floor(Date.now() / 1000),
): Promise<string> {
  return `t=${nowS},v1=${await mac(secret, `${nowS}.${body}`)}`;
}

/** Whether `header` signs `body` under `secret`, recently enough. */
export async function verifyTranscoderBody(
  secret: string | undefined,
  header: string | undefined,
  body: string,
  nowS = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  if (!secret || !header) return false;
  const parts = Object.fromEntries(
    header.split(",").map((p) => {
      const i = p.indexOf("=");
      return [p.slice(0, i).trim(), p.slice(i + 1).trim()];
    }),
  );
  const t = Number(parts.t);
  if (!/^\d{1,12}$/.test(parts.t ?? "") || Math.abs(nowS - t) > SIGNATURE_TOLERANCE_S) return false;
  if (!/^[0-9a-f]{64}$/.test(parts.v1 ?? "")) return false;
  return secretsEqual(parts.v1, await mac(secret, `${t}.${body}`));
}

/** What a signed transcoder URL is for: reading the original or writing the rendition. */
export type TranscoderUrlPurpose = "source" | "rendition";

/** The HMAC over purpose, song and expiry, with the transcoder-URL purpose key. */
export async function transcoderUrlSig(
  env: Env,
  purpose: TranscoderUrlPurpose,
  songId: string,
  exp: number,
): Promise<string> {
  const key = await purposeKey(env, "transcoderUrl");
  return hex(await crypto.subtle.sign("HMAC", key, enc.encode(`${purpose}|${songId}|${exp}`)));
}

/** `${origin}${path}?songId&exp&sig` for the transcoder to fetch or PUT. */
export async function signedTranscoderUrl(
  env: Env,
  origin: string,
  purpose: TranscoderUrlPurpose,
  songId: string,
  nowS = Math.floor(Date.now() / 1000),
): Promise<string> {
  const exp = nowS + TRANSCODER_URL_TTL_S;
  const sig = await transcoderUrlSig(env, purpose, songId, exp);
  const q = new URLSearchParams({ songId, exp: String(exp), sig });
  return `${origin}/api/upload-service/upload/transcoder/${purpose}?${q}`;
}

/** Whether a transcoder URL's signature holds and it has not expired. */
export async function verifyTranscoderUrl(
  env: Env,
  purpose: TranscoderUrlPurpose,
  songId: string,
  exp: number,
  sig: string,
  nowS = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  if (exp < nowS) return false;
  return secretsEqual(sig, await transcoderUrlSig(env, purpose, songId, exp));
}

/**
 * Hands a job to the transcoder. Throws on a network error or a non-2xx answer, so the
 * queue retries it; the transcoder may receive a job twice, and its callbacks then count once.
 */
export async function submitTranscode(env: Env, job: TranscodeJob): Promise<void> {
  const cfg = transcoderConfig(env);
  if (!cfg) throw new Error("no transcoder is configured (TRANSCODER_URL, TRANSCODER_SECRET)");
  const body = JSON.stringify(job);
  const res = await fetch(`${cfg.url}/jobs`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      [SIGNATURE_HEADER]: await signTranscoderBody(cfg.secret, body),
    },
    body,
    signal: AbortSignal.timeout(15_000),
  });
  if (!res.ok) throw new Error(`the transcoder answered ${res.status} to a job`);
}
