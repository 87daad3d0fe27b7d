import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../workers/db/client";
import { appTokens, linkedAccounts } from "../workers/db/schema";
import { LINK_MSG } from "../workers/user-service/linked-messages";
import { forgetPublicTokens } from "../workers/user-service/soundcloud-public-token";
import { admin, signUp } from "./helpers";
import {
  FakeProvider,
  linkRow,
  someone,
  soundcloudEnv,
  soundcloudRoutes,
  startLink,
  stubProviders,
  us,
  youtubeEnv,
  youtubeRoutes,
} from "./linked-helpers";

afterEach(() => vi.restoreAllMocks());

function soundcloud() {
  const fake = new FakeProvider();
  const over = soundcloudEnv(fake);
  const stub = stubProviders(soundcloudRoutes(fake));
  return { fake, over, stub };
}

describe("GET /soundcloud/public-token (the app's client-credentials token)", () => {
  it("20 concurrent calls make one token request, at the auth host, and all get the same token", async () => {
    const { fake, over, stub } = soundcloud();
    const a = await signUp();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => us(over, "/soundcloud/public-token", { token: a.token })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((r) => r.body.accessToken)).size).toBe(1);
    expect(fake.tokenCalls).toHaveLength(1);
    expect(fake.tokenCalls[0].get("grant_type")).toBe("client_credentials");
    expect(fake.tokenCalls[0].get("client_id")).toBe(`sc-${fake.tag}`);
    // The token endpoint is on the auth host, not the API host.
    expect(stub.calls.every((c) => c.url.origin === fake.auth)).toBe(true);
    // Kept sealed in D1 for other isolates.
    const rows = await db(env).select().from(appTokens).all();
    expect(JSON.stringify(rows)).not.toContain(answers[0].body.accessToken);
  });

  it("is cached until it lapses (in D1 too), then fetched again once", async () => {
    const { fake, over } = soundcloud();
    const a = await signUp();
    const first = await us(over, "/soundcloud/public-token", { token: a.token });
    forgetPublicTokens();
    // Another isolate (empty memory) reads the sealed one from D1.
    const second = await us(over, "/soundcloud/public-token", { token: a.token });
    expect(second.body.accessToken).toBe(first.body.accessToken);
    expect(fake.tokenCalls).toHaveLength(1);
    forgetPublicTokens();
    await db(env).update(appTokens).set({ expiresAt: Date.now() });
    const third = await us(over, "/soundcloud/public-token", { token: a.token });
    expect(third.body.accessToken).not.toBe(first.body.accessToken);
    expect(fake.tokenCalls).toHaveLength(2);
  });

  it("the mobile twin uses the mobile client's keys and its own token", async () => {
    const { fake, over } = soundcloud();
    const a = await signUp();
    const web = await us(over, "/soundcloud/public-token", { token: a.token });
    const mobile = await us(over, "/soundcloud/mobile/public-token", { token: a.token });
    expect(mobile.status).toBe(200);
    expect(mobile.body.accessToken).not.toBe(web.body.accessToken);
    expect(fake.tokenCalls.map((f) => f.get("client_id"))).toEqual([
      `sc-${fake.tag}`,
      `scm-${fake.tag}`,
    ]);
  });

  it("needs a signed-in account (401) and a configured SoundCloud (503)", async () => {
    const { over } = soundcloud();
    expect((await us(over, "/soundcloud/public-token")).status).toBe(401);
    const a = await signUp();
    const off = await us({}, "/soundcloud/mobile/public-token", { token: a.token });
    expect(off.status).toBe(503);
    expect(off.body.message).toBe(LINK_MSG.notConfigured("SoundCloud"));
  });
});

describe("linking SoundCloud", () => {
  it("links with { code, state }, refreshes with {}, and each client keeps its own link", async () => {
    const { fake, over } = soundcloud();
    const a = await signUp();
    const s = await startLink(over, fake, "soundcloud", a.token, someone({ id: "123" }));
    expect(s.url.origin).toBe(fake.auth);
    expect(s.url.searchParams.get("code_challenge")).toBeTruthy();
    const linked = await us(over, "/soundcloud/refresh-token", {
      token: a.token,
      body: { code: s.code, state: s.state },
    });
    expect(linked.status).toBe(200);
    expect(linked.body.linked).toBe(true);
    const again = await us(over, "/soundcloud/refresh-token", { token: a.token, body: {} });
    expect(again.body.accessToken).toBe(linked.body.accessToken);
    // The mobile client: its redirect is the app's scheme, from configuration.
    const m = await startLink(
      over,
      fake,
      "soundcloud",
      a.token,
      someone({ id: "123" }),
      "?mobile=true",
    );
    expect(m.url.searchParams.get("redirect_uri")).toBe("hangout://soundcloud");
    expect(m.url.searchParams.get("client_id")).toBe(`scm-${fake.tag}`);
    // A web state does not finish a mobile link.
    const crossed = await startLink(over, fake, "soundcloud", a.token, someone());
    expect(
      (await us(over, "/soundcloud/mobile/refresh-token", { token: a.token, body: crossed }))
        .status,
    ).toBe(400);
    const ml = await us(over, "/soundcloud/mobile/refresh-token", {
      token: a.token,
      body: { code: m.code, state: m.state },
    });
    expect(ml.status).toBe(200);
    expect((await linkRow(a.id, "soundcloud")).map((r) => r.variant).sort()).toEqual([
      "mobile",
      "web",
    ]);
    const tokens = await us(over, `/soundcloud/access-token/${a.uuid}?mobile=true`, {
      token: a.token,
    });
    expect(tokens.body.accessToken).toBe(ml.body.accessToken);
  });

  it("GET /soundcloud/access-token/{id}: the account itself, a service or an admin; 403 for others", async () => {
    const { fake, over } = soundcloud();
    const [a, b] = [await signUp(), await signUp()];
    const s = await startLink(over, fake, "soundcloud", a.token, someone());
    await us(over, "/soundcloud/refresh-token", { token: a.token, body: s });
    const path = `/soundcloud/access-token/${a.id}`;
    expect((await us(over, path)).status).toBe(401);
    const other = await us(over, path, { token: b.token });
    expect(other.status).toBe(403);
    expect(other.body.message).toBe(LINK_MSG.notYours);
    expect((await us(over, path, { token: a.token })).status).toBe(200);
    expect((await us(over, path, { headers: { "X-Service-Key": env.SERVICE_KEY! } })).status).toBe(
      200,
    );
    expect((await us(over, path, { token: (await admin()).token })).status).toBe(200);
    // b has no link: 404 for b's own call.
    expect((await us(over, `/soundcloud/access-token/${b.uuid}`, { token: b.token })).status).toBe(
      404,
    );
    expect((await us(over, `${path}?mobile=maybe`, { token: a.token })).status).toBe(400);
  });

  it("bad bodies are 400 and reach neither storage nor SoundCloud", async () => {
    const { fake, over } = soundcloud();
    const a = await signUp();
    for (const body of [{ code: "c" }, { state: "s" }, { code: 1, state: "s" }, "x"])
      expect((await us(over, "/soundcloud/refresh-token", { token: a.token, body })).status).toBe(
        400,
      );
    expect(fake.tokenCalls).toHaveLength(0);
    expect(await linkRow(a.id, "soundcloud")).toHaveLength(0);
  });
});

describe("YouTube (Google)", () => {
  it("links with PKCE and offline access, then refreshes; a revoked grant is removed", async () => {
    const fake = new FakeProvider();
    const over = youtubeEnv(fake);
    stubProviders(youtubeRoutes(fake));
    const a = await signUp();
    const s = await startLink(
      over,
      fake,
      "youtube",
      a.token,
      someone({ id: "UCabc", name: "Chan" }),
    );
    expect(s.url.searchParams.get("access_type")).toBe("offline");
    expect(s.url.searchParams.get("code_challenge_method")).toBe("S256");
    const res = await us(over, "/youtube/exchange-code", { token: a.token, body: s });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provider: "youtube", displayName: "Chan" });
    // Google takes its client credentials in the body.
    expect(fake.tokenCalls[0].get("client_secret")).toBe("g-secret");
    expect((await linkRow(a.id, "youtube"))[0].externalId).toBe("UCabc");
    await db(env).update(linkedAccounts).set({ accessExpiresAt: 0 });
    fake.revokeAll();
    const gone = await us(over, "/youtube/refresh-token", { token: a.token, method: "POST" });
    expect(gone.status).toBe(409);
    expect((await linkRow(a.id, "youtube"))[0].refreshTokenEnc).toBeNull();
    expect((await us(over, "/youtube/refresh-token", { method: "POST" })).status).toBe(401);
  });
});
