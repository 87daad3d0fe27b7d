import type { Env } from "../env";
import { ApiError } from "./errors";
import { LIB_MSG } from "./messages";

/**
 * One key per purpose, derived from one root secret (docs/DECISIONS.md, "Identity: keys
 * and tokens"). The keys only this Worker uses (room join tickets, HLS URL signatures and
 * song keys, the room-password index) are HKDF-SHA256 outputs of `ROOT_SECRET`, each with
 * its own `info` label. HKDF makes them independent: knowing or misusing one (a ticket
 * MAC, a signed HLS URL) says nothing about another, and a MAC made for one purpose never
 * verifies as another, which is what sharing SERVICE_KEY used to allow.
 *
 * Why derived rather than one env var each: all of them live in the same place (this
 * Worker's secrets), so they would leak together anyway; one root is one secret to set and
 * rotate. SERVICE_KEY stays separate because other services hold it, and the JWT keys
 * because they are a key pair with their own rotation (jwt.ts).
 *
 * A label ends in a version: changing a purpose's scheme means a new label, never a
 * reused one.
 */
export const KEY_PURPOSES = {
  /** `<room>.<user>.<exp>.<mac>` join tickets (lib/room-ticket.ts). */
  roomTicket: "hangout/room-ticket/v1",
  /** HLS key and segment URL signatures, and the per-song AES key (songs/hls.ts). */
  hls: "hangout/hls/v1",
  /** The transcoder's signed source (GET) and rendition (PUT) URLs (adapters/transcoder.ts). */
  transcoderUrl: "hangout/transcoder-url/v1",
  /** The 16-bit keyed index of room passwords (room-service/room-repo.ts). */
  roomPasswordBucket: "hangout/room-password-bucket/v1",
  /** Contact-book hashes of phones and e-mails (lib/contact-hash.ts). */
  contactBook: "hangout/contact-book/v1",
  /**
   * AES-256-GCM sealing of linked providers' tokens (lib/sealed.ts). Not an HMAC key:
   * sealed.ts derives it with its own key id; purposeKey() never hands it out.
   */
  providerTokens: "hangout/provider-tokens/v1",
} as const;
export type KeyPurpose = keyof typeof KEY_PURPOSES;

const enc = new TextEncoder();

// Deriving costs two HMACs; keep each purpose's key for the isolate's life, per root.
const cache = new Map<KeyPurpose, { root: string; key: Promise<CryptoKey> }>();

function derive(root: string, purpose: KeyPurpose): Promise<CryptoKey> {
  return crypto.subtle
    .importKey("raw", enc.encode(root), "HKDF", false, ["deriveKey"])
    .then((base) =>
      crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          // The root is a random secret, not a password: RFC 5869 allows an empty salt.
          salt: new Uint8Array(0),
          info: enc.encode(KEY_PURPOSES[purpose]),
        },
        base,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign", "verify"],
      ),
    );
}

/** Whether the root secret is set (without it every purpose key is unavailable). */
export const hasRootSecret = (env: Pick<Env, "ROOT_SECRET">) => !!env.ROOT_SECRET;

/**
 * The HMAC-SHA256 key for `purpose`, or a 503 when ROOT_SECRET is not set: refusing is
 * the only safe answer (a fallback to another secret is exactly the sharing this removes).
 */
export function purposeKey(env: Pick<Env, "ROOT_SECRET">, purpose: KeyPurpose): Promise<CryptoKey> {
  const root = env.ROOT_SECRET;
  if (!root) throw new ApiError(503, LIB_MSG.rootSecretMissing);
  const hit = cache.get(purpose);
  if (hit?.root === root) return hit.key;
  const key = derive(root, purpose);
  cache.set(purpose, { root, key });
  return key;
}
