import { importPKCS8 } from "jose";
import type { Env } from "../env";
import { compactJws } from "./push/types";

/**
 * The Apple Music developer token (issue 16): an ES256 JWT made here from the team's
 * MusicKit key (APPLE_MUSIC_KEY, the .p8 PKCS#8 PEM), `kid` = APPLE_MUSIC_KEY_ID,
 * `iss` = APPLE_MUSIC_TEAM_ID, `iat` and `exp`. Apple accepts up to six months; ours last
 * 12 hours and are reused for 11, so a leaked one is short-lived and rotation is quick.
 * Without the key, a ready-made APPLE_MUSIC_TOKEN is used (the older setting); without
 * either, Apple Music is not configured.
 */
const LIFETIME_S = 12 * 3600;
const REUSE_MS = 11 * 3600_000;
const made = new Map<string, { jwt: string; madeAt: number }>();

export const appleKeyConfigured = (env: Env) =>
  !!(env.APPLE_MUSIC_KEY && env.APPLE_MUSIC_KEY_ID && env.APPLE_MUSIC_TEAM_ID);

export async function appleDeveloperToken(env: Env, now = Date.now()): Promise<string | null> {
  if (!appleKeyConfigured(env)) return env.APPLE_MUSIC_TOKEN || null;
  const id = `${env.APPLE_MUSIC_TEAM_ID}|${env.APPLE_MUSIC_KEY_ID}`;
  const hit = made.get(id);
  if (hit && now - hit.madeAt < REUSE_MS) return hit.jwt;
  const key = (await importPKCS8(env.APPLE_MUSIC_KEY!, "ES256")) as CryptoKey;
  const iat = Math.floor(now / 1000);
  const jwt = await compactJws(
    { alg: "ES256", kid: env.APPLE_MUSIC_KEY_ID },
    { iss: env.APPLE_MUSIC_TEAM_ID, iat, exp: iat + LIFETIME_S },
    (input) => crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, input),
  );
  made.set(id, { jwt, madeAt: now });
  return jwt;
}
