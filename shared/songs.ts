/**
 * Song and crate enumerations and the song-matching rule, shared by the Worker, the room
 * object and the browser (seed 001: Song, Crate, Music providers, Validation rules).
 */
export const SONG_STATUSES = [
  "PENDING_UPLOAD",
  "VALID_FILE_TYPE",
  "MISSING_METADATA",
  "VERIFIED",
  "UNVERIFIED",
  "VERIFICATION_ERROR",
  "VERIFICATION_POSTPONED",
] as const;
export type SongStatus = (typeof SONG_STATUSES)[number];

/**
 * How long an upload may stay unfinished (PENDING_UPLOAD, VALID_FILE_TYPE) or wait for its
 * transcode (VERIFICATION_POSTPONED) after its last change: then the cron fails it
 * (workers/upload-service/stale-uploads.ts) and the upload page stops checking.
 */
export const STALE_UPLOAD_MS = 60 * 60_000;

/** Extra statuses the minimal crate-song variant adds (provider lookups). */
export const CRATE_SONG_STATUSES = [
  ...SONG_STATUSES,
  "DATA_NOT_FOUND",
  "PENDING_REQUEST",
  "SUCCESS",
  "FETCH_FAILED",
] as const;

export const MUSIC_PROVIDERS = [
  "apple",
  "audius",
  "napster",
  "soundCloudPublic",
  "spotify",
  "uploadService",
  "youtube",
  "pandora",
  "deezer",
  "tidal",
  "amazonMusic",
  "yandex",
  "spinrilla",
  "sevenDigital",
] as const;
export type MusicProvider = (typeof MUSIC_PROVIDERS)[number];
export type ProviderIds = Partial<Record<MusicProvider, string>>;

/** Providers a song must have an id from to be imported (seed 001, Validation rules). */
export const IMPORTABLE_PROVIDERS: readonly MusicProvider[] = [
  "sevenDigital",
  "soundCloudPublic",
  "spotify",
  "apple",
  "uploadService",
];

export const IMPORT_STATUSES = ["IN_PROGRESS", "FAILED", "COMPLETE"] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** Special crates: the queue (type "default", name "default") and likes ("tt-stars", "starred"). */
export const SPECIAL_CRATES = {
  queue: { crateType: "default", crateName: "default" },
  likes: { crateType: "tt-stars", crateName: "starred" },
} as const;
export type SpecialCrate = keyof typeof SPECIAL_CRATES;
export type CrateType = (typeof SPECIAL_CRATES)[SpecialCrate]["crateType"];

/**
 * A song as the API shows it (seed 001 Song): every route, the room protocol and the web app
 * use this shape; workers/songs/dto.ts builds it from a row.
 */
export type SongDto = {
  songId: string;
  songShortId: string;
  isrc: string | null;
  trackName: string;
  artistName: string;
  genre: string | null;
  /** Seconds. */
  duration: number;
  explicit: boolean;
  releaseYear: number | null;
  albumName: string | null;
  status: SongStatus;
  musicProviders: ProviderIds;
  thumbnails: Partial<Record<MusicProvider, string>>;
  links: Partial<Record<MusicProvider, string>>;
  previews: string[];
  streamUrls: Partial<Record<MusicProvider, string>>;
  ownerUuid: string | null;
  isPublic: boolean;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
};

/** A song as it sits in a crate: the song plus its place there (REFERENCE.md MinimalCrateSongResDTO). */
export type CrateSongDto = SongDto & {
  crateSongUuid: string;
  position: number;
  /** ISO 8601. */
  addedAt: string;
  playbackToken: null;
};

/** Playback priority (seed 001, Playback): default, and the hangout brand's order. */
export const PROVIDER_PRIORITY: Record<"default" | "hangout", readonly MusicProvider[]> = {
  default: ["spotify", "apple", "youtube", "soundCloudPublic", "audius", "uploadService"],
  hangout: ["sevenDigital", "soundCloudPublic", "audius", "spotify", "apple", "uploadService"],
};

/** The fields the matching rule reads; any song-shaped object will do. */
export interface MatchableSong {
  crateSongUuid?: string | null;
  songId?: string | null;
  songShortId?: string | null;
  isrc?: string | null;
  musicProviders?: ProviderIds | null;
  trackName?: string | null;
  artistName?: string | null;
  duration?: number | null;
}

/** Durations within this many seconds count as the same recording. */
export const MATCH_DURATION_TOLERANCE_S = 5;

const same = (a: string | null | undefined, b: string | null | undefined) => !!a && !!b && a === b;
/**
 * A name as the matching rule compares it: NFKC (so "ﬁ" is "fi" and a full-width "Ａ" is
 * "A"), trimmed, lower-cased the Unicode way ("ÉLAN" is "élan"; toLowerCase, not the
 * locale's, so every server and browser agrees).
 */
export const foldName = (s: string) => s.normalize("NFKC").trim().toLowerCase();

/**
 * The catalogue's name key (songs.name_key, indexed): artist and track folded, joined by
 * the unit separator. Track import finds a song by name through it.
 */
export const nameKey = (artistName: string, trackName: string) =>
  `${foldName(artistName)}\u001f${foldName(trackName)}`;

const sameText = (a: string | null | undefined, b: string | null | undefined) =>
  !!a && !!b && foldName(a) === foldName(b);

/**
 * Whether two songs are the same song (seed 001, Validation rules): they share a
 * crateSongUuid, songId, shortId or isrc, or an id at the same provider; or their durations
 * are within 5 s and track and artist are equal ignoring case.
 */
export function songsMatch(a: MatchableSong, b: MatchableSong): boolean {
  if (
    same(a.crateSongUuid, b.crateSongUuid) ||
    same(a.songId, b.songId) ||
    same(a.songShortId, b.songShortId)
  )
    return true;
  if (a.isrc && b.isrc && a.isrc.toUpperCase() === b.isrc.toUpperCase()) return true;
  for (const [provider, id] of Object.entries(a.musicProviders ?? {})) {
    if (same(id, b.musicProviders?.[provider as MusicProvider])) return true;
  }
  return (
    typeof a.duration === "number" &&
    typeof b.duration === "number" &&
    Math.abs(a.duration - b.duration) <= MATCH_DURATION_TOLERANCE_S &&
    sameText(a.trackName, b.trackName) &&
    sameText(a.artistName, b.artistName)
  );
}
