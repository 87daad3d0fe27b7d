import type { Env } from "../../env";
import { appleDeveloperToken, appleKeyConfigured } from "../apple-developer-token";
import { joinUrl, providerJson, ProviderError, type TokenSource } from "./http";
import { defined, seconds, str, yearOf, type MusicAdapter, type ProviderSong } from "./types";

/**
 * Apple Music API (seed 001, Third-party provider calls): catalog search (limit 25, types
 * songs, term, offset) with the developer token. The developer token is a long-lived JWT
 * made here from the team's key (adapters/apple-developer-token.ts) or given ready-made
 * (APPLE_MUSIC_TOKEN), so there is nothing to refresh: a 401 is an error.
 */
const NAME = "Apple Music";
/** Apple's catalog search answers at most 25 per page (the spec's "limit 25"). */
export const APPLE_SEARCH_LIMIT = 25;

const developer = (env: Env): TokenSource => ({
  retryOn: [],
  get: async () => (await appleDeveloperToken(env)) ?? "",
  header: (t) => ({ Authorization: `Bearer ${t}` }),
});

/** Whether the catalogue API can be called: its URL and a developer token (made or given). */
export const appleEnabled = (env: Env) =>
  !!(env.APPLE_MUSIC_API_URL && (env.APPLE_MUSIC_TOKEN || appleKeyConfigured(env)));

interface AppleSong {
  id?: string;
  attributes?: {
    name?: string;
    artistName?: string;
    albumName?: string;
    genreNames?: string[];
    releaseDate?: string;
    durationInMillis?: number;
    isrc?: string;
    contentRating?: string;
    url?: string;
    artwork?: { url?: string };
    previews?: { url?: string }[];
  };
}

export function normalizeApple(s: AppleSong): ProviderSong | null {
  const a = s?.attributes;
  if (!s?.id || !a?.name) return null;
  return {
    trackName: a.name,
    artistName: str(a.artistName) ?? "",
    duration: seconds(a.durationInMillis),
    isrc: str(a.isrc)?.toUpperCase() ?? null,
    explicit: a.contentRating === "explicit",
    albumName: str(a.albumName),
    // Apple lists "Music" after the real genre; it names no genre.
    ...defined({
      genre: (a.genreNames ?? []).find((g) => typeof g === "string" && g && g !== "Music"),
      releaseYear: yearOf(a.releaseDate),
    }),
    // Artwork URLs are templates: {w}x{h} becomes the 256 px default thumbnail.
    thumbnails: defined({ apple: a.artwork?.url?.replace("{w}", "256").replace("{h}", "256") }),
    musicProviders: { apple: s.id },
    links: defined({ apple: a.url }),
    previews: (a.previews ?? []).map((p) => p.url).filter((u): u is string => !!u),
  };
}

const storefront = (country?: string) =>
  country && /^[A-Za-z]{2}$/.test(country) ? country.toLowerCase() : "us";
const APPLE_ID = /^\d{1,20}$/;

export const apple: MusicAdapter = {
  key: "apple",
  name: NAME,
  hosts: ["apple"],
  enabled: appleEnabled,

  async search(env, p) {
    const url = joinUrl(env.APPLE_MUSIC_API_URL!, `v1/catalog/${storefront(p.country)}/search`, {
      term: p.q,
      types: "songs",
      limit: Math.min(p.limit, APPLE_SEARCH_LIMIT),
      offset: p.offset,
    });
    const body = (await providerJson(NAME, url, {}, developer(env))) as {
      results?: { songs?: { data?: AppleSong[] } };
    } | null;
    return {
      songs: (body?.results?.songs?.data ?? [])
        .map(normalizeApple)
        .filter((s): s is ProviderSong => !!s),
      total: null,
    };
  },

  async track(env, id, country) {
    if (!APPLE_ID.test(id)) return null;
    const body = (await providerJson(
      NAME,
      joinUrl(env.APPLE_MUSIC_API_URL!, `v1/catalog/${storefront(country)}/songs/${id}`),
      {},
      developer(env),
    )) as { data?: AppleSong[] } | null;
    return body?.data?.[0] ? normalizeApple(body.data[0]) : null;
  },

  /**
   * music.apple.com/{storefront}/album/{name}/{albumId}?i={songId} (a song on an album
   * page) or music.apple.com/{storefront}/song/{name}/{songId}.
   */
  async fromLink(env, link) {
    const parts = link.pathname.split("/").filter(Boolean);
    const sf = parts[0]?.length === 2 ? parts[0] : undefined;
    const id =
      link.searchParams.get("i") ?? (parts.includes("song") ? parts[parts.length - 1] : null);
    return id && APPLE_ID.test(id) ? apple.track(env, id, sf) : null;
  },
};

/**
 * Creates a library playlist for the person whose Music-User-Token this is, then adds the
 * songs (100 per call). Library playlists have no public URL until shared, so the link is
 * the library one.
 */
export async function appleCreatePlaylist(
  env: Env,
  userToken: string,
  name: string,
  description: string,
  songIds: string[],
) {
  const auth: TokenSource = {
    retryOn: [],
    get: async () => (await appleDeveloperToken(env)) ?? "",
    header: (t) => ({ Authorization: `Bearer ${t}`, "Music-User-Token": userToken }),
  };
  const created = (await providerJson(
    NAME,
    joinUrl(env.APPLE_MUSIC_API_URL!, "v1/me/library/playlists"),
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ attributes: { name, description } }),
    },
    auth,
  )) as { data?: { id?: string }[] } | null;
  const id = created?.data?.[0]?.id;
  if (!id) throw new ProviderError(NAME, 0, "did not return the new playlist");
  for (let i = 0; i < songIds.length; i += 100) {
    const data = songIds.slice(i, i + 100).map((sid) => ({ id: sid, type: "songs" }));
    await providerJson(
      NAME,
      joinUrl(env.APPLE_MUSIC_API_URL!, `v1/me/library/playlists/${id}/tracks`),
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ data }),
      },
      auth,
    );
  }
  return `https://music.apple.com/library/playlist/${id}`;
}
