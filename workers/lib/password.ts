import { secretsEqual } from "./crypto";

/**
 * Password hashing: PBKDF2-SHA256 at 100,000 iterations, the most the Workers runtime
 * allows (workerd refuses higher counts). Stored as
 * `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>` so the count can rise later
 * without breaking old hashes. A password is never stored or logged in plain text.
 */
export const PBKDF2_ITERATIONS = 100_000;
const enc = new TextEncoder();

const b64 = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)));
const unb64 = (s: string): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));

async function derive(
  password: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
): Promise<ArrayBuffer> {
  const key = await crypto.subtle.importKey("raw", enc.encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  return crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${b64(salt)}$${b64(hash)}`;
}

/** Constant-time check of `password` against a stored hash; false for any malformed hash. */
export async function verifyPassword(
  password: string,
  stored: string | null | undefined,
): Promise<boolean> {
  const parts = stored?.split("$");
  if (!parts || parts.length !== 4 || parts[0] !== "pbkdf2-sha256") return false;
  const iterations = Number(parts[1]);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > PBKDF2_ITERATIONS)
    return false;
  const actual = await derive(password, unb64(parts[2]), iterations);
  return secretsEqual(actual, unb64(parts[3]));
}
