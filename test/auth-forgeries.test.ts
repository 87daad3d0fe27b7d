import { env } from "cloudflare:test";
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  exportPKCS8,
  exportSPKI,
  generateKeyPair,
  importPKCS8,
  importSPKI,
  SignJWT,
  UnsecuredJWT,
  type JWTPayload,
} from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../workers/env";
import {
  admin,
  call,
  callWith,
  derivedKey,
  hmacWith,
  signUp,
  user,
  type TestAccount,
} from "./helpers";
import { createRoom, room } from "./room-service-helpers";
import { mp3, namedTag, uploadSong } from "./songs-helpers";

/**
 * Real forgeries (docs/DECISIONS.md, "Identity: keys and tokens"). Every forged token here
 * is a well-formed JWT with the right claims, made with jose; each case has a control made
 * the same way with the right key that is accepted, so each refusal is the signature (or
 * algorithm, expiry, issuer, kid) check at work: with that check removed, the test fails.
 */

const enc = new TextEncoder();
const b64url = (b: Uint8Array) =>
  btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

const kidOf = async (publicPem: string) =>
  calculateJwkThumbprint(
    await exportJWK(await importSPKI(publicPem, "RS256", { extractable: true })),
    "sha256",
  );

/** A JWT of `payload` signed RS256 with `privatePem`; `header` adds or overrides header fields. */
async function rs256(
  payload: JWTPayload,
  privatePem: string,
  header: { kid?: string; alg?: string } = {},
  over: { iss?: string; exp?: number } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ...payload, iss: over.iss ?? payload.iss, exp: over.exp ?? now + 3600 })
    .setProtectedHeader({ alg: "RS256", typ: "JWT", ...header })
    .sign(await importPKCS8(privatePem, "RS256"));
}

/** The claims the service put in `token`, to re-sign them (same sub, type, roles, sv, iss). */
const claimsOf = (token: string): JWTPayload => {
  const claims = decodeJwt(token);
  delete claims.iat;
  delete claims.exp;
  return claims;
};

const session = (token: string) => user("/auth/session", { token });
const sessionWith = (over: Partial<Env>, token: string) =>
  callWith(over, "user-service", "/auth/session", { token });

let realKid: string;
let rogue: { privatePem: string };
let a: TestAccount;

beforeAll(async () => {
  realKid = await kidOf(env.JWT_PUBLIC_KEY);
  const pair = await generateKeyPair("RS256", { extractable: true });
  rogue = { privatePem: await exportPKCS8(pair.privateKey) };
  a = await signUp();
});

describe("bearer tokens", () => {
  it("name their key: kid is the RFC 7638 thumbprint of JWT_PUBLIC_KEY; a copy signed with it passes", async () => {
    expect(decodeProtectedHeader(a.token)).toMatchObject({ alg: "RS256", kid: realKid });
    const copy = await rs256(claimsOf(a.token), env.JWT_PRIVATE_KEY, { kid: realKid });
    expect((await session(copy)).status).toBe(200);
    const pub = await user("/auth/pub-key");
    expect(pub.body).toMatchObject({ kid: realKid, keys: [{ kid: realKid }] });
  });

  it("refuse a token signed by another RSA key, with our kid or with none", async () => {
    for (const header of [{ kid: realKid }, {}]) {
      const forged = await rs256(claimsOf(a.token), rogue.privatePem, header);
      const res = await session(forged);
      expect(res.status, JSON.stringify(header)).toBe(401);
      expect(res.body.message).toBe("Invalid or expired token.");
    }
  });

  it("refuse alg none, and HS256 keyed with the public key PEM", async () => {
    const claims = { ...claimsOf(a.token), exp: Math.floor(Date.now() / 1000) + 3600 };
    const none = new UnsecuredJWT(claims).encode();
    const noneHeader = b64url(enc.encode(JSON.stringify({ alg: "none", kid: realKid })));
    const noneWithKid = `${noneHeader}.${none.split(".")[1]}.`;
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", typ: "JWT", kid: realKid })
      .sign(enc.encode(env.JWT_PUBLIC_KEY));
    for (const token of [none, noneWithKid, hs256])
      expect((await session(token)).status, token.slice(0, 40)).toBe(401);
  });

  it("refuse an expired token, another issuer, a token without exp, and an unknown kid, all signed with the real key", async () => {
    const claims = claimsOf(a.token);
    expect(claims.iss).toBe("hangout/user-service");
    const expired = await rs256(
      claims,
      env.JWT_PRIVATE_KEY,
      { kid: realKid },
      { exp: Math.floor(Date.now() / 1000) - 60 },
    );
    const otherIssuer = await rs256(
      claims,
      env.JWT_PRIVATE_KEY,
      { kid: realKid },
      { iss: "someone-else" },
    );
    const noExp = await new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: realKid })
      .sign(await importPKCS8(env.JWT_PRIVATE_KEY, "RS256"));
    const unknownKid = await rs256(claims, env.JWT_PRIVATE_KEY, { kid: "not-a-key-we-have" });
    for (const [name, token] of Object.entries({ expired, otherIssuer, noExp, unknownKid }))
      expect((await session(token)).status, name).toBe(401);
  });

  it("take roles from D1, not the token: a user's token re-signed claiming admin is still 403", async () => {
    const boss = await admin();
    expect((await user("/admin/users", { token: boss.token })).status).toBe(200);
    const claims = { ...claimsOf(a.token), roles: ["user", "admin"] };
    const promoted = await rs256(claims, env.JWT_PRIVATE_KEY, { kid: realKid });
    expect((await session(promoted)).body.roles).toEqual(["user"]);
    const res = await user("/admin/users", { token: promoted });
    expect(res.status).toBe(403);
  });
});

describe("key rotation", () => {
  it("keeps the previous key's tokens working while JWT_PUBLIC_KEY_PREVIOUS is set, and ends them when it is removed", async () => {
    const next = await generateKeyPair("RS256", { extractable: true });
    const nextPub = await exportSPKI(next.publicKey);
    const nextPriv = await exportPKCS8(next.privateKey);
    const rotated = {
      JWT_PRIVATE_KEY: nextPriv,
      JWT_PUBLIC_KEY: nextPub,
      JWT_PUBLIC_KEY_PREVIOUS: env.JWT_PUBLIC_KEY,
    };
    const retired = { JWT_PRIVATE_KEY: nextPriv, JWT_PUBLIC_KEY: nextPub };
    // A token from before kids existed: the old key, no kid.
    const legacy = await rs256(claimsOf(a.token), env.JWT_PRIVATE_KEY);

    // During the rotation: old tokens (with and without kid) and new ones all work.
    expect((await sessionWith(rotated, a.token)).status).toBe(200);
    expect((await sessionWith(rotated, legacy)).status).toBe(200);
    const fresh = (await callWith(rotated, "user-service", "/auth/guest")).body.token as string;
    expect(decodeProtectedHeader(fresh).kid).toBe(await kidOf(nextPub));
    expect((await sessionWith(rotated, fresh)).status).toBe(200);
    const pub = await callWith(rotated, "user-service", "/auth/pub-key");
    expect(pub.body.keys.map((k: { kid: string }) => k.kid)).toEqual([
      await kidOf(nextPub),
      realKid,
    ]);

    // The previous key removed: its tokens end; the new key's go on.
    expect((await sessionWith(retired, a.token)).status).toBe(401);
    expect((await sessionWith(retired, legacy)).status).toBe(401);
    expect((await sessionWith(retired, fresh)).status).toBe(200);
    // And a deployment that never had the new key does not know its kid.
    expect((await session(fresh)).status).toBe(401);
    expect((await session(legacy)).status).toBe(200);
  });
});

describe("one key per purpose", () => {
  const ticketLabel = "hangout/room-ticket/v1";
  const hlsLabel = "hangout/hls/v1";
  const rawKey = (secret: string) =>
    crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);

  it("room tickets: only the ticket key's MAC admits; the service key, the HLS key or another root never do", async () => {
    const owner = await signUp();
    const guest = await signUp();
    const r = await createRoom(owner, { password: "secret door" });
    const payload = `${r.uuid}.${guest.uuid}.${Date.now() + 3600_000}`;
    const ticket = async (key: CryptoKey) => `${payload}.${b64url(await hmacWith(key, payload))}`;
    const state = (t: string) =>
      room(`/rooms/room-state/${r.id}?ticket=${encodeURIComponent(t)}`, { token: guest.token });

    expect((await state(await ticket(await derivedKey(ticketLabel)))).status).toBe(200);
    const forged = {
      otherRoot: await derivedKey(ticketLabel, "another-root-secret-of-the-same-length-0000000"),
      hlsKey: await derivedKey(hlsLabel),
      serviceKey: await rawKey(env.SERVICE_KEY!),
      oldScheme: await rawKey(`room-ticket:${env.SERVICE_KEY}`),
      rootItself: await rawKey(env.ROOT_SECRET!),
    };
    for (const [name, key] of Object.entries(forged)) {
      const res = await state(await ticket(key));
      expect(res.status, name).toBe(403);
    }
    // The real ticket from POST /join is not a service key either.
    const joined = await room(`/rooms/${r.id}/join`, {
      token: guest.token,
      body: { password: "secret door" },
    });
    for (const key of [joined.body.ticket, env.ROOT_SECRET!])
      expect(
        (
          await call("user-service", `/profile/${owner.uuid}/service`, {
            headers: { "X-Service-Key": key },
          })
        ).status,
      ).toBe(401);
    expect(
      (
        await call("user-service", `/profile/${owner.uuid}/service`, {
          headers: { "X-Service-Key": env.SERVICE_KEY! },
        })
      ).status,
    ).toBe(200);
  });

  it("HLS URLs: only the HLS key's signature plays; a ticket key, the service key or another root is 403", async () => {
    const up = await uploadSong(a.token, mp3(3, namedTag("Signed", "Only")));
    expect(up.body.status).toBe("VERIFIED");
    const songId = up.body.songId as string;
    const exp = Math.floor(Date.now() / 1000) + 600;
    const segment = async (key: CryptoKey) =>
      call(
        "upload-service",
        `/songs/${songId}/segments/0?exp=${exp}&sig=${b64url(await hmacWith(key, `hls-seg:${songId}:0:${exp}`))}`,
      );
    const keyUrl = async (key: CryptoKey) =>
      call(
        "upload-service",
        `/songs/hls/key?songId=${songId}&exp=${exp}&sig=${b64url(await hmacWith(key, `hls-key-url:${songId}:${exp}`))}`,
      );
    const right = await derivedKey(hlsLabel);
    expect((await segment(right)).status).toBe(200);
    expect((await keyUrl(right)).status).toBe(200);
    const forged = {
      otherRoot: await derivedKey(hlsLabel, "another-root-secret-of-the-same-length-0000000"),
      ticketKey: await derivedKey(ticketLabel),
      serviceKey: await rawKey(env.SERVICE_KEY!),
      rootItself: await rawKey(env.ROOT_SECRET!),
    };
    for (const [name, key] of Object.entries(forged)) {
      expect((await segment(key)).status, name).toBe(403);
      expect((await keyUrl(key)).status, name).toBe(403);
    }
  });

  it("without ROOT_SECRET nothing falls back to another secret: join and HLS answer 503, tickets admit nobody", async () => {
    const owner = await signUp();
    const guest = await signUp();
    const r = await createRoom(owner, { password: "no root" });
    const joined = await room(`/rooms/${r.id}/join`, {
      token: guest.token,
      body: { password: "no root" },
    });
    const off = { ROOT_SECRET: undefined };
    const join = await callWith(off, "room-service", `/rooms/${r.id}/join`, {
      token: guest.token,
      body: { password: "no root" },
    });
    expect(join.status).toBe(503);
    expect(join.body.message).toBe("Signing is not configured (ROOT_SECRET).");
    const stateOff = await callWith(
      off,
      "room-service",
      `/rooms/room-state/${r.id}?ticket=${encodeURIComponent(joined.body.ticket)}`,
      { token: guest.token },
    );
    expect(stateOff.status).toBe(403);
    const up = await uploadSong(a.token, mp3(2, namedTag("No", "Root")));
    expect(up.body.status).toBe("VERIFIED");
    const hls = await callWith(off, "upload-service", `/songs/${up.body.songId}/hls-playlist`, {
      token: a.token,
    });
    expect(hls.status).toBe(503);
  });
});
