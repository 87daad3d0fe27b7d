import { compactVerify, decodeProtectedHeader } from "jose";
import type { Env } from "../env";
import { pemToDer, publicKey, verifyChain } from "./x509";

/**
 * App Store Server Notifications v2. Apple posts `{ signedPayload }`, a JWS (ES256) whose
 * `x5c` header carries the signing certificate chain (leaf, intermediate, root). Trust is
 * APPLE_ROOT_CA_PEM (Apple Root CA - G3 in production; tests make their own chain): the
 * chain must verify up to it (x509.ts) and the leaf's key must verify the JWS. The
 * transaction and renewal infos inside are JWS too and are checked the same way.
 * Unset APPLE_ROOT_CA_PEM: the webhook is off (503), never "trust anything".
 */

export const appleEnabled = (env: Env) => !!env.APPLE_ROOT_CA_PEM;

const MAX_CHAIN = 4;
const MAX_CERT_B64 = 12_000;

/** The verified payload of an Apple JWS, or null if the signature or chain does not verify. */
export async function verifyAppleJws(
  rootPem: string,
  jws: string,
  now = Date.now(),
): Promise<Record<string, unknown> | null> {
  try {
    const header = decodeProtectedHeader(jws);
    if (
      header.alg !== "ES256" ||
      !Array.isArray(header.x5c) ||
      header.x5c.length === 0 ||
      header.x5c.length > MAX_CHAIN
    )
      return null;
    if (header.x5c.some((c) => typeof c !== "string" || c.length > MAX_CERT_B64)) return null;
    // x5c entries are standard base64 DER (RFC 7515 4.1.6), not base64url.
    const chain = header.x5c.map((b64) => Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0)));
    const leaf = await verifyChain(chain, pemToDer(rootPem), now);
    if (!leaf || leaf.curve.name !== "P-256") return null;
    const { payload } = await compactVerify(jws, await publicKey(leaf), { algorithms: ["ES256"] });
    const parsed: unknown = JSON.parse(new TextDecoder().decode(payload));
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
