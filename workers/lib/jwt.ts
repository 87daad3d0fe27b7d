import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  exportJWK,
  importPKCS8,
  importSPKI,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWTPayload,
} from "jose";
import type { UserRole, TokenType } from "../../shared/roles";
import { TOKEN_TYPES } from "../../shared/roles";
import type { Env } from "../env";

/** What a token says about its bearer. */
export interface TokenClaims {
  /** The user's (or guest's) uuid. */
  sub: string;
  type: TokenType;
  roles: UserRole[];
  /** Session version at signing: a password change bumps it and old tokens stop working. */
  sv?: number;
  /**
   * For a token the Worker mints from a web session cookie (lib/web-sessions.ts): the
   * session's id hash, so the API can end that session (logout). Such tokens live minutes
   * and never leave the server.
   */
  sid?: string;
  /**
   * "chat": a token from GET /comet-chat/user-token, good only for the direct-message calls
   * (lib/auth.ts refuses it elsewhere), so handing one to a chat client hands over no account.
   */
  scope?: "chat";
}

export const ISSUER = "hangout/user-service";
const ALG = "RS256";

/** How long each kind of token lives. */
export const TOKEN_TTL_SECONDS: Record<TokenType, number> = {
  user: 30 * 24 * 3600,
  bot: 365 * 24 * 3600,
  guest: 7 * 24 * 3600,
  ghost: 24 * 3600,
};

/**
 * Keys and rotation (docs/DECISIONS.md, "Identity: keys and tokens").
 * - Every token names its key in the header: `kid` = the RFC 7638 thumbprint of the public
 *   key (SHA-256 of its canonical JWK, base64url). Derived, so nothing is configured twice
 *   and a kid can never point at the wrong key.
 * - Verification picks the key by kid from the live set: JWT_PUBLIC_KEY and, during a
 *   rotation, JWT_PUBLIC_KEY_PREVIOUS. An unknown kid is refused without trying any key.
 * - A token without kid was signed before kids existed, by a key that is (or was) ours; it
 *   is checked against the live set, at most two RSA verifications, so the first rotation
 *   does not log those sessions out while the old key is still configured as previous.
 * - Only RS256 is accepted (no `none`, no HS256 with the public key as secret), and the
 *   issuer must be ours. There is no audience: this Worker is the only consumer.
 */
export interface LiveKey {
  kid: string;
  key: CryptoKey;
  /** The SPKI PEM it was imported from (what GET /auth/pub-key publishes). */
  pem: string;
}

// Importing a PEM and hashing its JWK costs a few ms; keep them for the isolate's life.
const imported = new Map<string, Promise<LiveKey>>();
let signer: { pem: string; key: Promise<CryptoKey> } | undefined;

/** The kid of an SPKI public key PEM: its RFC 7638 thumbprint. */
export async function keyId(publicPem: string): Promise<string> {
  return (await publicKey(publicPem)).kid;
}

function publicKey(pem: string): Promise<LiveKey> {
  let hit = imported.get(pem);
  if (!hit) {
    hit = importSPKI(pem, ALG, { extractable: true }).then(async (key) => ({
      key,
      pem,
      kid: await calculateJwkThumbprint(await exportJWK(key), "sha256"),
    }));
    // A bad PEM must not stay cached as a rejected promise for the isolate's life.
    hit.catch(() => imported.delete(pem));
    imported.set(pem, hit);
  }
  return hit;
}

function signingKey(env: Env) {
  if (!env.JWT_PRIVATE_KEY)
    throw new Error("JWT_PRIVATE_KEY is not configured (run `npm install` to make dev keys)");
  if (signer?.pem !== env.JWT_PRIVATE_KEY)
    signer = { pem: env.JWT_PRIVATE_KEY, key: importPKCS8(env.JWT_PRIVATE_KEY, ALG) };
  return signer.key;
}

/**
 * The keys tokens may be signed with now: the current one first, then the previous one.
 * A previous key that does not import is left out (and logged) rather than failing every
 * request; a bad current key throws, since no token could be checked at all.
 */
export async function liveKeys(env: Env): Promise<LiveKey[]> {
  if (!env.JWT_PUBLIC_KEY)
    throw new Error("JWT_PUBLIC_KEY is not configured (run `npm install` to make dev keys)");
  const current = await publicKey(env.JWT_PUBLIC_KEY);
  const previousPem = env.JWT_PUBLIC_KEY_PREVIOUS?.trim();
  if (!previousPem || previousPem === env.JWT_PUBLIC_KEY.trim()) return [current];
  const previous = await publicKey(previousPem).catch((err) => {
    console.error("JWT_PUBLIC_KEY_PREVIOUS is not an SPKI PEM; ignoring it", err);
    return undefined;
  });
  return previous ? [current, previous] : [current];
}

/** Signs `claims`; `ttlSeconds` defaults to the token type's lifetime (TOKEN_TTL_SECONDS). */
export async function signToken(
  env: Env,
  claims: TokenClaims,
  ttlSeconds = TOKEN_TTL_SECONDS[claims.type],
): Promise<string> {
  const { sub, ...rest } = claims;
  const [key, kid] = await Promise.all([signingKey(env), keyId(env.JWT_PUBLIC_KEY)]);
  return new SignJWT({ ...rest })
    .setProtectedHeader({ alg: ALG, typ: "JWT", kid })
    .setSubject(sub)
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(await key);
}

/** The payload if `token` verifies under one of `keys` (RS256, our issuer, not expired). */
async function verifyWith(token: string, keys: LiveKey[]): Promise<JWTPayload | null> {
  for (const { key } of keys) {
    try {
      return (await jwtVerify(token, key, { issuer: ISSUER, algorithms: [ALG] })).payload;
    } catch {
      /* the next key, if any */
    }
  }
  return null;
}

/** The claims of a valid token, or null for anything forged, expired, malformed or of an unknown key. */
export async function verifyToken(
  env: Env,
  token: string,
): Promise<(TokenClaims & { exp: number }) | null> {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return null;
  }
  const keys = await liveKeys(env);
  // A kid picks exactly one key; an unknown kid (another issuer's, a retired key) is refused.
  const candidates = kid === undefined ? keys : keys.filter((k) => k.kid === kid);
  const payload = candidates.length ? await verifyWith(token, candidates) : null;
  if (!payload) return null;
  const type = payload.type as TokenType;
  if (
    typeof payload.sub !== "string" ||
    !TOKEN_TYPES.includes(type) ||
    !Array.isArray(payload.roles) ||
    typeof payload.exp !== "number"
  )
    return null;
  return {
    sub: payload.sub,
    type,
    roles: payload.roles as UserRole[],
    sv: payload.sv as number | undefined,
    sid: typeof payload.sid === "string" ? payload.sid : undefined,
    scope: payload.scope === "chat" ? "chat" : undefined,
    exp: payload.exp,
  };
}
