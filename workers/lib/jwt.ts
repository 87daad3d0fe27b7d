import { importPKCS8, importSPKI, jwtVerify, SignJWT, type CryptoKey } from "jose";
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
}

const ISSUER = "hangout/user-service";
const ALG = "RS256";

/** How long each kind of token lives. */
export const TOKEN_TTL_SECONDS: Record<TokenType, number> = {
  user: 30 * 24 * 3600,
  bot: 365 * 24 * 3600,
  guest: 7 * 24 * 3600,
  ghost: 24 * 3600,
};

// Importing a PEM costs a few ms; keep the imported keys for the isolate's life.
let privateKey: { pem: string; key: Promise<CryptoKey> } | undefined;
let publicKey: { pem: string; key: Promise<CryptoKey> } | undefined;

function signingKey(env: Env) {
  if (!env.JWT_PRIVATE_KEY)
    throw new Error("JWT_PRIVATE_KEY is not configured (run `npm install` to make dev keys)");
  if (privateKey?.pem !== env.JWT_PRIVATE_KEY)
    privateKey = { pem: env.JWT_PRIVATE_KEY, key: importPKCS8(env.JWT_PRIVATE_KEY, ALG) };
  return privateKey.key;
}

function verifyingKey(env: Env) {
  if (!env.JWT_PUBLIC_KEY)
    throw new Error("JWT_PUBLIC_KEY is not configured (run `npm install` to make dev keys)");
  if (publicKey?.pem !== env.JWT_PUBLIC_KEY)
    publicKey = { pem: env.JWT_PUBLIC_KEY, key: importSPKI(env.JWT_PUBLIC_KEY, ALG) };
  return publicKey.key;
}

export async function signToken(env: Env, claims: TokenClaims): Promise<string> {
  const { sub, ...rest } = claims;
  return new SignJWT({ ...rest })
    .setProtectedHeader({ alg: ALG, typ: "JWT" })
    .setSubject(sub)
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(`${TOKEN_TTL_SECONDS[claims.type]}s`)
    .sign(await signingKey(env));
}

/** The claims of a valid token, or null for anything forged, expired or malformed. */
export async function verifyToken(
  env: Env,
  token: string,
): Promise<(TokenClaims & { exp: number }) | null> {
  try {
    const { payload } = await jwtVerify(token, await verifyingKey(env), {
      issuer: ISSUER,
      algorithms: [ALG],
    });
    const type = payload.type as TokenType;
    if (
      typeof payload.sub !== "string" ||
      !TOKEN_TYPES.includes(type) ||
      !Array.isArray(payload.roles)
    )
      return null;
    return {
      sub: payload.sub,
      type,
      roles: payload.roles as UserRole[],
      sv: payload.sv as number | undefined,
      exp: payload.exp!,
    };
  } catch {
    return null;
  }
}
