import { env } from "cloudflare:test";
import { vi } from "vitest";
import { api } from "../workers/api";
import { db } from "../workers/db/client";
import { crates, crateSongs, songs } from "../workers/db/schema";
import type { Env } from "../workers/env";
import { newShortId } from "../workers/songs/dto";

/**
 * Music provider stubs at the fetch boundary (DESIGN.md: "Tests stub them at the fetch
 * boundary"), and a client that calls the gateway with provider settings added to the env.
 * Every provider gets a unique host per test, so module-scope token caches never leak
 * between tests.
 */

export type Handler = (url: URL, init: RequestInit | undefined) => Response | Promise<Response>;
export interface Call {
  url: URL;
  method: string;
  body: string | null;
  headers: Headers;
  signal: AbortSignal | null;
}

/** Routes every fetch by URL prefix (or pattern) to a handler; an unrouted fetch fails the test. */
export function stubFetch(routes: [string | RegExp, Handler][]) {
  const calls: Call[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = init?.body === undefined || init.body === null ? null : String(init.body);
    calls.push({
      url,
      method: init?.method ?? "GET",
      body,
      headers: new Headers(init?.headers),
      signal: init?.signal ?? null,
    });
    for (const [m, h] of routes)
      if (typeof m === "string" ? url.href.startsWith(m) : m.test(url.href)) return h(url, init);
    throw new Error(`unrouted fetch in test: ${url.href}`);
  });
  const count = (prefix: string) => calls.filter((c) => c.url.href.startsWith(prefix)).length;
  return { calls, count };
}

export const json = (body: unknown, status = 200) => Response.json(body, { status });

let n = 0;
/** A fresh, unique host per provider per call. */
export function providerEnv(tag = `t${n++}${Math.random().toString(36).slice(2, 6)}`) {
  const hosts = {
    spotify: `https://api.spotify-${tag}.test`,
    spotifyAccounts: `https://accounts.spotify-${tag}.test`,
    soundcloud: `https://api.soundcloud-${tag}.test`,
    soundcloudAuth: `https://secure.soundcloud-${tag}.test`,
    seven: `https://api.7digital-${tag}.test/1.2`,
    apple: `https://api.music.apple-${tag}.test`,
    youtube: `https://youtube-${tag}.test/youtube/v3`,
    audius: `https://audius-${tag}.test`,
  };
  const all: Partial<Env> = {
    SPOTIFY_API_URL: hosts.spotify,
    SPOTIFY_ACCOUNTS_URL: hosts.spotifyAccounts,
    SPOTIFY_CLIENT_ID: `sp-${tag}`,
    SPOTIFY_CLIENT_SECRET: "sp-secret",
    SOUNDCLOUD_API_URL: hosts.soundcloud,
    SOUNDCLOUD_AUTH_URL: hosts.soundcloudAuth,
    SOUNDCLOUD_CLIENT_ID: `sc-${tag}`,
    SOUNDCLOUD_CLIENT_SECRET: "sc-secret",
    SEVEN_DIGITAL_API_URL: hosts.seven,
    SEVEN_DIGITAL_KEY: "7d-key",
    APPLE_MUSIC_API_URL: hosts.apple,
    APPLE_MUSIC_TOKEN: "apple-dev-token",
    YOUTUBE_API_URL: hosts.youtube,
    YOUTUBE_API_KEY: "yt-key",
    AUDIUS_API_URL: hosts.audius,
  };
  /** Only the named providers' settings. */
  const only = (
    ...names: ("spotify" | "soundcloud" | "seven" | "apple" | "youtube" | "audius")[]
  ) => {
    const pick: Partial<Env> = {};
    const prefixes = {
      spotify: "SPOTIFY_",
      soundcloud: "SOUNDCLOUD_",
      seven: "SEVEN_DIGITAL_",
      apple: "APPLE_MUSIC_",
      youtube: "YOUTUBE_",
      audius: "AUDIUS_",
    };
    for (const name of names)
      for (const [k, v] of Object.entries(all))
        if (k.startsWith(prefixes[name])) (pick as Record<string, unknown>)[k] = v;
    return pick;
  };
  return { hosts, all, only };
}

/** Calls `/api/playlist-service<path>` on the gateway with `over` merged into the env. */
export async function ps(
  path: string,
  o: { token?: string; body?: unknown; method?: string; env?: Partial<Env> } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (o.token) headers.Authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await api.request(
    `/api/playlist-service${path}`,
    {
      method: o.method ?? (o.body !== undefined ? "POST" : "GET"),
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    },
    { ...env, ...o.env } as Env,
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A catalogue song row (VERIFIED and public unless `extra` says otherwise). */
export const addSong = (
  trackName: string,
  artistName: string,
  extra: Partial<typeof songs.$inferInsert> = {},
) =>
  db(env)
    .insert(songs)
    .values({
      songId: crypto.randomUUID(),
      songShortId: newShortId(),
      trackName,
      artistName,
      duration: 200,
      status: "VERIFIED",
      isPublic: true,
      ...extra,
    })
    .returning()
    .get();

/** A crate owned by `userUuid` holding `songIds` (row ids) in order. */
export async function addCrate(userUuid: string, songRowIds: number[], crateName = "Road trip") {
  const crate = await db(env)
    .insert(crates)
    .values({ crateUuid: crypto.randomUUID(), userUuid, crateName })
    .returning()
    .get();
  if (songRowIds.length) {
    await db(env)
      .insert(crateSongs)
      .values(
        songRowIds.map((songId, position) => ({
          crateSongUuid: crypto.randomUUID(),
          crateId: crate.id,
          songId,
          position,
        })),
      );
  }
  return crate;
}

/** Canned provider tracks. */
export const fake = {
  seven: (i: number, over: Record<string, unknown> = {}) => ({
    id: 7000 + i,
    title: `Seven ${i}`,
    artist: { name: "Seven Artist" },
    release: { title: "Seven Album", image: `https://artwork.test/sleeve/${i}_50.jpg` },
    duration: 100 + i * 10,
    explicitContent: false,
    isrc: `GBSEV00000${i.toString().padStart(2, "0")}`,
    url: `https://7digital.test/track/${i}`,
    ...over,
  }),
  cloud: (i: number, over: Record<string, unknown> = {}) => ({
    id: 3000 + i,
    title: `Cloud ${i}`,
    user: { username: "Cloud Artist" },
    duration: (400 + i * 10) * 1000,
    artwork_url: `https://sndcdn.test/art-${i}-large.jpg`,
    permalink_url: `https://soundcloud.com/cloud/${i}`,
    ...over,
  }),
  spotify: (i: number, over: Record<string, unknown> = {}) => ({
    id: `sp${String(i).padStart(20, "0")}`,
    name: `Spot ${i}`,
    artists: [{ name: "Spot Artist" }],
    duration_ms: (700 + i * 10) * 1000,
    explicit: false,
    album: {
      name: "Spot Album",
      images: [
        { url: `https://i.scdn.test/${i}-640`, width: 640 },
        { url: `https://i.scdn.test/${i}-300`, width: 300 },
      ],
    },
    external_ids: { isrc: `USSPT00000${i.toString().padStart(2, "0")}` },
    external_urls: { spotify: `https://open.spotify.com/track/sp${String(i).padStart(20, "0")}` },
    preview_url: null,
    ...over,
  }),
};

export const tokenAnswer = (token: string) =>
  json({ access_token: token, token_type: "bearer", expires_in: 3600 });
