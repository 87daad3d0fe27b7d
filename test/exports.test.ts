import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SONG_MSG } from "../workers/songs/messages";
import { guestToken, signUp, type TestAccount } from "./helpers";
import { addCrate, addSong, json, providerEnv, ps, stubFetch } from "./music-stubs";

afterEach(() => vi.restoreAllMocks());

let owner: TestAccount;
let other: TestAccount;
let crateUuid: string;
const SP = ["1111111111111111111111", "2222222222222222222222", "3333333333333333333333"];

beforeAll(async () => {
  owner = await signUp();
  other = await signUp();
  // Five songs: three at Spotify, two at Apple (one at both), one at neither.
  const rows = [
    await addSong("A", "X", { musicProviders: { spotify: SP[0], apple: "101" } }),
    await addSong("B", "X", { musicProviders: { spotify: SP[1] } }),
    await addSong("C", "X", { musicProviders: { uploadService: "u" } }),
    await addSong("D", "X", { musicProviders: { apple: "104" } }),
    await addSong("E", "X", { musicProviders: { spotify: SP[2], sevenDigital: "5" } }),
  ];
  crateUuid = (
    await addCrate(
      owner.uuid,
      rows.map((r) => r.id),
      "Road trip",
    )
  ).crateUuid;
});

function spotifyExportStub(p: ReturnType<typeof providerEnv>, meStatus = 200) {
  return stubFetch([
    [`${p.hosts.spotify}/v1/me`, () => json({ id: "person 1" }, meStatus)],
    [
      `${p.hosts.spotify}/v1/users/`,
      () =>
        json(
          { id: "pl1", external_urls: { spotify: "https://open.spotify.com/playlist/pl1" } },
          201,
        ),
    ],
    [`${p.hosts.spotify}/v1/playlists/pl1/tracks`, () => json({ snapshot_id: "s" }, 201)],
  ]);
}

describe("POST /exports/spotify", () => {
  it("creates a playlist with the crate's Spotify songs in order and counts the rest as skipped", async () => {
    const p = providerEnv();
    const { calls } = spotifyExportStub(p);
    const r = await ps(`/exports/spotify`, {
      token: owner.token,
      body: { crateUuid, accessToken: "user-sp-token" },
      env: p.only("spotify"),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      provider: "spotify",
      playlistUrl: "https://open.spotify.com/playlist/pl1",
      added: 3,
      skipped: 2,
    });
    // Every call uses the person's token, never the app's client credentials.
    expect(calls.every((c) => c.headers.get("Authorization") === "Bearer user-sp-token")).toBe(
      true,
    );
    const create = calls.find((c) => c.url.pathname.startsWith("/v1/users/"))!;
    expect(create.url.pathname).toBe("/v1/users/person%201/playlists");
    expect(JSON.parse(create.body!)).toEqual({ name: "Road trip", description: "", public: false });
    const add = calls.find((c) => c.url.pathname === "/v1/playlists/pl1/tracks")!;
    expect(JSON.parse(add.body!)).toEqual({ uris: SP.map((id) => `spotify:track:${id}`) });
  });

  it("takes a playlist name, and reports a refused user token as 400 (not our 401)", async () => {
    const p = providerEnv();
    const { calls } = spotifyExportStub(p);
    await ps(`/exports/spotify`, {
      token: owner.token,
      body: { crateUuid, name: "Summer", accessToken: "t" },
      env: p.only("spotify"),
    });
    expect(JSON.parse(calls.find((c) => c.url.pathname.startsWith("/v1/users/"))!.body!).name).toBe(
      "Summer",
    );
    vi.restoreAllMocks();
    spotifyExportStub(p, 401);
    const refused = await ps(`/exports/spotify`, {
      token: owner.token,
      body: { crateUuid, accessToken: "stale" },
      env: p.only("spotify"),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      "Spotify refused the access token; link your Spotify account again.",
    );
    vi.restoreAllMocks();
    spotifyExportStub(p, 500);
    const down = await ps(`/exports/spotify`, {
      token: owner.token,
      body: { crateUuid, accessToken: "t" },
      env: p.only("spotify"),
    });
    expect(down.status).toBe(502);
  });

  it("only the owner may export (403); an unknown crate is 404; provider off is 503", async () => {
    const p = providerEnv();
    const { calls } = spotifyExportStub(p);
    const notMine = await ps(`/exports/spotify`, {
      token: other.token,
      body: { crateUuid, accessToken: "t" },
      env: p.only("spotify"),
    });
    expect(notMine.status).toBe(403);
    expect(notMine.body.message).toBe("Only the owner of this crate can export it.");
    // Someone else's private crate is not revealed: 404, as GET /crate/{id} answers.
    const hidden = await addCrate(owner.uuid, [], "Hidden");
    await env.DB.prepare("update crates set is_public = 0 where id = ?").bind(hidden.id).run();
    const secret = await ps(`/exports/spotify`, {
      token: other.token,
      body: { crateUuid: hidden.crateUuid, accessToken: "t" },
      env: p.only("spotify"),
    });
    expect(secret.status).toBe(404);
    expect(secret.body.message).toBe(SONG_MSG.crateNotFound);
    const missing = await ps(`/exports/spotify`, {
      token: owner.token,
      body: { crateUuid: crypto.randomUUID(), accessToken: "t" },
      env: p.only("spotify"),
    });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(SONG_MSG.crateNotFound);
    expect(calls).toHaveLength(0);
    const off = await ps(`/exports/spotify`, {
      token: owner.token,
      body: { crateUuid, accessToken: "t" },
    });
    expect(off.status).toBe(503);
    expect(off.body.message).toBe("Spotify is not configured on this server.");
  });

  it("401 without a token, 403 for guests, 400 for a bad body", async () => {
    expect((await ps(`/exports/spotify`, { body: { crateUuid, accessToken: "t" } })).status).toBe(
      401,
    );
    expect((await ps(`/exports/apple`, { body: { crateUuid, accessToken: "t" } })).status).toBe(
      401,
    );
    expect(
      (
        await ps(`/exports/spotify`, {
          token: await guestToken(),
          body: { crateUuid, accessToken: "t" },
        })
      ).status,
    ).toBe(403);
    for (const body of [
      {},
      { crateUuid: "nope", accessToken: "t" },
      { crateUuid },
      { crateUuid, accessToken: "" },
      { crateUuid, accessToken: "t", name: " " },
    ]) {
      const r = await ps(`/exports/spotify`, {
        token: owner.token,
        body,
        env: providerEnv().only("spotify"),
      });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe("POST /exports/apple", () => {
  it("creates a library playlist with the developer and user tokens and adds the Apple songs", async () => {
    const p = providerEnv();
    const { calls } = stubFetch([
      [
        `${p.hosts.apple}/v1/me/library/playlists/p.abc/tracks`,
        () => new Response(null, { status: 204 }),
      ],
      [
        `${p.hosts.apple}/v1/me/library/playlists`,
        () => json({ data: [{ id: "p.abc", type: "library-playlists" }] }, 201),
      ],
    ]);
    const r = await ps(`/exports/apple`, {
      token: owner.token,
      body: { crateUuid, accessToken: "music-user-token" },
      env: p.only("apple"),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      provider: "apple",
      playlistUrl: "https://music.apple.com/library/playlist/p.abc",
      added: 2,
      skipped: 3,
    });
    for (const c of calls) {
      expect(c.headers.get("Authorization")).toBe("Bearer apple-dev-token");
      expect(c.headers.get("Music-User-Token")).toBe("music-user-token");
    }
    expect(JSON.parse(calls[0].body!)).toEqual({
      attributes: { name: "Road trip", description: "" },
    });
    expect(JSON.parse(calls[1].body!)).toEqual({
      data: [
        { id: "101", type: "songs" },
        { id: "104", type: "songs" },
      ],
    });
  });

  it("records the export as an audit event", async () => {
    await vi.waitFor(
      async () => {
        const row = await env.DB.prepare(
          "select data from audit_events where user_uuid = ? and topic = 'playlist.export'",
        )
          .bind(owner.uuid)
          .first<{ data: string }>();
        expect(row).not.toBeNull();
      },
      { timeout: 5000, interval: 50 },
    );
  });
});
