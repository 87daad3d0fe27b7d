import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { hlsPlaylistPath } from "../workers/songs/dto";
import { SONG_MSG } from "../workers/songs/messages";
import { guestToken, signUp, type TestAccount } from "./helpers";
import { addSong, fake, json, providerEnv, ps, stubFetch, tokenAnswer } from "./music-stubs";

afterEach(() => vi.restoreAllMocks());

let me: TestAccount;
let guest: string;
beforeAll(async () => {
  me = await signUp();
  guest = await guestToken();
});

const enc = encodeURIComponent;
const SP_ID = "4uLU6hMCjMI75M1A2tKUQC";
const spotifyLink = `https://open.spotify.com/track/${SP_ID}?si=abc`;

function spotifyStub(p: ReturnType<typeof providerEnv>, track: object | null, status = 200) {
  return stubFetch([
    [`${p.hosts.spotifyAccounts}/api/token`, () => tokenAnswer("sp")],
    [
      `${p.hosts.spotify}/v1/tracks/`,
      () => (track ? json(track, status) : json({ error: { status: 404 } }, 404)),
    ],
  ]);
}

describe("GET /song-data/{link}", () => {
  it("resolves a Spotify link to the normalized song (songId null: not in the catalogue)", async () => {
    const p = providerEnv();
    const { calls } = spotifyStub(
      p,
      fake.spotify(9, { id: SP_ID, external_ids: { isrc: "usabc9900001" } }),
    );
    const r = await ps(`/song-data/${enc(spotifyLink)}`, { token: guest, env: p.only("spotify") });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      trackName: "Spot 9",
      artistName: "Spot Artist",
      duration: 790,
      isrc: "USABC9900001",
      explicit: false,
      albumName: "Spot Album",
      thumbnails: { spotify: "https://i.scdn.test/9-300" },
      musicProviders: { spotify: SP_ID },
      links: { spotify: `https://open.spotify.com/track/sp00000000000000000009` },
      previews: [],
      songId: null,
    });
    expect(calls.at(-1)!.url.pathname).toBe(`/v1/tracks/${SP_ID}`);
  });

  it("includes the songId of a local song with the same ISRC (and accepts a link without scheme)", async () => {
    const p = providerEnv();
    const local = await addSong("Known", "Band", { isrc: "USKNOWN00001" });
    spotifyStub(p, fake.spotify(1, { id: SP_ID, external_ids: { isrc: "USKNOWN00001" } }));
    const r = await ps(`/song-data/${enc(`open.spotify.com/track/${SP_ID}`)}`, {
      token: me.token,
      env: p.only("spotify"),
    });
    expect(r.status).toBe(200);
    expect(r.body.songId).toBe(local.songId);
  });

  it("a song without an ISRC is 404 with the catalogue's message", async () => {
    const p = providerEnv();
    stubFetch([
      [
        `${p.hosts.youtube}/videos`,
        () =>
          json({
            items: [
              {
                id: "dQw4w9WgXcQ",
                snippet: { title: "A - B", channelTitle: "C" },
                contentDetails: { duration: "PT3M33S" },
              },
            ],
          }),
      ],
    ]);
    for (const link of [
      "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
      "https://youtu.be/dQw4w9WgXcQ",
    ]) {
      const r = await ps(`/song-data/${enc(link)}`, { token: me.token, env: p.only("youtube") });
      expect(r.status, link).toBe(404);
      expect(r.body).toEqual({
        statusCode: 404,
        message: SONG_MSG.linkNeedsIsrc,
        error: "Not Found",
      });
    }
  });

  it("hosts outside the spec's list are 400; a non-URL is 400", async () => {
    for (const link of ["https://evil.example/track/1", "https://bandcamp.com/track/x"]) {
      const r = await ps(`/song-data/${enc(link)}`, { token: me.token });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(SONG_MSG.unsupportedLink);
    }
    const ftp = await ps(`/song-data/${enc("ftp://open.spotify.com/track/x")}`, {
      token: me.token,
    });
    expect(ftp.status).toBe(400);
    expect(ftp.body.message).toBe("link must be an http or https URL.");
  });

  it("a supported host whose provider is off is 503 naming it; one we have no adapter for likewise", async () => {
    const off = await ps(`/song-data/${enc(spotifyLink)}`, { token: me.token });
    expect(off.status).toBe(503);
    expect(off.body).toEqual({
      statusCode: 503,
      message: "Spotify is not configured on this server.",
      error: "Service Unavailable",
    });
    const deezer = await ps(`/song-data/${enc("https://www.deezer.com/track/3135556")}`, {
      token: me.token,
    });
    expect(deezer.status).toBe(503);
    expect(deezer.body.message).toBe("Deezer links cannot be looked up on this server.");
  });

  it("a provider failure is 502, an unknown track 404", async () => {
    const p = providerEnv();
    spotifyStub(p, { error: "boom" }, 500);
    const down = await ps(`/song-data/${enc(spotifyLink)}`, {
      token: me.token,
      env: p.only("spotify"),
    });
    expect(down.status).toBe(502);
    expect(down.body.message).toBe("Spotify did not answer; please try again.");
    vi.restoreAllMocks();
    spotifyStub(p, null);
    const missing = await ps(`/song-data/${enc(spotifyLink)}`, {
      token: me.token,
      env: p.only("spotify"),
    });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("Spotify has no such track.");
  });

  it("SoundCloud permalinks go through resolve; Apple album links use ?i=", async () => {
    const p = providerEnv();
    const { calls } = stubFetch([
      [`${p.hosts.soundcloudAuth}/oauth/token`, () => tokenAnswer("sc")],
      [
        `${p.hosts.soundcloud}/resolve`,
        () =>
          json({
            kind: "track",
            ...fake.cloud(5, { publisher_metadata: { isrc: "GBCLD0000005" } }),
          }),
      ],
      [
        `${p.hosts.apple}/v1/catalog/gb/songs/1440857781`,
        () =>
          json({
            data: [
              {
                id: "1440857781",
                attributes: {
                  name: "Song",
                  artistName: "Artist",
                  durationInMillis: 200500,
                  isrc: "USAPL0000001",
                  contentRating: "explicit",
                  artwork: { url: "https://a.test/{w}x{h}bb.jpg" },
                  previews: [{ url: "https://p.test/a.m4a" }],
                },
              },
            ],
          }),
      ],
    ]);
    const sc = await ps(`/song-data/${enc("https://soundcloud.com/cloud/track-5")}`, {
      token: me.token,
      env: p.only("soundcloud"),
    });
    expect(sc.status).toBe(200);
    expect(sc.body).toMatchObject({
      trackName: "Cloud 5",
      isrc: "GBCLD0000005",
      musicProviders: { soundCloudPublic: "3005" },
    });
    expect(calls.find((c) => c.url.pathname === "/resolve")!.url.searchParams.get("url")).toBe(
      "https://soundcloud.com/cloud/track-5",
    );
    const ap = await ps(
      `/song-data/${enc("https://music.apple.com/gb/album/x/1440857000?i=1440857781")}`,
      { token: me.token, env: p.only("apple") },
    );
    expect(ap.status).toBe(200);
    expect(ap.body).toMatchObject({
      duration: 201,
      explicit: true,
      thumbnails: { apple: "https://a.test/256x256bb.jpg" },
      previews: ["https://p.test/a.m4a"],
      musicProviders: { apple: "1440857781" },
    });
  });

  it("401 without a token", async () => {
    expect((await ps(`/song-data/${enc(spotifyLink)}`)).status).toBe(401);
    expect((await ps(`/song-data/spotify/${SP_ID}`)).status).toBe(401);
  });
});

describe("GET /song-data/{provider}/{id}", () => {
  it("looks a track up by the provider's id; unknown providers are 400", async () => {
    const p = providerEnv();
    spotifyStub(p, fake.spotify(2, { id: SP_ID }));
    const r = await ps(`/song-data/spotify/${SP_ID}`, { token: me.token, env: p.only("spotify") });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ trackName: "Spot 2", songId: null });
    const bad = await ps(`/song-data/myspace/1`, { token: me.token });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/provider must be one of/);
  });
});

describe("stream and preview", () => {
  it("a VERIFIED local upload streams from its HLS playlist; an unverified one is 403", async () => {
    const ok = await addSong("Upload", "Me", {
      musicProviders: { uploadService: "u1" },
      ownerUuid: me.uuid,
    });
    const r = await ps(`/song-data/stream/US/${ok.songId}?quality=high`, { token: guest });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ url: hlsPlaylistPath(ok.songId), provider: "uploadService" });
    const pre = await ps(`/song-data/preview/us/${ok.songId}`, { token: me.token });
    expect(pre.body).toEqual({ url: hlsPlaylistPath(ok.songId), provider: "uploadService" });

    const pending = await addSong("Pending", "Me", {
      status: "UNVERIFIED",
      musicProviders: { uploadService: "u2" },
      ownerUuid: me.uuid,
    });
    for (const kind of ["stream", "preview"]) {
      const no = await ps(`/song-data/${kind}/US/${pending.songId}`, { token: me.token });
      expect(no.status).toBe(403);
      expect(no.body).toEqual({
        statusCode: 403,
        message: SONG_MSG.notVerified,
        error: "Forbidden",
      });
    }
    expect(
      (await ps(`/song-data/stream/US/${crypto.randomUUID()}`, { token: me.token })).status,
    ).toBe(404);
  });

  it("7digital ids go to that adapter: 503 when it is off, a signed URL when on", async () => {
    const off = await ps(`/song-data/stream/US/12345`, { token: me.token });
    expect(off.status).toBe(503);
    expect(off.body.message).toBe("7digital is not configured on this server.");

    const p = providerEnv();
    const { calls } = stubFetch([
      [
        `${p.hosts.seven}/track/details`,
        (u) =>
          u.searchParams.get("trackId") === "12345"
            ? json({ track: fake.seven(1, { id: 12345 }) })
            : json({}, 404),
      ],
    ]);
    const env = { ...p.only("seven"), SEVEN_DIGITAL_SECRET: "7d-secret" };
    const r = await ps(`/song-data/stream/gb/12345`, { token: me.token, env });
    expect(r.status).toBe(200);
    expect(r.body.provider).toBe("sevenDigital");
    const url = new URL(r.body.url);
    expect(url.origin + url.pathname).toBe("https://stream.svc.7digital.net/stream/catalogue");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      trackId: "12345",
      country: "GB",
      oauth_consumer_key: "7d-key",
      oauth_signature_method: "HMAC-SHA1",
      oauth_signature: expect.any(String),
    });
    expect(calls[0].url.searchParams.get("country")).toBe("GB");

    const pre = await ps(`/song-data/preview/US/12345`, { token: me.token, env });
    expect(new URL(pre.body.url).pathname).toBe("/clip/12345");
    expect((await ps(`/song-data/stream/US/999`, { token: me.token, env })).status).toBe(404);

    // A catalogue song that is not an upload plays from its 7digital id.
    const cat = await addSong("Catalogue", "Band", { musicProviders: { sevenDigital: "12345" } });
    const viaLocal = await ps(`/song-data/stream/US/${cat.songId}`, { token: me.token, env });
    expect(viaLocal.body.provider).toBe("sevenDigital");
  });

  it("bad country, quality or id is 400; no token is 401", async () => {
    const id = crypto.randomUUID();
    expect((await ps(`/song-data/stream/USA/${id}`, { token: me.token })).status).toBe(400);
    const q = await ps(`/song-data/stream/US/${id}?quality=ultra`, { token: me.token });
    expect(q.status).toBe(400);
    expect(q.body.message).toMatch(/quality must be low, medium or high/);
    expect((await ps(`/song-data/stream/US/not-an-id`, { token: me.token })).status).toBe(400);
    expect((await ps(`/song-data/stream/US/${id}`)).status).toBe(401);
    expect((await ps(`/song-data/preview/US/${id}`)).status).toBe(401);
  });
});

describe("POST /song-data/migrate-links", () => {
  it("answers each link as the single lookup would, in order", async () => {
    const p = providerEnv();
    spotifyStub(p, fake.spotify(4, { id: SP_ID }));
    const links = [spotifyLink, "https://evil.example/x", "https://www.deezer.com/track/1"];
    const r = await ps(`/song-data/migrate-links`, {
      token: me.token,
      body: { links },
      env: p.only("spotify"),
    });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      {
        link: spotifyLink,
        status: 200,
        song: expect.objectContaining({ trackName: "Spot 4", songId: null }),
      },
      { link: links[1], status: 400, message: SONG_MSG.unsupportedLink },
      { link: links[2], status: 503, message: "Deezer links cannot be looked up on this server." },
    ]);
  });

  it("needs 1 to 50 strings, and a token", async () => {
    for (const body of [
      {},
      { links: [] },
      { links: "x" },
      { links: [""] },
      { links: Array(51).fill("https://open.spotify.com/track/x") },
    ]) {
      const r = await ps(`/song-data/migrate-links`, { token: me.token, body });
      expect(r.status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    expect((await ps(`/song-data/migrate-links`, { body: { links: [spotifyLink] } })).status).toBe(
      401,
    );
  });
});
