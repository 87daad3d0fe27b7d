import type { Env } from "../../env";
import { refreshPublicToken, publicToken } from "../../user-service/soundcloud-public-token";
import { oauthClient } from "../oauth";
import { joinUrl, providerJson, ProviderError, type TokenSource } from "./http";
import { defined, seconds, str, type MusicAdapter, type ProviderSong } from "./types";

/**
 * SoundCloud public API (seed 001, Third-party provider calls): tracks?q&offset&
 * linked_partitioning&limit, tracks/{id}, tracks/{id}/streams, with the public OAuth token
 * (client credentials) refreshed once on 401 or 403. Songs carry the key
 * `soundCloudPublic`, as the spec's provider list names it.
 */
const NAME = "SoundCloud";

/**
 * The app's client-credentials token, shared with GET /soundcloud/public-token
 * (user-service/soundcloud-public-token.ts): SoundCloud allows an app few such tokens a day,
 * so search, tracks and streams use the one cached token (in memory, sealed in D1, one
 * request at a time across isolates) instead of fetching their own. A refusal (SoundCloud
 * answers 403 as well as 401 for a lapsed token, the spec says both) drops that token and
 * fetches the next once, shared by every request that got the same refusal.
 */
function appToken(env: Env): TokenSource {
  const client = oauthClient(env, "soundcloud", "web");
  return {
    retryOn: [401, 403],
    header: (t) => ({ Authorization: `OAuth ${t}` }),
    get: async (fresh, stale) => {
      if (!client) throw new ProviderError(NAME, 0, "not configured");
      const held =
        fresh && stale !== undefined
          ? await refreshPublicToken(env, client, stale)
          : await publicToken(env, client);
      return held.token;
    },
  };
}

interface SoundCloudTrack {
  id?: number | string;
  title?: string;
  duration?: number;
  artwork_url?: string | null;
  permalink_url?: string;
  user?: { username?: string; avatar_url?: string };
  publisher_metadata?: {
    isrc?: string;
    explicit?: boolean;
    artist?: string;
    album_title?: string;
  } | null;
  streamable?: boolean;
  genre?: string | null;
}

export function normalizeSoundCloud(t: SoundCloudTrack): ProviderSong | null {
  const id = str(t?.id);
  if (!id || !t.title) return null;
  const meta = t.publisher_metadata ?? {};
  // Artwork URLs end in -large (100 px); -t300x300 is the nearest size to our 256 default.
  const art =
    (t.artwork_url ?? t.user?.avatar_url ?? null)?.replace(/-large(\.\w+)$/, "-t300x300$1") ?? null;
  return {
    trackName: t.title,
    artistName: str(meta.artist) ?? str(t.user?.username) ?? "",
    duration: seconds(t.duration),
    isrc: str(meta.isrc)?.toUpperCase() ?? null,
    explicit: meta.explicit === true,
    albumName: str(meta.album_title),
    ...defined({ genre: str(t.genre) }),
    thumbnails: defined({ soundCloudPublic: art }),
    musicProviders: { soundCloudPublic: id },
    links: defined({ soundCloudPublic: t.permalink_url }),
    previews: [],
  };
}

const list = (items: SoundCloudTrack[] | undefined) =>
  (items ?? []).map(normalizeSoundCloud).filter((s): s is ProviderSong => !!s);
const SC_ID = /^\d{1,20}$/;

export const soundCloud: MusicAdapter = {
  key: "soundCloudPublic",
  name: NAME,
  hosts: ["soundcloud"],
  enabled: (env) =>
    !!(env.SOUNDCLOUD_API_URL && env.SOUNDCLOUD_CLIENT_ID && env.SOUNDCLOUD_CLIENT_SECRET),

  async search(env, p) {
    const url = joinUrl(env.SOUNDCLOUD_API_URL!, "tracks", {
      q: p.q,
      offset: p.offset,
      limit: p.limit,
      linked_partitioning: true,
    });
    const body = (await providerJson(NAME, url, {}, appToken(env))) as
      { collection?: SoundCloudTrack[]; total_results?: number } | SoundCloudTrack[] | null;
    // With linked_partitioning the answer is { collection, next_href }; without, a bare list.
    const items = Array.isArray(body) ? body : body?.collection;
    const total =
      !Array.isArray(body) && typeof body?.total_results === "number" ? body.total_results : null;
    return { songs: list(items), total };
  },

  async track(env, id) {
    if (!SC_ID.test(id)) return null;
    const body = await providerJson(
      NAME,
      joinUrl(env.SOUNDCLOUD_API_URL!, `tracks/${id}`),
      {},
      appToken(env),
    );
    return body ? normalizeSoundCloud(body as SoundCloudTrack) : null;
  },

  /** soundcloud.com/{artist}/{track} is a permalink, not an id: the API's resolve finds it. */
  async fromLink(env, link) {
    const direct = link.pathname.match(/\/tracks\/(\d+)/);
    if (direct) return soundCloud.track(env, direct[1]);
    if (link.pathname.split("/").filter(Boolean).length < 2) return null;
    const body = (await providerJson(
      NAME,
      joinUrl(env.SOUNDCLOUD_API_URL!, "resolve", {
        url: `https://soundcloud.com${link.pathname}`,
      }),
      {},
      appToken(env),
    )) as (SoundCloudTrack & { kind?: string }) | null;
    return body && (body.kind === undefined || body.kind === "track")
      ? normalizeSoundCloud(body)
      : null;
  },

  /** tracks/{id}/streams: HLS for medium and high, the progressive MP3 for low. */
  async stream(env, id, o) {
    if (!SC_ID.test(id)) return null;
    const body = (await providerJson(
      NAME,
      joinUrl(env.SOUNDCLOUD_API_URL!, `tracks/${id}/streams`),
      {},
      appToken(env),
    )) as Record<string, string | undefined> | null;
    if (!body) return null;
    const order =
      o.quality === "low"
        ? ["http_mp3_128_url", "hls_opus_64_url", "hls_mp3_128_url"]
        : ["hls_aac_160_url", "hls_mp3_128_url", "http_mp3_128_url"];
    return order.map((k) => body[k]).find((u): u is string => typeof u === "string") ?? null;
  },

  async preview(env, id) {
    if (!SC_ID.test(id)) return null;
    const body = (await providerJson(
      NAME,
      joinUrl(env.SOUNDCLOUD_API_URL!, `tracks/${id}/streams`),
      {},
      appToken(env),
    )) as Record<string, string | undefined> | null;
    return body?.preview_mp3_128_url ?? null;
  },
};
