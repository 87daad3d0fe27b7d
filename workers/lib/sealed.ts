import type { Env } from "../env";
import { hex } from "./crypto";
import { ApiError } from "./errors";
import { LIB_MSG } from "./messages";
import { KEY_PURPOSES } from "./purpose-keys";

/**
 * Secrets at rest (docs/DECISIONS.md, "Linked accounts"): AES-256-GCM with a key per purpose
 * derived (HKDF-SHA256) from ROOT_SECRET, as lib/purpose-keys.ts derives its MAC keys. Each
 * sealed value travels with a key id (8 bytes derived from the same root and label, so it
 * names the key without revealing it), and a row keeps that id beside its ciphertext.
 *
 * Rotation: set ROOT_SECRET_PREVIOUS to the old root and ROOT_SECRET to the new one. New
 * writes seal under the new key; values under the old one still open by their id and are
 * re-sealed when next written. A value whose key id names neither root opens as null: its
 * link has to be made again, never a 500.
 *
 * `aad` binds a ciphertext to its place (row and column): a value copied into another
 * person's row does not open there.
 */
export type SealPurpose = "providerTokens";

interface DerivedKey {
  id: string;
  key: CryptoKey;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const cache = new Map<string, Promise<DerivedKey>>();

function derive(root: string, purpose: SealPurpose): Promise<DerivedKey> {
  const label = KEY_PURPOSES[purpose];
  const cacheKey = `${label}|${root}`;
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  const made = (async () => {
    const base = await crypto.subtle.importKey("raw", enc.encode(root), "HKDF", false, [
      "deriveKey",
      "deriveBits",
    ]);
    const hkdf = (info: string) => ({
      name: "HKDF",
      hash: "SHA-256",
      salt: new Uint8Array(0),
      info: enc.encode(info),
    });
    const key = await crypto.subtle.deriveKey(
      hkdf(label),
      base,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    );
    const id = hex(await crypto.subtle.deriveBits(hkdf(`${label}/key-id`), base, 64));
    return { id, key };
  })();
  cache.set(cacheKey, made);
  return made;
}

/** The key new values are sealed with; 503 without ROOT_SECRET (nothing is stored in the clear). */
function currentKey(env: Pick<Env, "ROOT_SECRET">, purpose: SealPurpose) {
  if (!env.ROOT_SECRET) throw new ApiError(503, LIB_MSG.rootSecretMissing);
  return derive(env.ROOT_SECRET, purpose);
}

/** The current key's id: a row sealed under another one is re-sealed when next written. */
export async function currentKeyId(env: Pick<Env, "ROOT_SECRET">, purpose: SealPurpose) {
  return (await currentKey(env, purpose)).id;
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (s: string) => Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));

/** Seals `plain` under the current key: `{ keyId, value: base64(iv | ciphertext | tag) }`. */
export async function seal(
  env: Pick<Env, "ROOT_SECRET">,
  purpose: SealPurpose,
  plain: string,
  aad: string,
): Promise<{ keyId: string; value: string }> {
  const { id, key } = await currentKey(env, purpose);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: enc.encode(aad) },
      key,
      enc.encode(plain),
    ),
  );
  const out = new Uint8Array(iv.length + ct.length);
  out.set(iv);
  out.set(ct, iv.length);
  return { keyId: id, value: b64(out) };
}

/**
 * Opens a value sealed by `seal` with the key `keyId` names (current or previous root), or
 * null when no configured key has that id or the value does not authenticate for `aad`.
 */
export async function open(
  env: Pick<Env, "ROOT_SECRET" | "ROOT_SECRET_PREVIOUS">,
  purpose: SealPurpose,
  keyId: string,
  value: string,
  aad: string,
): Promise<string | null> {
  const roots = [env.ROOT_SECRET, env.ROOT_SECRET_PREVIOUS].filter((r): r is string => !!r);
  for (const root of roots) {
    const { id, key } = await derive(root, purpose);
    if (id !== keyId) continue;
    try {
      const bytes = unb64(value);
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: enc.encode(aad) },
        key,
        bytes.slice(12),
      );
      return dec.decode(plain);
    } catch {
      return null;
    }
  }
  return null;
}
