/** Small crypto helpers shared by one-time tokens, codes, ids and secret compares. */

/** Bytes as lowercase hex. */
export const hex = (bytes: ArrayBuffer | Uint8Array) =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** SHA-256 as hex: what we keep of a secret token or code instead of the secret. */
export async function sha256(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

// workerd's non-standard constant-time compare. The Workers types declare it, but the DOM
// lib's SubtleCrypto (also in tsconfig, for app/) wins the merge, so it is restated here.
declare global {
  interface SubtleCrypto {
    timingSafeEqual(a: BufferSource, b: BufferSource): boolean;
  }
}

const enc = new TextEncoder();
const bytesOf = (v: string | BufferSource): BufferSource =>
  typeof v === "string" ? enc.encode(v) : v;

/**
 * Whether two secrets are equal, in time that reveals neither where they differ nor how
 * long the expected one is. Both sides are hashed to 32 bytes first, because workerd's
 * `crypto.subtle.timingSafeEqual` throws on different lengths (an early exit a caller
 * could time); comparing digests is equal exactly when the inputs are (SHA-256 has no
 * known collisions). Use it for every secret, code, hash or MAC a client sends.
 *
 * @example
 *   if (!(await secretsEqual(c.req.header("X-Service-Key") ?? "", env.SERVICE_KEY))) throw unauthorized();
 */
export async function secretsEqual(
  given: string | BufferSource,
  expected: string | BufferSource,
): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", bytesOf(given)),
    crypto.subtle.digest("SHA-256", bytesOf(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/** A URL-safe random token of `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** A six-digit code, uniformly drawn (no modulo bias worth a guess: 2^32 vs 10^6). */
export function sixDigitCode(): string {
  const [n] = crypto.getRandomValues(new Uint32Array(1));
  return String(n % 1_000_000).padStart(6, "0");
}

/** A readable voucher code: 12 characters without look-alikes, in groups of four. */
export function voucherCode(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const b = crypto.getRandomValues(new Uint8Array(12));
  const s = [...b].map((x) => alphabet[x % alphabet.length]).join("");
  return `${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8)}`;
}
