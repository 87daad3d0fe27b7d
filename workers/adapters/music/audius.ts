import type { Env } from "../../env";
import { joinUrl, providerJson } from "./http";
import { defined, str, type MusicAdapter, type ProviderSong } from "./types";

/**
 * Audius (seed 001, Third-party provider calls): v1/tracks/{id}, its /stream, and
 * v1/tracks/search?query. Audius is public and needs no key, but it is reached only when
 * AUDIUS_API_URL is set: a machine or CI without network must not try it on every search.
 */
const NAME = "Audius";
/** Audius asks every caller to name its app. */
const APP = "hangout";

interface AudiusTrack {
  id?: string;
  title?: string;
  duration?: number;
  isrc?: string | null;
  genre?: string;
  permalink?: string;
  artwork?: Record<string, string | undefined> | null;
  user?: { name?: string; handle?: string };
}

export function normalizeAudius(t: AudiusTrack): ProviderSong | null {
  const id = str(t?.id);
  if (!id || !t.title) return null;
  const art = t.artwork?.["480x480"] ?? t.artwork?.["150x150"] ?? t.artwork?.["1000x1000"] ?? null;
  return {
    trackName: t.title,
    artistName: str(t.user?.name) ?? str(t.user?.handle) ?? "",
    // Audius already counts in seconds.
    duration: typeof t.duration === "number" ? Math.round(t.duration) : 0,
    isrc: str(t.isrc)?.toUpperCase() ?? null,
    // Audius has no explicit flag; its tracks count as clean.
    explicit: false,
    albumName: null,
    thumbnails: defined({ audius: art }),
    musicProviders: { audius: id },
    links: defined({ audius: t.permalink ? `https://audius.co${t.permalink}` : null }),
    previews: [],
  };
}

const AUDIUS_ID = /^[A-Za-z0-9]{1,32}$/;

export const audius: MusicAdapter = {
  key: "audius",
  name: NAME,
  hosts: ["audius"],
  enabled: (env: Env) => !!env.AUDIUS_API_URL,

  async search(env, p) {
    const url = joinUrl(env.AUDIUS_API_URL!, "v1/tracks/search", {
      query: p.q,
      offset: p.offset,
      limit: p.limit,
      app_name: APP,
    });
    const body = (await providerJson(NAME, url)) as { data?: AudiusTrack[] } | null;
    return {
      songs: (body?.data ?? []).map(normalizeAudius).filter((s): s is ProviderSong => !!s),
      total: null,
    };
  },

  async track(env, id) {
    if (!AUDIUS_ID.test(id)) return null;
    const body = (await providerJson(
      NAME,
      joinUrl(env.AUDIUS_API_URL!, `v1/tracks/${id}`, { app_name: APP }),
    )) as { data?: AudiusTrack } | null;
    return body?.data ? normalizeAudius(body.data) : null;
  },

  /** audius.co/{handle}/{slug}: v1/resolve answers (through a redirect) with the track. */
  async fromLink(env, link) {
    if (link.pathname.split("/").filter(Boolean).length < 2) return null;
    const url = joinUrl(env.AUDIUS_API_URL!, "v1/resolve", {
      url: `https://audius.co${link.pathname}`,
      app_name: APP,
    });
    const body = (await providerJson(NAME, url)) as { data?: AudiusTrack } | null;
    return body?.data ? normalizeAudius(body.data) : null;
  },

  /** tracks/{id}/stream redirects to the audio itself, so the URL is the answer (no call). */
  async stream(env, id) {
    return AUDIUS_ID.test(id)
      ? joinUrl(env.AUDIUS_API_URL!, `v1/tracks/${id}/stream`, { app_name: APP })
      : null;
  },
};
