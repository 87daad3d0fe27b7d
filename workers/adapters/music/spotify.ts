import type { Env } from "../../env";
import {
  clientCredentials,
  joinUrl,
  providerJson,
  ProviderError,
  readToken,
  type TokenSource,
} from "./http";
import { defined, seconds, str, yearOf, type MusicAdapter, type ProviderSong } from "./types";

/**
 * Spotify Web API (seed 001, Third-party provider calls): v1/tracks/{id}, search by isrc
 * (q=isrc:X) and search (q, offset, type=track), with a client-credentials token that is
 * refreshed once on 401. Playlist export uses the user's own token instead (exports.ts).
 */
const NAME = "Spotify";

export function spotifyEnabled(env: Env): boolean {
  return !!(
    env.SPOTIFY_API_URL &&
    env.SPOTIFY_ACCOUNTS_URL &&
    env.SPOTIFY_CLIENT_ID &&
    env.SPOTIFY_CLIENT_SECRET
  );
}

function appToken(env: Env): TokenSource {
  const tokenUrl = joinUrl(env.SPOTIFY_ACCOUNTS_URL!, "api/token");
  return {
    retryOn: [401],
    header: (t) => ({ Authorization: `Bearer ${t}` }),
    get: clientCredentials(NAME, `spotify|${tokenUrl}|${env.SPOTIFY_CLIENT_ID}`, async () => {
      const body = await providerJson(NAME, tokenUrl, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Authorization: `Basic ${btoa(`${env.SPOTIFY_CLIENT_ID}:${env.SPOTIFY_CLIENT_SECRET}`)}`,
        },
        body: new URLSearchParams({ grant_type: "client_credentials" }),
      });
      return readToken(NAME, body);
    }),
  };
}

interface SpotifyTrack {
  id?: string;
  name?: string;
  duration_ms?: number;
  explicit?: boolean;
  preview_url?: string | null;
  artists?: { name?: string }[];
  album?: {
    name?: string;
    release_date?: string;
    images?: { url?: string; width?: number }[];
  };
  external_ids?: { isrc?: string };
  external_urls?: { spotify?: string };
}

/** Picks the image closest to the 256 px default thumbnail (seed 001, constants). */
function thumbnail(images: { url?: string; width?: number }[] = []): string | null {
  const sorted = images
    .filter((i) => i.url)
    .sort((a, b) => Math.abs((a.width ?? 0) - 256) - Math.abs((b.width ?? 0) - 256));
  return sorted[0]?.url ?? null;
}

export function normalizeSpotify(t: SpotifyTrack): ProviderSong | null {
  if (!t?.id || !t.name) return null;
  return {
    trackName: t.name,
    artistName: (t.artists ?? [])
      .map((a) => a.name)
      .filter(Boolean)
      .join(", "),
    duration: seconds(t.duration_ms),
    isrc: str(t.external_ids?.isrc)?.toUpperCase() ?? null,
    explicit: t.explicit === true,
    albumName: str(t.album?.name),
    // Only when known: the song shape stays as before for providers that do not say.
    ...defined({ releaseYear: yearOf(t.album?.release_date) }),
    thumbnails: defined({ spotify: thumbnail(t.album?.images) }),
    musicProviders: { spotify: t.id },
    links: defined({
      spotify: t.external_urls?.spotify ?? `https://open.spotify.com/track/${t.id}`,
    }),
    previews: t.preview_url ? [t.preview_url] : [],
  };
}

async function searchTracks(
  env: Env,
  q: string,
  o: { offset: number; limit: number; country?: string },
) {
  const url = joinUrl(env.SPOTIFY_API_URL!, "v1/search", {
    q,
    type: "track",
    offset: o.offset,
    limit: o.limit,
    market: o.country,
  });
  const body = (await providerJson(NAME, url, {}, appToken(env))) as {
    tracks?: { items?: SpotifyTrack[]; total?: number };
  } | null;
  const items = body?.tracks?.items ?? [];
  return {
    songs: items.map(normalizeSpotify).filter((s): s is ProviderSong => !!s),
    total: typeof body?.tracks?.total === "number" ? body.tracks.total : null,
  };
}

/** Spotify ids are 22 base-62 characters; anything else never reaches the API. */
const SPOTIFY_ID = /^[A-Za-z0-9]{22}$/;

export const spotify: MusicAdapter & {
  byIsrc(env: Env, isrc: string): Promise<ProviderSong | null>;
} = {
  key: "spotify",
  name: NAME,
  hosts: ["spotify"],
  enabled: spotifyEnabled,

  search: (env, p) =>
    searchTracks(env, p.q, { offset: p.offset, limit: Math.min(p.limit, 50), country: p.country }),

  async track(env, id, country) {
    if (!SPOTIFY_ID.test(id)) return null;
    const body = await providerJson(
      NAME,
      joinUrl(env.SPOTIFY_API_URL!, `v1/tracks/${id}`, { market: country }),
      {},
      appToken(env),
    );
    return body ? normalizeSpotify(body as SpotifyTrack) : null;
  },

  /** open.spotify.com/track/{id} and open.spotify.com/intl-xx/track/{id}. */
  async fromLink(env, link) {
    const m = link.pathname.match(/\/track\/([A-Za-z0-9]{22})/);
    return m ? spotify.track(env, m[1]) : null;
  },

  /** The spec's "search by isrc": the first track Spotify files under that ISRC. */
  async byIsrc(env, isrc) {
    if (!/^[A-Za-z0-9]{12}$/.test(isrc)) return null;
    return (
      (await searchTracks(env, `isrc:${isrc.toUpperCase()}`, { offset: 0, limit: 1 })).songs[0] ??
      null
    );
  },
};

/**
 * Creates a private playlist in the user's account and adds `trackIds` (100 per call, the
 * API's limit). `userToken` is the person's own Spotify token (or their linked account's
 * token source): a playlist belongs to them.
 */
export async function spotifyCreatePlaylist(
  env: Env,
  userToken: string | TokenSource,
  name: string,
  description: string,
  trackIds: string[],
) {
  // A token the person sent is used as is; their linked account's source refreshes once on 401.
  const user: TokenSource =
    typeof userToken === "string"
      ? {
          retryOn: [],
          get: async () => userToken,
          header: (t) => ({ Authorization: `Bearer ${t}` }),
        }
      : userToken;
  const me = (await providerJson(NAME, joinUrl(env.SPOTIFY_API_URL!, "v1/me"), {}, user)) as {
    id?: string;
  } | null;
  if (!me?.id) throw new ProviderError(NAME, 0, "did not say who the token belongs to");
  const created = (await providerJson(
    NAME,
    joinUrl(env.SPOTIFY_API_URL!, `v1/users/${encodeURIComponent(me.id)}/playlists`),
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name, description, public: false }),
    },
    user,
  )) as { id?: string; external_urls?: { spotify?: string } } | null;
  if (!created?.id) throw new ProviderError(NAME, 0, "did not return the new playlist");
  for (let i = 0; i < trackIds.length; i += 100) {
    const uris = trackIds.slice(i, i + 100).map((id) => `spotify:track:${id}`);
    await providerJson(
      NAME,
      joinUrl(env.SPOTIFY_API_URL!, `v1/playlists/${created.id}/tracks`),
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ uris }),
      },
      user,
    );
  }
  return created.external_urls?.spotify ?? `https://open.spotify.com/playlist/${created.id}`;
}
