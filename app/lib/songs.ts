import { PROVIDER_PRIORITY, type MusicProvider, type SongStatus } from "../../shared/songs";
// The shapes come from the server's own DTO builders (type-only: no server code in the bundle).
import type { ProviderSong as ProviderHit } from "../../workers/adapters/music/types";
import type { SourceState } from "../../workers/playlist-service/search";
import type { CrateDto, CrateSongDto, SongDto } from "../../workers/songs/dto";
import type { toUploadDto } from "../../workers/upload-service/common";

export type { CrateDto, CrateSongDto, SongDto, SongStatus };
/** An upload as its owner sees it: the song plus `detail` (why verification failed or waits). */
export type UploadDto = ReturnType<typeof toUploadDto> & { detail?: string | null };

/** Gateway paths of the two song services (docs/SONGS-API.md). */
export const UPLOAD_SERVICE = "/api/upload-service";
export const PLAYLIST_SERVICE = "/api/playlist-service";

/**
 * A search hit from an outside provider: not in our catalogue yet, so none of the catalogue's
 * own fields (no songId, status or stream); it is imported (track-import) before use.
 */
export type ProviderSong = ProviderHit & {
  [K in Exclude<keyof SongDto, keyof ProviderHit>]?: undefined;
};
/** Anything a song row can show: a catalogue song, a crate song or a provider hit. */
export type AnySong = SongDto | CrateSongDto | ProviderSong;

export type ProviderState = SourceState;
export interface SearchResult {
  songs: AnySong[];
  providers: Record<string, ProviderState>;
  offset: number;
  limit: number;
}

/** The list answers of both services: `{ data, total }`. */
export interface ListPage<T> {
  data: T[];
  total: number;
}

export type SpecialCrate = "queue" | "likes";
export const isSpecialCrate = (c: Pick<CrateDto, "crateType">) => c.crateType != null;

/** Search constants (seed 001: country US, page size 20, debounce 300 ms). */
export const SEARCH_LIMIT = 20;
export const SEARCH_COUNTRY = "US";
export const SEARCH_DEBOUNCE_MS = 300;
/** Crate pages and the import refresh (seed 001: refresh every 5 s while importing). */
export const CRATE_PAGE = 50;
export const IMPORT_REFRESH_MS = 5000;
/** Upload checks made before sending (the server checks again). */
export const MAX_SONG_BYTES = 50 * 1024 * 1024;
// MP3 first; the upload-service also takes WAV, FLAC, Ogg and M4A (it waits for an MP3 rendition).
export const SONG_TYPES = [
  "audio/mpeg",
  "audio/mp3",
  "audio/mpeg3",
  "audio/x-mpeg",
  "audio/x-mpeg-3",
  "audio/x-mp3",
  "audio/wav",
  "audio/x-wav",
  "audio/wave",
  "audio/vnd.wave",
  "audio/flac",
  "audio/x-flac",
  "audio/ogg",
  "audio/mp4",
  "audio/x-m4a",
  "audio/m4a",
];
export const SONG_EXTENSIONS = [".mp3", ".wav", ".flac", ".ogg", ".oga", ".m4a"];
/** The search source that is our own catalogue (GET /search `providers=local`). */
export const CATALOGUE = "local";

/** True when a song (or upload) is in our catalogue and can be added to crates directly. */
export const hasSongId = (s: AnySong): s is SongDto | CrateSongDto =>
  typeof s.songId === "string" && s.songId.length > 0;

/** The stream this web app can play: an uploaded song's HLS playlist (set only when VERIFIED). */
export const uploadStream = (s: Pick<AnySong, "streamUrls"> | null | undefined): string | null =>
  s?.streamUrls?.uploadService ?? null;

/**
 * The provider to play a song from (seed 001, Playback): the first in the brand's priority
 * order that has a stream and a handler registered. This browser registers `uploadService`.
 */
export const REGISTERED_PROVIDERS: readonly MusicProvider[] = ["uploadService"];
export function pickProvider(
  s: Pick<AnySong, "streamUrls" | "musicProviders">,
): { provider: MusicProvider; url: string } | { provider: MusicProvider | null; url: null } {
  const order = PROVIDER_PRIORITY.hangout;
  for (const p of order) {
    const url = s.streamUrls?.[p];
    if (url && REGISTERED_PROVIDERS.includes(p)) return { provider: p, url };
  }
  // What we would have needed: the first provider the song knows, for the error message.
  const known = order.find((p) => s.streamUrls?.[p] || s.musicProviders?.[p]) ?? null;
  return { provider: known, url: null };
}

/** The best thumbnail a song has, preferring our own then the catalogue providers. */
export function artworkUrl(s: Pick<AnySong, "thumbnails"> | null | undefined): string | null {
  const th = s?.thumbnails;
  if (!th) return null;
  const order: MusicProvider[] = [
    "uploadService",
    "sevenDigital",
    "apple",
    "spotify",
    "deezer",
    "soundCloudPublic",
    "audius",
    "youtube",
  ];
  for (const p of order) if (th[p]) return th[p]!;
  const any = Object.values(th).find((v) => typeof v === "string" && v);
  return any ?? null;
}

/** The provider a search hit came from (the first id it carries), for its badge. */
export function sourceProvider(s: AnySong): MusicProvider | null {
  const ids = s.musicProviders ?? {};
  const keys = Object.keys(ids).filter((k) => ids[k as MusicProvider]) as MusicProvider[];
  return keys[0] ?? null;
}

/** A stable key for a row: the crate-song, the song, or a provider id. */
export function songKey(s: AnySong, i: number): string {
  if ("crateSongUuid" in s && s.crateSongUuid) return s.crateSongUuid;
  if (s.songId) return s.songId;
  const p = sourceProvider(s);
  return p ? `${p}:${s.musicProviders?.[p]}` : `row-${i}`;
}

/**
 * `3:07`, or `1:02:03` past the hour; an em dash when unknown. The one duration format of
 * the app (issue 20: a 29.6 s song read 0:30 in one place and 0:29 in another): every
 * length and position goes through here, rounded to the nearest second, so a song's
 * length reads the same on every page and the clock reaches it at the end.
 */
export function formatDuration(seconds: number | null | undefined): string {
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) return "–:––";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** Song statuses that are still moving (the upload page polls while a song is in one). */
export const PENDING_STATUSES: readonly SongStatus[] = [
  "PENDING_UPLOAD",
  "VALID_FILE_TYPE",
  "VERIFICATION_POSTPONED",
];

/** Why a file can't be uploaded, as a message key; null when it can. */
export function checkSongFile(
  file: { type: string; size: number; name: string } | null | undefined,
): "songUpload.noFile" | "songUpload.badType" | "songUpload.tooBig" | null {
  if (!file || file.size === 0) return "songUpload.noFile";
  const ext = file.name.toLowerCase().slice(file.name.lastIndexOf("."));
  // Some systems report no type (or a generic one) for audio files: the extension decides then.
  const typeOk =
    SONG_TYPES.includes(file.type.toLowerCase()) ||
    ((!file.type || file.type === "application/octet-stream") && SONG_EXTENSIONS.includes(ext));
  if (!typeOk) return "songUpload.badType";
  if (file.size > MAX_SONG_BYTES) return "songUpload.tooBig";
  return null;
}

/** A hue from a string (for the generated artwork), stable across server and browser. */
export function hueOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return Math.abs(h) % 360;
}

export interface SearchParams {
  q: string;
  /** A comma list of search sources (`local` and provider keys); all when empty. */
  provider?: string;
  explicit?: boolean;
  offset?: number;
}

/** The query string of a search call (shared by the page's loader and "Load more"). */
export function searchQuery({ q, provider, explicit = true, offset = 0 }: SearchParams): string {
  const qs = new URLSearchParams({
    q,
    explicit: String(explicit),
    country: SEARCH_COUNTRY,
    offset: String(offset),
    limit: String(SEARCH_LIMIT),
  });
  if (provider) qs.set("providers", provider);
  return qs.toString();
}

/** The search page's query string: the words (at most 200 characters), the provider and the clean filter. */
export function readSearchParams(url: URL) {
  return {
    q: (url.searchParams.get("q") ?? "").trim().slice(0, 200),
    provider: url.searchParams.get("provider") ?? "",
    clean: url.searchParams.get("clean") === "1",
  };
}
