import { env } from "cloudflare:test";
import { exportPKCS8, exportSPKI, generateKeyPair, importSPKI, jwtVerify } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Env } from "../workers/env";
import { LINK_MSG } from "../workers/user-service/linked-messages";
import { admin, signUp } from "./helpers";
import { linkRow, stubProviders, us } from "./linked-helpers";
import { addCrate, addSong, json, ps } from "./music-stubs";

afterEach(() => vi.restoreAllMocks());

let key: { pkcs8: string; spki: string };
beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  key = { pkcs8: await exportPKCS8(pair.privateKey), spki: await exportSPKI(pair.publicKey) };
});

let n = 0;
/** Apple Music configured with a team key (a fresh API host each time). */
function appleEnv(): Partial<Env> & { APPLE_MUSIC_API_URL: string } {
  return {
    APPLE_MUSIC_API_URL: `https://api.music.apple-${n++}${Math.random().toString(36).slice(2, 6)}.test`,
    APPLE_MUSIC_KEY: key.pkcs8,
    APPLE_MUSIC_KEY_ID: "KEY123ABCD",
    APPLE_MUSIC_TEAM_ID: "TEAM987654",
  };
}

/** Apple's storefront call: accepts `good` Music User Tokens, 401 for the rest. */
function appleStub(over: { APPLE_MUSIC_API_URL: string }, good: string[]) {
  return stubProviders([
    [
      `${over.APPLE_MUSIC_API_URL}/v1/me/storefront`,
      (_u, init) => {
        const mut = new Headers(init?.headers).get("Music-User-Token") ?? "";
        return good.includes(mut)
          ? json({ data: [{ id: "us", type: "storefronts" }] })
          : json({}, 401);
      },
    ],
  ]);
}

describe("the Apple Music developer token", () => {
  it("is an ES256 JWT from the team's key that Apple's check (the public key) accepts", async () => {
    const over = appleEnv();
    const { calls } = appleStub(over, ["mut-1"]);
    const a = await signUp();
    const res = await us(over, "/apple/developer-token", { token: a.token });
    expect(res.status).toBe(200);
    const { payload, protectedHeader } = await jwtVerify(
      res.body.developerToken,
      await importSPKI(key.spki, "ES256"),
    );
    expect(protectedHeader).toMatchObject({ alg: "ES256", kid: "KEY123ABCD" });
    expect(payload.iss).toBe("TEAM987654");
    expect(payload.exp! - payload.iat!).toBe(12 * 3600);
    // The same token goes to Apple with the user's.
    await us(over, "/apple/user-token", { token: a.token, body: { musicUserToken: "mut-1" } });
    expect(calls[0].headers.get("Authorization")).toBe(`Bearer ${res.body.developerToken}`);
    expect((await us(over, "/apple/developer-token")).status).toBe(401);
  });

  it("without a key or a token Apple Music is not configured (503)", async () => {
    const a = await signUp();
    const res = await us({}, "/apple/user-token", {
      token: a.token,
      body: { musicUserToken: "x" },
    });
    expect(res.status).toBe(503);
    expect(res.body.message).toBe(LINK_MSG.notConfigured("Apple Music"));
    expect((await us({}, "/apple/developer-token", { token: a.token })).status).toBe(503);
  });
});

describe("POST /apple/user-token and GET /apple/user-token/{id}", () => {
  it("stores a token Apple accepts, sealed; gives it back to its owner, a service or an admin only", async () => {
    const over = appleEnv();
    appleStub(over, ["mut-good-token"]);
    const [a, b] = [await signUp(), await signUp()];
    const res = await us(over, "/apple/user-token", {
      token: a.token,
      body: { musicUserToken: "mut-good-token" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provider: "apple", linked: true, storefront: "us" });
    const [row] = await linkRow(a.id, "apple");
    expect(JSON.stringify(row)).not.toContain("mut-good-token");
    const path = `/apple/user-token/${a.uuid}`;
    const own = await us(over, path, { token: a.token });
    expect(own.status).toBe(200);
    expect(own.body.musicUserToken).toBe("mut-good-token");
    expect(own.body.developerToken).toBeTruthy();
    expect((await us(over, path)).status).toBe(401);
    const other = await us(over, path, { token: b.token });
    expect(other.status).toBe(403);
    expect(JSON.stringify(other.body)).not.toContain("mut-good-token");
    expect((await us(over, path, { headers: { "X-Service-Key": env.SERVICE_KEY! } })).status).toBe(
      200,
    );
    expect(
      (await us(over, `/apple/user-token/${a.id}`, { token: (await admin()).token })).status,
    ).toBe(200);
    expect((await us(over, `/apple/user-token/${b.uuid}`, { token: b.token })).status).toBe(404);
  });

  it("a token Apple refuses is a 400 and is not stored; bad input is a 400", async () => {
    const over = appleEnv();
    appleStub(over, []);
    const a = await signUp();
    const res = await us(over, "/apple/user-token", {
      token: a.token,
      body: { musicUserToken: "nope" },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(LINK_MSG.appleTokenRefused);
    expect(await linkRow(a.id, "apple")).toHaveLength(0);
    for (const body of [
      {},
      { musicUserToken: "" },
      { musicUserToken: "x".repeat(5000) },
      { musicUserToken: "a b" },
    ])
      expect((await us(over, "/apple/user-token", { token: a.token, body })).status).toBe(400);
    expect((await us(over, "/apple/user-token", { body: { musicUserToken: "x" } })).status).toBe(
      401,
    );
  });

  it("the crate export to Apple uses the linked Music User Token", async () => {
    const over = appleEnv();
    const a = await signUp();
    const seen: string[] = [];
    stubProviders([
      [`${over.APPLE_MUSIC_API_URL}/v1/me/storefront`, () => json({ data: [{ id: "gb" }] })],
      [
        `${over.APPLE_MUSIC_API_URL}/v1/me/library/playlists`,
        (u, init) => {
          seen.push(new Headers(init?.headers).get("Music-User-Token") ?? "");
          return u.pathname.endsWith("/tracks")
            ? json({}, 201)
            : json({ data: [{ id: "p.1" }] }, 201);
        },
      ],
    ]);
    await us(over, "/apple/user-token", { token: a.token, body: { musicUserToken: "mut-export" } });
    const song = await addSong("Apple", "X", { musicProviders: { apple: "555" } });
    const crate = await addCrate(a.uuid, [song.id], "For Apple");
    const r = await ps("/exports/apple", {
      token: a.token,
      body: { crateUuid: crate.crateUuid },
      env: over,
    });
    expect(r.status).toBe(200);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((m) => m === "mut-export")).toBe(true);
  });
});
