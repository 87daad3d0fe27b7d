import {
  PROVIDER_PRIORITY,
  songsMatch,
  type MusicProvider,
  type SongDto,
} from "../../shared/songs";
import { ADAPTER_KEYS, type Brand, type ProviderSong } from "../adapters/music";

/** How many 7digital results lead the hangout brand's list before SoundCloud joins in. */
export const SEVEN_DIGITAL_LEAD = 5;

/**
 * The order provider results are listed in (seed 001, constants: "first 5 seven-digital
 * results, then interleaved with SoundCloud"; Playback: the brand's provider priority).
 *
 * - hangout: 7digital 1..5, then 7digital and SoundCloud alternating (7digital first) until
 *   both run out, then the other providers in PROVIDER_PRIORITY.hangout order;
 * - turntable: providers one after another in PROVIDER_PRIORITY.default order.
 * Providers the priority list does not name (YouTube for hangout, 7digital for turntable)
 * come last, in registry order, so an enabled provider is never silently dropped.
 */
export function orderProviderResults(
  brand: Brand,
  pages: Partial<Record<MusicProvider, ProviderSong[]>>,
): ProviderSong[] {
  const out: ProviderSong[] = [];
  const used = new Set<MusicProvider>();
  const take = (k: MusicProvider) => {
    used.add(k);
    return pages[k] ?? [];
  };
  if (brand === "hangout") {
    const seven = take("sevenDigital");
    const sc = take("soundCloudPublic");
    out.push(...seven.slice(0, SEVEN_DIGITAL_LEAD));
    const rest = seven.slice(SEVEN_DIGITAL_LEAD);
    for (let i = 0; i < Math.max(rest.length, sc.length); i++) {
      if (i < rest.length) out.push(rest[i]);
      if (i < sc.length) out.push(sc[i]);
    }
  }
  const priority = brand === "hangout" ? PROVIDER_PRIORITY.hangout : PROVIDER_PRIORITY.default;
  for (const k of [...priority, ...ADAPTER_KEYS]) if (!used.has(k)) out.push(...take(k));
  return out;
}

/** Unions what a second provider knows about a song into the first one's entry. */
function absorb(into: ProviderSong, from: ProviderSong): void {
  into.musicProviders = { ...from.musicProviders, ...into.musicProviders };
  into.thumbnails = { ...from.thumbnails, ...into.thumbnails };
  into.links = { ...from.links, ...into.links };
  into.previews = [...new Set([...into.previews, ...from.previews])];
  into.isrc ??= from.isrc;
  into.albumName ??= from.albumName;
}

/**
 * Local catalogue songs first, then provider results in brand order, with duplicates
 * removed by the shared song matcher (seed 001, Validation rules: Song matching):
 * - a provider song matching a local one is dropped (the local one is already importable
 *   and playable, and carries a songId);
 * - a provider song matching an earlier provider song is folded into it, so one result
 *   carries every provider's id (for example 7digital and Spotify by ISRC).
 */
export function mergeSearch(
  brand: Brand,
  local: SongDto[],
  pages: Partial<Record<MusicProvider, ProviderSong[]>>,
): (SongDto | ProviderSong)[] {
  const kept: ProviderSong[] = [];
  for (const s of orderProviderResults(brand, pages)) {
    if (local.some((l) => songsMatch(l, s))) continue;
    const twin = kept.find((k) => songsMatch(k, s));
    if (twin) absorb(twin, s);
    else kept.push({ ...s, musicProviders: { ...s.musicProviders } });
  }
  return [...local, ...kept];
}
