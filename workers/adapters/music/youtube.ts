import type { Env } from "../../env";
import { joinUrl, providerJson } from "./http";
import { defined, type MusicAdapter, type ProviderSong } from "./types";

/**
 * YouTube Data API v3 (seed 001, Third-party provider calls: "videos content details by
 * id"). Search is the API's `search` (type=video, music category) followed by one `videos`
 * call for the durations, which search does not return. YouTube pages by token, not by
 * offset, so it answers the first page only (offset 0); it is a source of links and
 * playback more than a catalogue.
 */
const NAME = "YouTube";

/** ISO-8601 duration ("PT1H2M3S", "P1DT2M") in whole seconds; 0 when unreadable. */
export function isoDurationSeconds(d: unknown): number {
  if (typeof d !== "string") return 0;
  const m = d.match(/^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/);
  if (!m) return 0;
  const [, days, h, min, s] = m;
  return Math.round(
    Number(days ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0),
  );
}

interface Video {
  id?: string;
  snippet?: {
    title?: string;
    channelTitle?: string;
    thumbnails?: Record<string, { url?: string } | undefined>;
  };
  contentDetails?: { duration?: string; contentRating?: { ytRating?: string } };
}

/**
 * Music videos are titled "Artist - Track" by convention; otherwise the channel is the
 * artist ("Artist - Topic" channels are YouTube's auto-generated artist pages).
 */
export function normalizeYouTube(v: Video): ProviderSong | null {
  if (!v?.id || !v.snippet?.title) return null;
  const title = v.snippet.title;
  const dash = title.indexOf(" - ");
  const channel = (v.snippet.channelTitle ?? "").replace(/ - Topic$/, "");
  const th = v.snippet.thumbnails ?? {};
  return {
    trackName: dash > 0 ? title.slice(dash + 3).trim() : title,
    artistName: dash > 0 ? title.slice(0, dash).trim() : channel,
    duration: isoDurationSeconds(v.contentDetails?.duration),
    isrc: null,
    explicit: v.contentDetails?.contentRating?.ytRating === "ytAgeRestricted",
    albumName: null,
    thumbnails: defined({ youtube: th.high?.url ?? th.medium?.url ?? th.default?.url }),
    musicProviders: { youtube: v.id },
    links: { youtube: `https://www.youtube.com/watch?v=${v.id}` },
    previews: [],
  };
}

const YT_ID = /^[A-Za-z0-9_-]{11}$/;

async function videos(env: Env, ids: string[]): Promise<ProviderSong[]> {
  if (!ids.length) return [];
  const url = joinUrl(env.YOUTUBE_API_URL!, "videos", {
    part: "contentDetails,snippet",
    id: ids.join(","),
    key: env.YOUTUBE_API_KEY,
  });
  const body = (await providerJson(NAME, url)) as { items?: Video[] } | null;
  return (body?.items ?? []).map(normalizeYouTube).filter((s): s is ProviderSong => !!s);
}

/** The video id of youtube.com/watch?v=, youtu.be/{id}, /shorts/{id}, /embed/{id}. */
export function youTubeId(link: URL): string | null {
  const v = link.searchParams.get("v");
  if (v && YT_ID.test(v)) return v;
  const parts = link.pathname.split("/").filter(Boolean);
  const id = link.hostname.includes("youtu.be")
    ? parts[0]
    : ["shorts", "embed", "live"].includes(parts[0])
      ? parts[1]
      : undefined;
  return id && YT_ID.test(id) ? id : null;
}

export const youtube: MusicAdapter = {
  key: "youtube",
  name: NAME,
  hosts: ["youtube", "youtu.be"],
  enabled: (env) => !!(env.YOUTUBE_API_URL && env.YOUTUBE_API_KEY),

  async search(env, p) {
    if (p.offset > 0) return { songs: [], total: null };
    const url = joinUrl(env.YOUTUBE_API_URL!, "search", {
      part: "snippet",
      type: "video",
      videoCategoryId: 10,
      q: p.q,
      maxResults: Math.min(p.limit, 50),
      regionCode: p.country,
      safeSearch: p.explicit ? undefined : "strict",
      key: env.YOUTUBE_API_KEY,
    });
    const body = (await providerJson(NAME, url)) as {
      items?: { id?: { videoId?: string } }[];
      pageInfo?: { totalResults?: number };
    } | null;
    const ids = (body?.items ?? [])
      .map((i) => i.id?.videoId)
      .filter((id): id is string => !!id && YT_ID.test(id));
    const found = await videos(env, ids);
    // Keep the search's order (videos answers in any order).
    found.sort(
      (a, b) => ids.indexOf(a.musicProviders.youtube!) - ids.indexOf(b.musicProviders.youtube!),
    );
    return { songs: found, total: body?.pageInfo?.totalResults ?? null };
  },

  async track(env, id) {
    if (!YT_ID.test(id)) return null;
    return (await videos(env, [id]))[0] ?? null;
  },

  async fromLink(env, link) {
    const id = youTubeId(link);
    return id ? youtube.track(env, id) : null;
  },
};
