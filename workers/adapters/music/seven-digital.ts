import type { Env } from "../../env";
import { joinUrl, providerJson } from "./http";
import { defined, str, type MusicAdapter, type ProviderSong } from "./types";

/**
 * 7digital catalogue API (v1.2): track/search and track/details with the consumer key, in
 * JSON. The hangout brand's first source (seed 001, Playback and constants). Streams and
 * previews are URLs on 7digital's media hosts that the player fetches itself; with
 * SEVEN_DIGITAL_SECRET set they are OAuth 1.0 signed (7digital refuses unsigned full
 * streams), without it they carry the key only.
 */
const NAME = "7digital";
const STREAM_HOST = "https://stream.svc.7digital.net";
const PREVIEW_HOST = "https://previews.7digital.com";

interface SevenTrack {
  id?: string | number;
  title?: string;
  version?: string;
  duration?: number;
  explicitContent?: boolean;
  isrc?: string;
  url?: string;
  artist?: { name?: string; appearsAs?: string };
  release?: { title?: string; image?: string };
}

/** 7digital sleeve art comes in fixed widths (seed 001 lists them); 350 is nearest 256. */
const art = (image?: string) => image?.replace(/_\d+\.(jpg|png)$/, "_350.$1") ?? null;

export function normalizeSevenDigital(t: SevenTrack): ProviderSong | null {
  const id = str(t?.id);
  if (!id || !t.title) return null;
  return {
    trackName: t.version ? `${t.title} (${t.version})` : t.title,
    artistName: str(t.artist?.appearsAs) ?? str(t.artist?.name) ?? "",
    duration: typeof t.duration === "number" ? Math.round(t.duration) : 0,
    isrc: str(t.isrc)?.toUpperCase() ?? null,
    explicit: t.explicitContent === true,
    albumName: str(t.release?.title),
    thumbnails: defined({ sevenDigital: art(t.release?.image) }),
    musicProviders: { sevenDigital: id },
    links: defined({ sevenDigital: t.url }),
    previews: [],
  };
}

const SEVEN_ID = /^\d{1,15}$/;
const key = (env: Env) => ({
  oauth_consumer_key: env.SEVEN_DIGITAL_KEY!,
  usageTypes: "adsupportedstreaming",
});

async function details(env: Env, id: string, country = "US"): Promise<ProviderSong | null> {
  if (!SEVEN_ID.test(id)) return null;
  const body = (await providerJson(
    NAME,
    joinUrl(env.SEVEN_DIGITAL_API_URL!, "track/details", { trackId: id, country, ...key(env) }),
  )) as { track?: SevenTrack } | null;
  return body?.track ? normalizeSevenDigital(body.track) : null;
}

/** RFC 3986 encoding, as OAuth 1.0 signatures require (encodeURIComponent leaves !'()*). */
const enc = (s: string) =>
  encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/** A two-legged OAuth 1.0 HMAC-SHA1 signed GET URL (7digital's media endpoints). */
export async function signedUrl(
  base: string,
  params: Record<string, string>,
  consumerKey: string,
  secret: string | undefined,
): Promise<string> {
  const all: Record<string, string> = { ...params, oauth_consumer_key: consumerKey };
  if (secret) {
    Object.assign(all, {
      oauth_nonce: crypto.randomUUID().replace(/-/g, ""),
      oauth_signature_method: "HMAC-SHA1",
      oauth_timestamp: String(Math.floor(Date.now() / 1000)),
      oauth_version: "1.0",
    });
    const normalized = Object.keys(all)
      .sort()
      .map((k) => `${enc(k)}=${enc(all[k])}`)
      .join("&");
    const baseString = `GET&${enc(base)}&${enc(normalized)}`;
    const hmacKey = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(`${enc(secret)}&`),
      { name: "HMAC", hash: "SHA-1" },
      false,
      ["sign"],
    );
    const sig = new Uint8Array(
      await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(baseString)),
    );
    all.oauth_signature = btoa(String.fromCharCode(...sig));
  }
  return `${base}?${Object.entries(all)
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .join("&")}`;
}

export const sevenDigital: MusicAdapter = {
  key: "sevenDigital",
  name: NAME,
  // No shared-link host: 7digital is not among the spec's link hosts.
  hosts: [],
  enabled: (env) => !!(env.SEVEN_DIGITAL_API_URL && env.SEVEN_DIGITAL_KEY),

  /** 7digital pages by page number: an offset that is not a multiple of limit rounds down. */
  async search(env, p) {
    const url = joinUrl(env.SEVEN_DIGITAL_API_URL!, "track/search", {
      q: p.q,
      country: p.country,
      page: Math.floor(p.offset / p.limit) + 1,
      pageSize: p.limit,
      ...key(env),
    });
    const body = (await providerJson(NAME, url)) as {
      searchResults?: { totalItems?: number; searchResult?: { track?: SevenTrack }[] };
    } | null;
    const rows = body?.searchResults?.searchResult ?? [];
    const total = body?.searchResults?.totalItems;
    return {
      songs: rows
        .map((r) => (r.track ? normalizeSevenDigital(r.track) : null))
        .filter((s): s is ProviderSong => !!s),
      total: typeof total === "number" ? total : null,
    };
  },

  track: (env, id, country) => details(env, id, country),

  fromLink: async () => null,

  /** Only a track 7digital knows in that country gets a URL (so a bad id is a 404). */
  async stream(env, id, o) {
    if (!(await details(env, id, o.country))) return null;
    return signedUrl(
      `${(env.SEVEN_DIGITAL_STREAM_URL ?? STREAM_HOST).replace(/\/+$/, "")}/stream/catalogue`,
      { trackId: id, country: o.country },
      env.SEVEN_DIGITAL_KEY!,
      env.SEVEN_DIGITAL_SECRET,
    );
  },

  async preview(env, id, o) {
    if (!(await details(env, id, o.country))) return null;
    return signedUrl(
      `${(env.SEVEN_DIGITAL_PREVIEW_URL ?? PREVIEW_HOST).replace(/\/+$/, "")}/clip/${id}`,
      { country: o.country },
      env.SEVEN_DIGITAL_KEY!,
      env.SEVEN_DIGITAL_SECRET,
    );
  },
};
