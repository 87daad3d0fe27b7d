import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PROVIDER_TIMEOUT_MS } from "../workers/adapters/music/http";
import { callWith, signUp, type TestAccount } from "./helpers";
import {
  addSong,
  fake,
  json,
  providerEnv,
  ps,
  stubFetch,
  tokenAnswer,
  type Handler,
} from "./music-stubs";

afterEach(() => vi.restoreAllMocks());

let me: TestAccount;
beforeAll(async () => {
  me = await signUp();
});

const uniq = () => `pq${crypto.randomUUID().replace(/-/g, "").slice(0, 8)}`;
const names = (r: { body: { songs: { trackName: string }[] } }) =>
  r.body.songs.map((s) => s.trackName);

/** Canned answers for each provider's search, in its own JSON shape. */
function providerRoutes(
  p: ReturnType<typeof providerEnv>,
  o: { seven?: object[]; cloud?: object[]; spotify?: object[]; youtube?: string[] } = {},
): [string, Handler][] {
  return [
    [
      `${p.hosts.seven}/track/search`,
      () =>
        json({
          status: "ok",
          searchResults: {
            totalItems: o.seven?.length ?? 0,
            searchResult: (o.seven ?? []).map((track) => ({ type: "track", track })),
          },
        }),
    ],
    [`${p.hosts.soundcloudAuth}/oauth/token`, () => tokenAnswer("sc-token")],
    [`${p.hosts.soundcloud}/tracks`, () => json({ collection: o.cloud ?? [], next_href: null })],
    [`${p.hosts.spotifyAccounts}/api/token`, () => tokenAnswer("sp-token")],
    [
      `${p.hosts.spotify}/v1/search`,
      () => json({ tracks: { items: o.spotify ?? [], total: o.spotify?.length ?? 0 } }),
    ],
    [
      `${p.hosts.youtube}/search`,
      () =>
        json({
          items: (o.youtube ?? []).map((videoId) => ({ id: { videoId } })),
          pageInfo: { totalResults: o.youtube?.length ?? 0 },
        }),
    ],
    [
      `${p.hosts.youtube}/videos`,
      (url) =>
        json({
          items: url.searchParams
            .get("id")!
            .split(",")
            .map((id) => ({
              id,
              snippet: { title: `Tube Artist - Tube ${id}`, channelTitle: "Tube" },
              contentDetails: { duration: "PT20M" },
            })),
        }),
    ],
  ];
}

describe("merge order", () => {
  it("hangout: local first, 7digital 1-5, then 7digital and SoundCloud alternating, then the rest by priority", async () => {
    const q = uniq();
    await addSong(`Local ${q}`, "Local Band");
    const p = providerEnv();
    stubFetch(
      providerRoutes(p, {
        seven: Array.from({ length: 8 }, (_, i) => fake.seven(i)),
        cloud: Array.from({ length: 4 }, (_, i) => fake.cloud(i)),
        spotify: [fake.spotify(0), fake.spotify(1)],
        youtube: ["tubeid00001"],
      }),
    );
    const r = await ps(`/search?q=${q}`, {
      token: me.token,
      env: p.only("seven", "soundcloud", "spotify", "youtube"),
    });
    expect(r.status).toBe(200);
    expect(r.body.providers).toEqual({
      local: "on",
      sevenDigital: "on",
      soundCloudPublic: "on",
      audius: "off",
      spotify: "on",
      apple: "off",
      youtube: "on",
    });
    expect(names(r)).toEqual([
      `Local ${q}`,
      "Seven 0",
      "Seven 1",
      "Seven 2",
      "Seven 3",
      "Seven 4",
      "Seven 5",
      "Cloud 0",
      "Seven 6",
      "Cloud 1",
      "Seven 7",
      "Cloud 2",
      "Cloud 3",
      "Spot 0",
      "Spot 1",
      "Tube tubeid00001",
    ]);
    // Provider results are normalized songs without a songId (imported before use).
    const seven = r.body.songs[1];
    expect(seven).toEqual({
      trackName: "Seven 0",
      artistName: "Seven Artist",
      duration: 100,
      isrc: "GBSEV0000000",
      explicit: false,
      albumName: "Seven Album",
      thumbnails: { sevenDigital: "https://artwork.test/sleeve/0_350.jpg" },
      musicProviders: { sevenDigital: "7000" },
      links: { sevenDigital: "https://7digital.test/track/0" },
      previews: [],
    });
    expect(r.body.songs[7]).toMatchObject({
      trackName: "Cloud 0",
      duration: 400,
      musicProviders: { soundCloudPublic: "3000" },
      thumbnails: { soundCloudPublic: "https://sndcdn.test/art-0-t300x300.jpg" },
    });
    expect(r.body.songs[15]).toMatchObject({
      trackName: "Tube tubeid00001",
      artistName: "Tube Artist",
      duration: 1200,
    });
  });

  it("turntable: the default priority (Spotify, Apple, YouTube, SoundCloud, Audius), 7digital last", async () => {
    const q = uniq();
    const p = providerEnv();
    stubFetch(
      providerRoutes(p, {
        seven: [fake.seven(0), fake.seven(1)],
        cloud: [fake.cloud(0)],
        spotify: [fake.spotify(0)],
        youtube: ["tubeid00002"],
      }),
    );
    const r = await ps(`/search?q=${q}`, {
      token: me.token,
      env: { ...p.only("seven", "soundcloud", "spotify", "youtube"), BRAND: "turntable" },
    });
    expect(names(r)).toEqual(["Spot 0", "Tube tubeid00002", "Cloud 0", "Seven 0", "Seven 1"]);
  });

  it("v2 reports totals of the sources that answered and the next offset", async () => {
    const q = uniq();
    const p = providerEnv();
    stubFetch(
      providerRoutes(p, {
        seven: Array.from({ length: 3 }, (_, i) => fake.seven(i)),
        cloud: [fake.cloud(0), fake.cloud(1)],
      }),
    );
    const r = await ps(`/search/v2?q=${q}&limit=2`, {
      token: me.token,
      env: p.only("seven", "soundcloud"),
    });
    expect(r.body.total).toEqual({ local: 0, sevenDigital: 3, soundCloudPublic: null });
    expect(r.body.next).toBe(2);
  });
});

describe("token refresh", () => {
  it("SoundCloud 401: the token is refreshed once and the search retried once", async () => {
    const p = providerEnv();
    let tokens = 0;
    const { count } = stubFetch([
      [`${p.hosts.soundcloudAuth}/oauth/token`, () => tokenAnswer(`tok${++tokens}`)],
      [
        `${p.hosts.soundcloud}/tracks`,
        (_u, init) =>
          new Headers(init?.headers).get("Authorization") === "OAuth tok1"
            ? json({}, 401)
            : json({ collection: [fake.cloud(0)] }),
      ],
    ]);
    const r = await ps(`/search?q=${uniq()}`, { token: me.token, env: p.only("soundcloud") });
    expect(r.body.providers.soundCloudPublic).toBe("on");
    expect(names(r)).toEqual(["Cloud 0"]);
    expect(count(`${p.hosts.soundcloud}/tracks`)).toBe(2);
    expect(count(`${p.hosts.soundcloudAuth}/oauth/token`)).toBe(2);
    // The fresh token is cached: the next search asks for none.
    await ps(`/search?q=${uniq()}`, { token: me.token, env: p.only("soundcloud") });
    expect(count(`${p.hosts.soundcloudAuth}/oauth/token`)).toBe(2);
  });

  it("SoundCloud refusing twice (401, then 403) is an error after exactly one retry, not a loop", async () => {
    for (const second of [401, 403]) {
      const p = providerEnv();
      let tokens = 0;
      const { count } = stubFetch([
        [`${p.hosts.soundcloudAuth}/oauth/token`, () => tokenAnswer(`tok${++tokens}`)],
        [`${p.hosts.soundcloud}/tracks`, () => json({}, tokens === 1 ? 401 : second)],
      ]);
      const r = await ps(`/search?q=${uniq()}`, { token: me.token, env: p.only("soundcloud") });
      expect(r.status).toBe(200);
      expect(r.body.providers.soundCloudPublic).toBe("error");
      expect(count(`${p.hosts.soundcloud}/tracks`)).toBe(2);
      expect(count(`${p.hosts.soundcloudAuth}/oauth/token`)).toBe(2);
      vi.restoreAllMocks();
    }
  });

  it("SoundCloud: concurrent searches and GET /soundcloud/public-token share one app token; concurrent refusals one refresh", async () => {
    const p = providerEnv();
    const tokenUrl = `${p.hosts.soundcloudAuth}/oauth/token`;
    let tokens = 0;
    const refused = new Set<string>();
    const { count } = stubFetch([
      [tokenUrl, () => tokenAnswer(`tok${++tokens}`)],
      [
        `${p.hosts.soundcloud}/tracks`,
        (_u, init) =>
          refused.has(new Headers(init?.headers).get("Authorization") ?? "")
            ? json({}, 401)
            : json({ collection: [fake.cloud(0)] }),
      ],
    ]);
    const env = p.only("soundcloud");
    const many = () =>
      Promise.all(
        Array.from({ length: 8 }, () => ps(`/search?q=${uniq()}`, { token: me.token, env })),
      );
    for (const r of await many()) expect(r.body.providers.soundCloudPublic).toBe("on");
    expect(count(tokenUrl)).toBe(1);
    // The app token the API hands the clients is the same one: no second request.
    const pub = await callWith(env, "user-service", "/soundcloud/public-token", {
      token: me.token,
    });
    expect(pub.body.accessToken).toBe("tok1");
    expect(count(tokenUrl)).toBe(1);
    // SoundCloud stops taking tok1: every search is refused once, and one new token serves all.
    refused.add("OAuth tok1");
    for (const r of await many()) expect(names(r)).toEqual(["Cloud 0"]);
    expect(count(tokenUrl)).toBe(2);
    const after = await callWith(env, "user-service", "/soundcloud/public-token", {
      token: me.token,
    });
    expect(after.body.accessToken).toBe("tok2");
  });

  it("Spotify 401: refreshed once with client credentials, then answers", async () => {
    const p = providerEnv();
    let tokens = 0;
    const { count, calls } = stubFetch([
      [`${p.hosts.spotifyAccounts}/api/token`, () => tokenAnswer(`sp${++tokens}`)],
      [
        `${p.hosts.spotify}/v1/search`,
        (_u, init) =>
          new Headers(init?.headers).get("Authorization") === "Bearer sp1"
            ? json({}, 401)
            : json({ tracks: { items: [fake.spotify(3)], total: 1 } }),
      ],
    ]);
    const r = await ps(`/search?q=${uniq()}&country=de`, {
      token: me.token,
      env: p.only("spotify"),
    });
    expect(r.body.providers.spotify).toBe("on");
    expect(names(r)).toEqual(["Spot 3"]);
    expect(count(`${p.hosts.spotify}/v1/search`)).toBe(2);
    expect(count(`${p.hosts.spotifyAccounts}/api/token`)).toBe(2);
    const tokenCall = calls.find((c) =>
      c.url.href.startsWith(`${p.hosts.spotifyAccounts}/api/token`),
    )!;
    expect(tokenCall.method).toBe("POST");
    expect(tokenCall.body).toBe("grant_type=client_credentials");
    expect(tokenCall.headers.get("Authorization")).toBe(
      `Basic ${btoa(`${p.all.SPOTIFY_CLIENT_ID}:sp-secret`)}`,
    );
    const search = calls.find((c) => c.url.pathname === "/v1/search")!;
    expect(Object.fromEntries(search.url.searchParams)).toMatchObject({
      type: "track",
      offset: "0",
      limit: "20",
      market: "DE",
    });
  });

  it("Spotify refusing a 403 is not retried (only 401 means a stale token there)", async () => {
    const p = providerEnv();
    const { count } = stubFetch([
      [`${p.hosts.spotifyAccounts}/api/token`, () => tokenAnswer("sp")],
      [`${p.hosts.spotify}/v1/search`, () => json({}, 403)],
    ]);
    const r = await ps(`/search?q=${uniq()}`, { token: me.token, env: p.only("spotify") });
    expect(r.body.providers.spotify).toBe("error");
    expect(count(`${p.hosts.spotify}/v1/search`)).toBe(1);
  });
});

describe("a failing provider never fails the search", () => {
  it("a timeout, a refused token request and a server error are 'error'; the others still answer", async () => {
    const q = uniq();
    await addSong(`Local ${q}`, "Local Band");
    const p = providerEnv();
    const { calls } = stubFetch([
      ...providerRoutes(p, { seven: [fake.seven(0)] }).filter(([m]) =>
        String(m).startsWith(p.hosts.seven),
      ),
      [`${p.hosts.spotifyAccounts}/api/token`, () => tokenAnswer("sp")],
      [
        `${p.hosts.spotify}/v1/search`,
        () => Promise.reject(new DOMException("The operation timed out.", "TimeoutError")),
      ],
      [`${p.hosts.soundcloudAuth}/oauth/token`, () => json({ error: "down" }, 500)],
      [`${p.hosts.apple}/`, () => new Response("<html>oops</html>", { status: 200 })],
      [`${p.hosts.audius}/`, () => Promise.reject(new TypeError("Network connection lost."))],
      [`${p.hosts.youtube}/`, () => json({}, 500)],
    ]);
    const r = await ps(`/search?q=${q}`, { token: me.token, env: p.all });
    expect(r.status).toBe(200);
    expect(r.body.providers).toEqual({
      local: "on",
      sevenDigital: "on",
      soundCloudPublic: "error",
      audius: "error",
      spotify: "error",
      apple: "error",
      youtube: "error",
    });
    expect(names(r)).toEqual([`Local ${q}`, "Seven 0"]);
    // Every provider request carries a time limit.
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.signal, c.url.href).toBeInstanceOf(AbortSignal);
    expect(PROVIDER_TIMEOUT_MS).toBe(5000);
  });
});

describe("duplicates and explicit songs", () => {
  it("drops a provider song that is a local one, and folds one provider's twin into another's", async () => {
    const q = uniq();
    const local = await addSong(`Local ${q}`, "Local Band", { isrc: "GBSEV0000001" });
    const p = providerEnv();
    stubFetch(
      providerRoutes(p, {
        seven: [fake.seven(0), fake.seven(1)],
        // Same ISRC as Seven 0: the same recording at Spotify.
        spotify: [fake.spotify(0, { external_ids: { isrc: "GBSEV0000000" } }), fake.spotify(1)],
      }),
    );
    const r = await ps(`/search?q=${q}`, { token: me.token, env: p.only("seven", "spotify") });
    expect(names(r)).toEqual([`Local ${q}`, "Seven 0", "Spot 1"]);
    expect(r.body.songs[0].songId).toBe(local.songId);
    expect(r.body.songs[1].musicProviders).toEqual({
      sevenDigital: "7000",
      spotify: fake.spotify(0).id,
    });
    expect(r.body.songs[1].thumbnails).toEqual({
      sevenDigital: "https://artwork.test/sleeve/0_350.jpg",
      spotify: "https://i.scdn.test/0-300",
    });
  });

  it("explicit=false filters explicit provider songs too", async () => {
    const q = uniq();
    const p = providerEnv();
    stubFetch(
      providerRoutes(p, {
        seven: [fake.seven(0, { explicitContent: true }), fake.seven(1)],
        spotify: [fake.spotify(0, { explicit: true }), fake.spotify(1)],
      }),
    );
    const clean = await ps(`/search?q=${q}&explicit=false`, {
      token: me.token,
      env: p.only("seven", "spotify"),
    });
    expect(names(clean)).toEqual(["Seven 1", "Spot 1"]);
    const all = await ps(`/search?q=${q}&explicit=true`, {
      token: me.token,
      env: p.only("seven", "spotify"),
    });
    expect(names(all)).toEqual(["Seven 0", "Seven 1", "Spot 0", "Spot 1"]);
  });

  it("providers= restricts the sources asked", async () => {
    const p = providerEnv();
    const { count } = stubFetch(
      providerRoutes(p, { seven: [fake.seven(0)], spotify: [fake.spotify(0)] }),
    );
    const r = await ps(`/search?q=${uniq()}&providers=spotify`, {
      token: me.token,
      env: p.only("seven", "spotify"),
    });
    expect(r.body.providers).toMatchObject({ local: "off", sevenDigital: "off", spotify: "on" });
    expect(names(r)).toEqual(["Spot 0"]);
    expect(count(p.hosts.seven)).toBe(0);
  });
});
