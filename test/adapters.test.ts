import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MUSIC_ADAPTERS, providerForHost } from "../workers/adapters/music";
import { audius, normalizeAudius } from "../workers/adapters/music/audius";
import {
  clientCredentials,
  joinUrl,
  providerJson,
  ProviderError,
} from "../workers/adapters/music/http";
import { signedUrl } from "../workers/adapters/music/seven-digital";
import { soundCloud } from "../workers/adapters/music/soundcloud";
import { spotify } from "../workers/adapters/music/spotify";
import { isoDurationSeconds, youTubeId } from "../workers/adapters/music/youtube";
import type { Env } from "../workers/env";
import { lazyModule } from "../workers/lib/lazy-module";
import { orderProviderResults } from "../workers/playlist-service/search-merge";
import { fake, json, providerEnv, stubFetch, tokenAnswer } from "./music-stubs";

afterEach(() => vi.restoreAllMocks());

const withEnv = (over: Partial<Env>) => ({ ...env, ...over }) as Env;

describe("adapter configuration", () => {
  it("every adapter is off with nothing configured, and on with its settings", () => {
    const p = providerEnv();
    for (const a of MUSIC_ADAPTERS) {
      expect(a.enabled(env as Env), a.key).toBe(false);
      expect(a.enabled(withEnv(p.all)), a.key).toBe(true);
    }
    // Audius needs only its URL; Spotify needs all four settings.
    expect(audius.enabled(withEnv({ AUDIUS_API_URL: "https://a.test" }))).toBe(true);
    expect(
      spotify.enabled(withEnv({ SPOTIFY_API_URL: "https://s.test", SPOTIFY_CLIENT_ID: "x" })),
    ).toBe(false);
  });

  it("joins base URLs with or without slashes and drops empty query values", () => {
    expect(
      joinUrl("https://x.test/1.2/", "/track/search", {
        q: "a b",
        page: 1,
        none: undefined,
        empty: "",
      }),
    ).toBe("https://x.test/1.2/track/search?q=a+b&page=1");
  });
});

describe("the http helper", () => {
  it("times out a provider that does not answer within 5 s", { timeout: 15_000 }, async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(
      (_input, init) =>
        new Promise((_resolve, reject) =>
          init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)),
        ),
    );
    const started = Date.now();
    const err = (await providerJson("Slow", "https://slow.test/x").catch(
      (e: unknown) => e,
    )) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.message).toBe("Slow: timed out");
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
  });

  it("404 is null (no such track), other failures are ProviderErrors with the status", async () => {
    stubFetch([
      ["https://p.test/missing", () => json({}, 404)],
      ["https://p.test/broken", () => json({}, 503)],
    ]);
    expect(await providerJson("P", "https://p.test/missing")).toBeNull();
    await expect(providerJson("P", "https://p.test/broken")).rejects.toMatchObject({ status: 503 });
  });

  it("concurrent callers share one token request; a failed one is not cached", async () => {
    let asked = 0;
    const key = `k-${crypto.randomUUID()}`;
    const get = clientCredentials("P", key, async () => {
      asked++;
      if (asked === 1) throw new Error("down");
      return { token: `t${asked}`, expiresIn: 3600 };
    });
    await expect(get(false)).rejects.toBeInstanceOf(ProviderError);
    expect(await Promise.all([get(false), get(false), get(false)])).toEqual(["t2", "t2", "t2"]);
    expect(asked).toBe(2);
    expect(await get(true)).toBe("t3");
  });
});

describe("provider calls named by the spec", () => {
  it("Spotify search by ISRC asks q=isrc:X for one track", async () => {
    const p = providerEnv();
    const { calls } = stubFetch([
      [`${p.hosts.spotifyAccounts}/api/token`, () => tokenAnswer("sp")],
      [
        `${p.hosts.spotify}/v1/search`,
        () => json({ tracks: { items: [fake.spotify(1)], total: 1 } }),
      ],
    ]);
    const song = await spotify.byIsrc(withEnv(p.only("spotify")), "usspt0000001");
    expect(song?.musicProviders.spotify).toBe(fake.spotify(1).id);
    const q = calls.find((c) => c.url.pathname === "/v1/search")!.url.searchParams;
    expect([q.get("q"), q.get("type"), q.get("limit")]).toEqual([
      "isrc:USSPT0000001",
      "track",
      "1",
    ]);
    expect(await spotify.byIsrc(withEnv(p.only("spotify")), "not an isrc")).toBeNull();
  });

  it("SoundCloud search sends q, offset, limit and linked_partitioning with the OAuth token", async () => {
    const p = providerEnv();
    const { calls } = stubFetch([
      [`${p.hosts.soundcloudAuth}/oauth/token`, () => tokenAnswer("sc-tok")],
      [`${p.hosts.soundcloud}/tracks`, () => json({ collection: [fake.cloud(1)] })],
    ]);
    await soundCloud.search(withEnv(p.only("soundcloud")), {
      q: "lofi",
      offset: 40,
      limit: 20,
      explicit: true,
      country: "US",
    });
    const token = calls[0];
    expect(new URLSearchParams(token.body!).get("grant_type")).toBe("client_credentials");
    const search = calls[1];
    expect(Object.fromEntries(search.url.searchParams)).toEqual({
      q: "lofi",
      offset: "40",
      limit: "20",
      linked_partitioning: "true",
    });
    expect(search.headers.get("Authorization")).toBe("OAuth sc-tok");
  });

  it("SoundCloud streams pick HLS for medium/high and progressive MP3 for low", async () => {
    const p = providerEnv();
    stubFetch([
      [`${p.hosts.soundcloudAuth}/oauth/token`, () => tokenAnswer("sc")],
      [
        `${p.hosts.soundcloud}/tracks/42/streams`,
        () =>
          json({
            http_mp3_128_url: "https://cf.test/a.mp3",
            hls_mp3_128_url: "https://cf.test/a.m3u8",
            preview_mp3_128_url: "https://cf.test/p.mp3",
          }),
      ],
    ]);
    const e = withEnv(p.only("soundcloud"));
    expect(await soundCloud.stream!(e, "42", { country: "US", quality: "medium" })).toBe(
      "https://cf.test/a.m3u8",
    );
    expect(await soundCloud.stream!(e, "42", { country: "US", quality: "low" })).toBe(
      "https://cf.test/a.mp3",
    );
    expect(await soundCloud.preview!(e, "42", { country: "US" })).toBe("https://cf.test/p.mp3");
  });

  it("Audius: tracks/search?query, tracks/{id}, and the /stream URL", async () => {
    const p = providerEnv();
    const track = {
      id: "D7KyD",
      title: "Tune",
      duration: 187,
      user: { name: "Dj" },
      artwork: { "480x480": "https://img.test/480" },
      permalink: "/dj/tune",
    };
    const { calls } = stubFetch([
      [`${p.hosts.audius}/v1/tracks/search`, () => json({ data: [track] })],
      [`${p.hosts.audius}/v1/tracks/D7KyD`, () => json({ data: track })],
    ]);
    const e = withEnv(p.only("audius"));
    const found = await audius.search(e, {
      q: "tune",
      offset: 0,
      limit: 5,
      explicit: true,
      country: "US",
    });
    expect(found.songs[0]).toEqual(normalizeAudius(track));
    expect(found.songs[0]).toMatchObject({
      duration: 187,
      links: { audius: "https://audius.co/dj/tune" },
      thumbnails: { audius: "https://img.test/480" },
    });
    expect(calls[0].url.searchParams.get("query")).toBe("tune");
    expect((await audius.track(e, "D7KyD"))?.trackName).toBe("Tune");
    expect(await audius.stream!(e, "D7KyD", { country: "US", quality: "medium" })).toBe(
      `${p.hosts.audius}/v1/tracks/D7KyD/stream?app_name=hangout`,
    );
  });

  it("Apple search asks for songs, term, offset and at most 25", async () => {
    const p = providerEnv();
    const { calls } = stubFetch([
      [`${p.hosts.apple}/v1/catalog/fr/search`, () => json({ results: { songs: { data: [] } } })],
    ]);
    const apple = MUSIC_ADAPTERS.find((a) => a.key === "apple")!;
    await apple.search(withEnv(p.only("apple")), {
      q: "daft",
      offset: 25,
      limit: 50,
      explicit: true,
      country: "FR",
    });
    expect(Object.fromEntries(calls[0].url.searchParams)).toEqual({
      term: "daft",
      types: "songs",
      limit: "25",
      offset: "25",
    });
    expect(calls[0].headers.get("Authorization")).toBe("Bearer apple-dev-token");
  });
});

describe("parsing", () => {
  it("reads ISO-8601 durations", () => {
    expect(isoDurationSeconds("PT3M33S")).toBe(213);
    expect(isoDurationSeconds("PT1H")).toBe(3600);
    expect(isoDurationSeconds("PT45S")).toBe(45);
    expect(isoDurationSeconds("P1DT1M")).toBe(86460);
    expect(isoDurationSeconds("P0D")).toBe(0);
    expect(isoDurationSeconds("3:33")).toBe(0);
    expect(isoDurationSeconds(undefined)).toBe(0);
  });

  it("finds YouTube video ids in the link shapes people share", () => {
    expect(youTubeId(new URL("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=1"))).toBe(
      "dQw4w9WgXcQ",
    );
    expect(youTubeId(new URL("https://youtu.be/dQw4w9WgXcQ?si=x"))).toBe("dQw4w9WgXcQ");
    expect(youTubeId(new URL("https://music.youtube.com/watch?v=dQw4w9WgXcQ"))).toBe("dQw4w9WgXcQ");
    expect(youTubeId(new URL("https://www.youtube.com/shorts/dQw4w9WgXcQ"))).toBe("dQw4w9WgXcQ");
    expect(youTubeId(new URL("https://www.youtube.com/channel/abc"))).toBeNull();
  });

  it("maps link hosts the way the spec lists them", () => {
    expect(providerForHost("open.spotify.com")?.adapter?.key).toBe("spotify");
    expect(providerForHost("music.apple.com")?.adapter?.key).toBe("apple");
    expect(providerForHost("m.soundcloud.com")?.adapter?.key).toBe("soundCloudPublic");
    expect(providerForHost("youtu.be")?.adapter?.key).toBe("youtube");
    expect(providerForHost("www.amazon.com")).toMatchObject({
      host: "amazon",
      name: "Amazon Music",
      adapter: undefined,
    });
    expect(providerForHost("bandcamp.com")).toBeNull();
  });

  it("signs 7digital media URLs only when there is a secret", async () => {
    const plain = new URL(
      await signedUrl("https://previews.test/clip/1", { country: "US" }, "key", undefined),
    );
    expect(Object.fromEntries(plain.searchParams)).toEqual({
      country: "US",
      oauth_consumer_key: "key",
    });
    const signed = new URL(
      await signedUrl("https://previews.test/clip/1", { country: "US" }, "key", "secret"),
    );
    expect(signed.searchParams.get("oauth_signature")).toMatch(/^[A-Za-z0-9+/]{27}=$/);
    expect(signed.searchParams.get("oauth_signature_method")).toBe("HMAC-SHA1");
  });

  it("orders hangout results 7digital x5, then alternating with SoundCloud", () => {
    const mk = (k: "sevenDigital" | "soundCloudPublic", i: number) => ({
      trackName: `${k}${i}`,
      artistName: "",
      duration: i,
      isrc: null,
      explicit: false,
      albumName: null,
      thumbnails: {},
      musicProviders: { [k]: String(i) },
      links: {},
      previews: [],
    });
    const order = orderProviderResults("hangout", {
      sevenDigital: [0, 1, 2, 3, 4, 5].map((i) => mk("sevenDigital", i)),
      soundCloudPublic: [0, 1, 2].map((i) => mk("soundCloudPublic", i)),
    });
    expect(order.map((s) => s.trackName)).toEqual([
      "sevenDigital0",
      "sevenDigital1",
      "sevenDigital2",
      "sevenDigital3",
      "sevenDigital4",
      "sevenDigital5",
      "soundCloudPublic0",
      "soundCloudPublic1",
      "soundCloudPublic2",
    ]);
    expect(
      orderProviderResults("hangout", { soundCloudPublic: [mk("soundCloudPublic", 0)] }).map(
        (s) => s.trackName,
      ),
    ).toEqual(["soundCloudPublic0"]);
  });
});

describe("lazy libraries (lib/lazy-module.ts)", () => {
  it("loads once for any number of concurrent and later callers", async () => {
    let loads = 0;
    const load = lazyModule(async () => ({ n: ++loads }));
    const first = await Promise.all([load(), load(), load()]);
    expect(first.map((m) => m.n)).toEqual([1, 1, 1]);
    expect((await load()).n).toBe(1);
    expect(loads).toBe(1);
  });

  it("forgets a failed load, so the next caller tries again", async () => {
    let loads = 0;
    const load = lazyModule(async () => {
      if (++loads === 1) throw new Error("first load fails");
      return { n: loads };
    });
    await expect(load()).rejects.toThrow("first load fails");
    expect((await load()).n).toBe(2);
    expect((await load()).n).toBe(2);
  });
});
