import { compactVerify, decodeProtectedHeader } from "jose";
import { parseCertificate, pemToDer, publicKey, verifyChain } from "./x509";

/**
 * One App Store JWS, checked as Apple's own `SignedDataVerifier` (app-store-server-library)
 * checks it before reading a byte of the payload. Apple posts `{ signedPayload }`, a JWS
 * (ES256) whose `x5c` header carries exactly three certificates: leaf, intermediate, root.
 * - The leaf and intermediate must verify up to APPLE_ROOT_CA_PEM (Apple Root CA - G3 in
 *   production; tests make their own chain), the intermediate signed by the root itself
 *   (x509.ts). The third entry is not trusted: the configured root is the anchor.
 * - The leaf must carry Apple's App Store receipt-signing marker and the intermediate
 *   Apple's WWDR intermediate marker: any certificate Apple's root vouches for, such as a
 *   developer's, would otherwise sign "App Store" data.
 * - The leaf's key must verify the JWS.
 * Which app and environment the data is for is checked by apple-signed-data.ts.
 */

/** On the leaf: "Apple App Store receipt signing" (what SignedDataVerifier requires). */
export const APPLE_LEAF_OID = "1.2.840.113635.100.6.11.1";
/** On the intermediate: Apple Worldwide Developer Relations intermediate. */
export const APPLE_INTERMEDIATE_OID = "1.2.840.113635.100.6.2.1";

const CHAIN_LENGTH = 3;
const MAX_CERT_B64 = 12_000;

/** The verified payload of an Apple JWS, or null if the signature, chain or markers do not verify. */
export async function verifyAppleJws(
  rootPem: string,
  jws: string,
  now = Date.now(),
): Promise<Record<string, unknown> | null> {
  try {
    const header = decodeProtectedHeader(jws);
    if (header.alg !== "ES256" || !Array.isArray(header.x5c) || header.x5c.length !== CHAIN_LENGTH)
      return null;
    if (header.x5c.some((c) => typeof c !== "string" || c.length > MAX_CERT_B64)) return null;
    // x5c entries are standard base64 DER (RFC 7515 4.1.6), not base64url.
    const [leafDer, intermediateDer] = header.x5c.map((b64) =>
      Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0)),
    );
    const leaf = await verifyChain([leafDer, intermediateDer], pemToDer(rootPem), now);
    if (!leaf || leaf.curve.name !== "P-256") return null;
    if (!leaf.extensions.includes(APPLE_LEAF_OID)) return null;
    if (!parseCertificate(intermediateDer).extensions.includes(APPLE_INTERMEDIATE_OID)) return null;
    const { payload } = await compactVerify(jws, await publicKey(leaf), { algorithms: ["ES256"] });
    const parsed: unknown = JSON.parse(new TextDecoder().decode(payload));
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
