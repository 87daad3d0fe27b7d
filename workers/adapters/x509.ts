/**
 * Just enough X.509 to verify a certificate chain with WebCrypto (workerd has no X509
 * class): a DER walk that finds each certificate's TBSCertificate bytes, its signature and
 * algorithm, its validity dates, its public key (SPKI), whether it may sign others
 * (basicConstraints cA) and which extensions it carries (by OID). ECDSA on P-256 and P-384 with SHA-256 or SHA-384 only: the App
 * Store's chain uses nothing else, and anything else is refused rather than guessed at.
 */

interface Tlv {
  tag: number;
  /** Offset of the tag byte (the element's bytes are `start..end`). */
  start: number;
  /** Offset of the content. */
  body: number;
  end: number;
}

export class DerError extends Error {}

function tlv(buf: Uint8Array, pos: number, limit = buf.length): Tlv {
  if (pos + 2 > limit) throw new DerError("truncated DER");
  const tag = buf[pos];
  let p = pos + 1;
  let len = buf[p++];
  if (len & 0x80) {
    const n = len & 0x7f;
    // Certificates are far below 4 GB; indefinite lengths (n = 0) are not DER.
    if (n === 0 || n > 4) throw new DerError("bad DER length");
    len = 0;
    for (let i = 0; i < n; i++) {
      if (p >= limit) throw new DerError("truncated DER");
      len = len * 256 + buf[p++];
    }
  }
  const end = p + len;
  if (end > limit) throw new DerError("DER element overruns its parent");
  return { tag, start: pos, body: p, end };
}

function children(buf: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let p = parent.body; p < parent.end;) {
    const t = tlv(buf, p, parent.end);
    out.push(t);
    p = t.end;
  }
  return out;
}

function need(t: Tlv | undefined, tag: number, what: string): Tlv {
  if (!t || t.tag !== tag) throw new DerError(`expected ${what}`);
  return t;
}

function oid(buf: Uint8Array, t: Tlv): string {
  need(t, 0x06, "an OID");
  const parts: number[] = [];
  let v = 0;
  for (let p = t.body; p < t.end; p++) {
    v = v * 128 + (buf[p] & 0x7f);
    if (!(buf[p] & 0x80)) {
      if (parts.length === 0)
        parts.push(Math.min(2, Math.floor(v / 40)), v - Math.min(2, Math.floor(v / 40)) * 40);
      else parts.push(v);
      v = 0;
    }
  }
  return parts.join(".");
}

function time(buf: Uint8Array, t: Tlv): number {
  const s = new TextDecoder().decode(buf.subarray(t.body, t.end));
  const m =
    t.tag === 0x17
      ? s.match(/^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/)
      : t.tag === 0x18
        ? s.match(/^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/)
        : null;
  if (!m) throw new DerError("bad certificate time");
  let year = Number(m[1]);
  // RFC 5280: a two-digit UTCTime year 50-99 is 19xx, 00-49 is 20xx.
  if (t.tag === 0x17) year += year >= 50 ? 1900 : 2000;
  return Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

const SIG_ALGS: Record<string, string> = {
  "1.2.840.10045.4.3.2": "SHA-256",
  "1.2.840.10045.4.3.3": "SHA-384",
};
const CURVES: Record<string, { name: "P-256" | "P-384"; size: number }> = {
  "1.2.840.10045.3.1.7": { name: "P-256", size: 32 },
  "1.3.132.0.34": { name: "P-384", size: 48 },
};
const EC_PUBLIC_KEY = "1.2.840.10045.2.1";
const BASIC_CONSTRAINTS = "2.5.29.19";

export interface Certificate {
  der: Uint8Array;
  tbs: Uint8Array;
  /** WebCrypto hash of the signature over `tbs`. */
  hash: string;
  /** DER ECDSA-Sig-Value (SEQUENCE of r, s). */
  signature: Uint8Array;
  notBefore: number;
  notAfter: number;
  spki: Uint8Array;
  curve: { name: "P-256" | "P-384"; size: number };
  isCA: boolean;
  /** The OID of every extension present (Apple marks its certificates with private ones). */
  extensions: string[];
}

/** Parses one DER certificate; throws DerError on anything malformed or unsupported. */
export function parseCertificate(der: Uint8Array): Certificate {
  const top = tlv(der, 0);
  if (top.tag !== 0x30 || top.end !== der.length) throw new DerError("not a certificate");
  const [tbsT, algT, sigT] = children(der, top);
  need(tbsT, 0x30, "TBSCertificate");
  const hash = SIG_ALGS[oid(der, children(der, need(algT, 0x30, "signature algorithm"))[0])];
  if (!hash) throw new DerError("unsupported signature algorithm");
  need(sigT, 0x03, "signature bit string");
  if (der[sigT.body] !== 0) throw new DerError("signature has unused bits");

  const fieldsOf = children(der, tbsT);
  let i = fieldsOf[0]?.tag === 0xa0 ? 1 : 0; // explicit version
  i += 3; // serialNumber, signature, issuer
  const validity = children(der, need(fieldsOf[i++], 0x30, "validity"));
  if (validity.length !== 2) throw new DerError("bad validity");
  i++; // subject
  const spkiT = need(fieldsOf[i++], 0x30, "subjectPublicKeyInfo");
  const keyAlg = children(der, need(children(der, spkiT)[0], 0x30, "key algorithm"));
  if (oid(der, keyAlg[0]) !== EC_PUBLIC_KEY || !keyAlg[1])
    throw new DerError("unsupported key type");
  const curve = CURVES[oid(der, keyAlg[1])];
  if (!curve) throw new DerError("unsupported curve");

  let isCA = false;
  const extensions: string[] = [];
  const extsT = fieldsOf.slice(i).find((f) => f.tag === 0xa3);
  if (extsT) {
    for (const ext of children(der, need(children(der, extsT)[0], 0x30, "extensions"))) {
      const parts = children(der, ext);
      const id = oid(der, parts[0]);
      extensions.push(id);
      if (id !== BASIC_CONSTRAINTS) continue;
      const value = need(parts[parts.length - 1], 0x04, "extension value");
      const seq = need(tlv(der, value.body, value.end), 0x30, "basicConstraints");
      const first = children(der, seq)[0];
      isCA = first?.tag === 0x01 && der[first.body] !== 0;
    }
  }

  return {
    der,
    tbs: der.subarray(tbsT.start, tbsT.end),
    hash,
    signature: der.subarray(sigT.body + 1, sigT.end),
    notBefore: time(der, validity[0]),
    notAfter: time(der, validity[1]),
    spki: der.subarray(spkiT.start, spkiT.end),
    curve,
    isCA,
    extensions,
  };
}

/** DER ECDSA-Sig-Value to WebCrypto's raw r || s, each left-padded to the curve size. */
export function ecdsaRaw(sig: Uint8Array, size: number): Uint8Array {
  const seq = tlv(sig, 0);
  if (seq.tag !== 0x30 || seq.end !== sig.length) throw new DerError("bad ECDSA signature");
  const ints = children(sig, seq);
  if (ints.length !== 2) throw new DerError("bad ECDSA signature");
  const out = new Uint8Array(size * 2);
  ints.forEach((t, k) => {
    need(t, 0x02, "an INTEGER");
    let v = sig.subarray(t.body, t.end);
    while (v.length > 1 && v[0] === 0) v = v.subarray(1);
    if (v.length > size) throw new DerError("ECDSA integer too long");
    out.set(v, size * (k + 1) - v.length);
  });
  return out;
}

export function publicKey(cert: Certificate): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "spki",
    cert.spki as Uint8Array<ArrayBuffer>,
    { name: "ECDSA", namedCurve: cert.curve.name },
    false,
    ["verify"],
  );
}

/** Whether `cert` was signed by `issuer`'s key. */
export async function signedBy(cert: Certificate, issuer: Certificate): Promise<boolean> {
  try {
    const raw = ecdsaRaw(cert.signature, issuer.curve.size);
    return await crypto.subtle.verify(
      { name: "ECDSA", hash: cert.hash },
      await publicKey(issuer),
      raw as Uint8Array<ArrayBuffer>,
      cert.tbs as Uint8Array<ArrayBuffer>,
    );
  } catch {
    return false;
  }
}

export function pemToDer(pem: string): Uint8Array {
  const b64 = pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");
  return Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * Verifies `chain` (leaf first, as in a JWS `x5c`) up to the trusted `root`:
 * every certificate, the root included, is inside its validity dates at `now`; each one
 * is signed by the next (the last by the root); every signer is a CA. A chain that ends
 * with the root itself is accepted only if that copy is byte-for-byte the trusted one.
 * Returns the leaf, or null when anything fails (malformed input included).
 */
export async function verifyChain(
  chain: Uint8Array[],
  root: Uint8Array,
  now = Date.now(),
): Promise<Certificate | null> {
  try {
    const trusted = parseCertificate(root);
    const certs = chain.map(parseCertificate);
    if (certs.length && sameBytes(certs[certs.length - 1].der, trusted.der)) certs.pop();
    if (!certs.length) return null;
    for (const c of [...certs, trusted]) if (now < c.notBefore || now > c.notAfter) return null;
    for (let i = 0; i < certs.length; i++) {
      const issuer = i + 1 < certs.length ? certs[i + 1] : trusted;
      if (!issuer.isCA || !(await signedBy(certs[i], issuer))) return null;
    }
    return certs[0];
  } catch {
    return null;
  }
}
