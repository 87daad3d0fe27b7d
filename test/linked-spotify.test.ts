import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { linkedAccounts, oauthStates } from "../workers/db/schema";
import { LINK_MSG } from "../workers/user-service/linked-messages";
import { admin, signUp } from "./helpers";
import {
  FakeProvider,
  linkRow,
  someone,
  spotifyEnv,
  spotifyRoutes,
  startLink,
  stubProviders,
  us,
} from "./linked-helpers";
import { addCrate, addSong, json, ps } from "./music-stubs";

afterEach(() => vi.restoreAllMocks());

/** A Spotify link for a new account through the whole flow. */
async function linked(fake = new FakeProvider()) {
  const over = spotifyEnv(fake);
  const stub = stubProviders(spotifyRoutes(fake));
  const a = await signUp();
  const who = someone();
  const { code, state } = await startLink(over, fake, "spotify", a.token, who);
  const res = await us(over, "/spotify/exchange-code", { token: a.token, body: { code, state } });
  expect(res.status).toBe(200);
  return { a, who, over, fake, stub, res };
}

describe("the Spotify authorization-code flow", () => {
  it("links with PKCE and a state bound to the account; the answer and D1 hold no refresh token", async () => {
    const fake = new FakeProvider();
    const over = spotifyEnv(fake);
    stubProviders(spotifyRoutes(fake));
    const a = await signUp();
    const who = someone({ name: "DJ Sam" });
    const { code, state, url } = await startLink(over, fake, "spotify", a.token, who);
    expect(url.origin + url.pathname).toBe(`${fake.auth}/authorize`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    // The redirect comes from configuration (PUBLIC_HOST), not from the request.
    expect(url.searchParams.get("redirect_uri")).toBe(
      "http://hangout.test/settings/connections/callback/spotify",
    );
    const res = await us(over, "/spotify/exchange-code", { token: a.token, body: { code, state } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provider: "spotify", linked: true, displayName: "DJ Sam" });
    expect(res.body.accessToken).toMatch(/^at-/);
    expect(JSON.stringify(res.body)).not.toMatch(/rt-/);
    // At rest: no token in any column, and the state is kept only as a hash.
    const [row] = await linkRow(a.id, "spotify");
    expect(row.externalId).toBe(who.id);
    expect(JSON.stringify(row)).not.toMatch(/(at|rt)-p/);
    expect(row.keyId).toMatch(/^[0-9a-f]{16}$/);
    const states = await db(env).select().from(oauthStates).all();
    expect(JSON.stringify(states)).not.toContain(state);
    // The list shows the link, never a token.
    const list = await us(over, "/linked-accounts", { token: a.token });
    expect(list.body.links).toEqual([
      expect.objectContaining({ provider: "spotify", displayName: "DJ Sam", active: true }),
    ]);
    expect(JSON.stringify(list.body)).not.toMatch(/(at|rt)-p/);
    expect(list.body.providers).toContainEqual({
      provider: "spotify",
      name: "Spotify",
      available: true,
    });
  });

  it("refuses another account's state (400) and leaves it usable by its owner", async () => {
    const fake = new FakeProvider();
    const over = spotifyEnv(fake);
    stubProviders(spotifyRoutes(fake));
    const [a, b] = [await signUp(), await signUp()];
    const { code, state } = await startLink(over, fake, "spotify", a.token, someone());
    const stolen = await us(over, "/spotify/exchange-code", {
      token: b.token,
      body: { code, state },
    });
    expect(stolen.status).toBe(400);
    expect(stolen.body.message).toBe(LINK_MSG.badState);
    expect(fake.tokenCalls).toHaveLength(0);
    expect(await linkRow(b.id, "spotify")).toHaveLength(0);
    const own = await us(over, "/spotify/exchange-code", { token: a.token, body: { code, state } });
    expect(own.status).toBe(200);
  });

  it("refuses a replayed state without asking the provider again", async () => {
    const { a, over, fake, res } = await linked();
    expect(res.status).toBe(200);
    const { code, state } = fake.approve(
      (await us(over, "/auth/spotify/authorize-url", { token: a.token })).body.url,
      someone(),
    );
    expect(
      (await us(over, "/spotify/exchange-code", { token: a.token, body: { code, state } })).status,
    ).toBe(200);
    const calls = fake.tokenCalls.length;
    const again = await us(over, "/spotify/exchange-code", {
      token: a.token,
      body: { code, state },
    });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(LINK_MSG.badState);
    expect(fake.tokenCalls.length).toBe(calls);
  });

  it("refuses a replayed code (the provider's invalid_grant) with a 400, and keeps the link as it was", async () => {
    const { a, over, fake, who } = await linked();
    const first = await startLink(over, fake, "spotify", a.token, someone());
    expect((await us(over, "/spotify/exchange-code", { token: a.token, body: first })).status).toBe(
      200,
    );
    // A fresh state with the spent code.
    const { state } = await startLink(over, fake, "spotify", a.token, who);
    const replay = await us(over, "/spotify/exchange-code", {
      token: a.token,
      body: { code: first.code, state },
    });
    expect(replay.status).toBe(400);
    expect(replay.body.message).toBe(LINK_MSG.codeRefused("Spotify"));
  });

  it("refuses an expired state and a state made for another provider", async () => {
    const fake = new FakeProvider();
    const over = { ...spotifyEnv(fake), GOOGLE_CLIENT_ID: "g", GOOGLE_CLIENT_SECRET: "s" };
    stubProviders(spotifyRoutes(fake));
    const a = await signUp();
    const sp = await startLink(over, fake, "spotify", a.token, someone());
    const wrong = await us(over, "/youtube/exchange-code", { token: a.token, body: sp });
    expect(wrong.status).toBe(400);
    await db(env)
      .update(oauthStates)
      .set({ expiresAt: Date.now() - 1 });
    const late = await us(over, "/spotify/exchange-code", { token: a.token, body: sp });
    expect(late.status).toBe(400);
    expect(late.body.message).toBe(LINK_MSG.badState);
    expect(fake.tokenCalls).toHaveLength(0);
  });
});

describe("Spotify tokens after linking", () => {
  it("POST /spotify/refresh-token answers the cached token, then a refreshed one when it lapses", async () => {
    const { a, over, fake, res } = await linked();
    const cached = await us(over, "/spotify/refresh-token", { token: a.token, method: "POST" });
    expect(cached.status).toBe(200);
    expect(cached.body.accessToken).toBe(res.body.accessToken);
    await db(env)
      .update(linkedAccounts)
      .set({ accessExpiresAt: Date.now() + 1000 })
      .where(eq(linkedAccounts.userId, a.id));
    const calls = fake.tokenCalls.length;
    const fresh = await us(over, "/spotify/refresh-token", { token: a.token, method: "POST" });
    expect(fresh.status).toBe(200);
    expect(fresh.body.accessToken).not.toBe(res.body.accessToken);
    expect(fake.tokenCalls.length).toBe(calls + 1);
    expect(fake.tokenCalls.at(-1)!.get("grant_type")).toBe("refresh_token");
  });

  it("removes a refresh token the provider says is revoked, and says to link again", async () => {
    const { a, over, fake } = await linked();
    fake.revokeAll();
    await db(env)
      .update(linkedAccounts)
      .set({ accessExpiresAt: 0 })
      .where(eq(linkedAccounts.userId, a.id));
    const res = await us(over, "/spotify/refresh-token", { token: a.token, method: "POST" });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(LINK_MSG.revoked("Spotify"));
    const [row] = await linkRow(a.id, "spotify");
    expect(row.refreshTokenEnc).toBeNull();
    expect(row.accessTokenEnc).toBeNull();
    const list = await us(over, "/linked-accounts", { token: a.token });
    expect(list.body.links[0].active).toBe(false);
    // No retry loop: one refresh attempt, then the answer.
    expect(fake.tokenCalls.filter((f) => f.get("grant_type") === "refresh_token")).toHaveLength(1);
  });

  it("the crate export uses the linked account and refreshes exactly once on a 401", async () => {
    const { a, over, fake, res } = await linked();
    const song = await addSong("Linked", "X", {
      musicProviders: { spotify: "4444444444444444444444" },
    });
    const crate = await addCrate(a.uuid, [song.id], "Mine");
    fake.refuseNext.add(res.body.accessToken);
    const used: string[] = [];
    vi.restoreAllMocks();
    stubProviders([
      ...spotifyRoutes(fake),
      [
        `${fake.api}/v1/users/`,
        (_u, init) => {
          used.push(new Headers(init?.headers).get("Authorization")!);
          return json({ id: "pl9" }, 201);
        },
      ],
      [`${fake.api}/v1/playlists/pl9/tracks`, () => json({}, 201)],
    ]);
    const r = await ps("/exports/spotify", {
      token: a.token,
      body: { crateUuid: crate.crateUuid },
      env: over,
    });
    expect(r.status).toBe(200);
    expect(r.body.added).toBe(1);
    expect(fake.tokenCalls.filter((f) => f.get("grant_type") === "refresh_token")).toHaveLength(1);
    expect(used[0]).not.toBe(`Bearer ${res.body.accessToken}`);
    // Without a link and without accessToken: a 400 saying how.
    const b = await signUp();
    const c2 = await addCrate(b.uuid, [song.id], "Theirs");
    const none = await ps("/exports/spotify", {
      token: b.token,
      body: { crateUuid: c2.crateUuid },
      env: over,
    });
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/Link your Spotify account/);
  });

  it("DELETE /spotify/refresh-token unlinks: the row and its tokens are gone", async () => {
    const { a, over } = await linked();
    const res = await us(over, "/spotify/refresh-token", { token: a.token, method: "DELETE" });
    expect(res.body).toMatchObject({ linked: false, removed: true });
    expect(await linkRow(a.id, "spotify")).toHaveLength(0);
    const after = await us(over, "/spotify/refresh-token", { token: a.token, method: "POST" });
    expect(after.status).toBe(404);
  });

  it("GET /spotify/access-token/{id}/service: services and admins only", async () => {
    const { a, over } = await linked();
    const path = `/spotify/access-token/${a.uuid}/service`;
    expect((await us(over, path)).status).toBe(401);
    expect((await us(over, path, { token: a.token })).status).toBe(403);
    expect((await us(over, path, { headers: { "X-Service-Key": "wrong" } })).status).toBe(401);
    const svc = await us(over, path, { headers: { "X-Service-Key": env.SERVICE_KEY! } });
    expect(svc.status).toBe(200);
    expect(svc.body).toMatchObject({
      userUuid: a.uuid,
      accessToken: expect.stringMatching(/^at-/),
    });
    expect(
      (await us(over, `/spotify/access-token/${a.id}/service`, { token: (await admin()).token }))
        .status,
    ).toBe(200);
    expect(
      (
        await us(over, `/spotify/access-token/not-an-id/service`, {
          headers: { "X-Service-Key": env.SERVICE_KEY! },
        })
      ).status,
    ).toBe(400);
  });
});

describe("who may call, bad input, configuration", () => {
  it("every linking call needs a signed-in account (401), guests included", async () => {
    const over = spotifyEnv(new FakeProvider());
    for (const [path, method] of [
      ["/auth/spotify/authorize-url", "GET"],
      ["/spotify/exchange-code", "POST"],
      ["/spotify/refresh-token", "POST"],
      ["/spotify/refresh-token", "DELETE"],
      ["/linked-accounts", "GET"],
      ["/linked-accounts/spotify", "DELETE"],
    ])
      expect(
        (
          await us(over, path, {
            method,
            body: method === "POST" ? { code: "c", state: "s" } : undefined,
          })
        ).status,
      ).toBe(401);
  });

  it("bad input is a 400 with a message and writes nothing", async () => {
    const over = spotifyEnv(new FakeProvider());
    const a = await signUp();
    const cases: [string, string, unknown][] = [
      ["POST", "/spotify/exchange-code", {}],
      ["POST", "/spotify/exchange-code", { code: "c" }],
      ["POST", "/spotify/exchange-code", { code: "x".repeat(3000), state: "s" }],
      ["POST", "/spotify/exchange-code", { code: 5, state: "s" }],
      ["GET", "/auth/napster/authorize-url", undefined],
      ["GET", "/auth/spotify/authorize-url?intent=sign-in", undefined],
      ["GET", "/auth/spotify/authorize-url?intent=steal", undefined],
      ["DELETE", "/linked-accounts/myspace", undefined],
    ];
    const before = (await db(env).select().from(oauthStates).all()).length;
    for (const [method, path, body] of cases) {
      const res = await us(over, path, { method, body, token: a.token });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.message).toBeTruthy();
    }
    expect((await db(env).select().from(oauthStates).all()).length).toBe(before);
  });

  it("without provider keys the calls answer 503 saying so, and the list marks it unavailable", async () => {
    const a = await signUp();
    const res = await us({}, "/auth/spotify/authorize-url", { token: a.token });
    expect(res.status).toBe(503);
    expect(res.body.message).toBe(LINK_MSG.notConfigured("Spotify"));
    const ex = await us({}, "/spotify/exchange-code", {
      token: a.token,
      body: { code: "c", state: "s" },
    });
    expect(ex.status).toBe(503);
    const list = await us({}, "/linked-accounts", { token: a.token });
    expect(list.status).toBe(200);
    expect(
      list.body.providers.find((p: { provider: string }) => p.provider === "spotify").available,
    ).toBe(false);
  });

  it("a flood of link requests from one account is limited (429) before it writes state rows", async () => {
    const over = spotifyEnv(new FakeProvider());
    const a = await signUp();
    const codes: number[] = [];
    for (let i = 0; i < 32; i++)
      codes.push((await us(over, "/auth/spotify/authorize-url", { token: a.token })).status);
    expect(codes.filter((s) => s === 200)).toHaveLength(30);
    expect(codes.slice(30)).toEqual([429, 429]);
  });
});

describe("sealed tokens and key rotation", () => {
  it("a row sealed under the previous root still opens after a rotation; with the old root gone it asks for a new link", async () => {
    const { a, over, res } = await linked();
    const rotated = {
      ...over,
      ROOT_SECRET: "a-brand-new-root-secret-for-rotation-0123456789",
      ROOT_SECRET_PREVIOUS: env.ROOT_SECRET,
    };
    const after = await us(rotated, "/spotify/refresh-token", { token: a.token, method: "POST" });
    expect(after.status).toBe(200);
    expect(after.body.accessToken).toBe(res.body.accessToken);
    const gone = await us({ ...over, ROOT_SECRET: rotated.ROOT_SECRET }, "/spotify/refresh-token", {
      token: a.token,
      method: "POST",
    });
    expect(gone.status).toBe(409);
    expect(gone.body.message).toBe(LINK_MSG.revoked("Spotify"));
  });

  it("a sealed value copied into another account's row does not open there", async () => {
    const one = await linked();
    const two = await linked(one.fake);
    const [src] = await linkRow(one.a.id, "spotify");
    await db(env)
      .update(linkedAccounts)
      .set({
        accessTokenEnc: src.accessTokenEnc,
        refreshTokenEnc: src.refreshTokenEnc,
        keyId: src.keyId,
      })
      .where(eq(linkedAccounts.userId, two.a.id));
    const res = await us(two.over, "/spotify/refresh-token", {
      token: two.a.token,
      method: "POST",
    });
    expect(res.status).toBe(409);
    expect(JSON.stringify(res.body)).not.toContain(one.res.body.accessToken);
  });
});
