import type { MusicProvider, ProviderIds } from "../../../shared/songs";
import type { Env } from "../../env";

/**
 * A song as a provider describes it, in the Song shape of seed 001 but without a songId:
 * it is not in our catalogue until the client imports it (POST /api/v1/track-import).
 */
export interface ProviderSong {
  trackName: string;
  artistName: string;
  /** Seconds. */
  duration: number;
  isrc: string | null;
  explicit: boolean;
  albumName: string | null;
  /** The provider's genre, when it names one (Apple, SoundCloud). */
  genre?: string | null;
  /** From the album's release date, when the provider says (Spotify, Apple). */
  releaseYear?: number | null;
  thumbnails: Partial<Record<MusicProvider, string>>;
  musicProviders: ProviderIds;
  links: Partial<Record<MusicProvider, string>>;
  previews: string[];
}

export interface SearchParams {
  q: string;
  offset: number;
  limit: number;
  explicit: boolean;
  /** ISO 3166 alpha-2, upper case. */
  country: string;
}

export interface SearchPage {
  songs: ProviderSong[];
  /** How many results the provider says exist, when it says. */
  total: number | null;
}

export type AudioQuality = "low" | "medium" | "high";

export interface MusicAdapter {
  /** The key songs carry in `musicProviders` (seed 001, Music providers). */
  key: MusicProvider;
  /** For messages: "Spotify is not configured on this server." */
  name: string;
  /** Host fragments of shared links this adapter resolves (seed 001, Validation rules). */
  hosts: readonly string[];
  enabled(env: Env): boolean;
  search(env: Env, p: SearchParams): Promise<SearchPage>;
  /** One track by the provider's id; null when the provider has no such track. */
  track(env: Env, id: string, country?: string): Promise<ProviderSong | null>;
  /** The track a shared link points at; null when the link names no track. */
  fromLink(env: Env, link: URL): Promise<ProviderSong | null>;
  /** A URL the player streams from; null when the provider has no such track. */
  stream?(
    env: Env,
    id: string,
    o: { country: string; quality: AudioQuality },
  ): Promise<string | null>;
  /** A short preview clip's URL; null when there is none. */
  preview?(env: Env, id: string, o: { country: string }): Promise<string | null>;
}

/** Whole seconds from milliseconds, as the Song shape keeps them. */
export const seconds = (ms: unknown) =>
  typeof ms === "number" && ms > 0 ? Math.round(ms / 1000) : 0;

/** A string field of untrusted provider JSON, or null. */
export const str = (v: unknown): string | null =>
  typeof v === "string" && v.trim() ? v : typeof v === "number" ? String(v) : null;

/** Copies only the defined entries, so songs never carry `{ spotify: undefined }`. */
export function defined<T extends Record<string, unknown>>(
  o: T,
): { [K in keyof T]?: Exclude<T[K], null | undefined> } {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== null && v !== undefined && v !== ""),
  ) as never;
}

/** The year of a provider's release date ("2019", "2019-05", "2019-05-03"), or null. */
export function yearOf(v: unknown): number | null {
  const m = typeof v === "string" ? /^(\d{4})/.exec(v) : null;
  const y = m ? Number(m[1]) : NaN;
  return y >= 1000 && y <= 2100 ? y : null;
}
