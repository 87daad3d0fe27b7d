import type { MusicProvider } from "../../../shared/songs";
import type { Env } from "../../env";
import { ApiError } from "../../lib/errors";
import { apple } from "./apple";
import { audius } from "./audius";
import { ProviderError } from "./http";
import { sevenDigital } from "./seven-digital";
import { soundCloud } from "./soundcloud";
import { spotify } from "./spotify";
import type { MusicAdapter } from "./types";
import { youtube } from "./youtube";
import { MSG } from "../../playlist-service/messages";

export type { AudioQuality, MusicAdapter, ProviderSong, SearchPage, SearchParams } from "./types";
export { ProviderError } from "./http";

/**
 * The music provider registry. Each adapter is enabled only when its configuration is in
 * the environment (DESIGN.md, "Outside services"): with nothing set, search answers from
 * the local catalogue alone and provider-only calls answer 503.
 */
export const MUSIC_ADAPTERS: readonly MusicAdapter[] = [
  sevenDigital,
  soundCloud,
  audius,
  spotify,
  apple,
  youtube,
];
export type AdapterKey = (typeof MUSIC_ADAPTERS)[number]["key"];
export const ADAPTER_KEYS = MUSIC_ADAPTERS.map((a) => a.key) as MusicProvider[];

export const adapterFor = (key: string): MusicAdapter | undefined =>
  MUSIC_ADAPTERS.find((a) => a.key === key);

/** "hangout" unless BRAND says "turntable": it picks the search and playback order. */
export type Brand = "hangout" | "turntable";
export const brandOf = (env: Env): Brand =>
  env.BRAND?.trim().toLowerCase() === "turntable" ? "turntable" : "hangout";

/**
 * Link hosts the spec resolves (seed 001, Validation rules: "the host contains ...").
 * Only some have an adapter; the rest are recognised but cannot be looked up here.
 */
export const LINK_HOSTS = [
  "apple",
  "audius",
  "napster",
  "soundcloud",
  "spotify",
  "youtube",
  "youtu.be",
  "pandora",
  "deezer",
  "tidal",
  "amazon",
  "yandex",
  "spinrilla",
] as const;

const HOST_NAMES: Record<string, string> = {
  napster: "Napster",
  pandora: "Pandora",
  deezer: "Deezer",
  tidal: "Tidal",
  amazon: "Amazon Music",
  yandex: "Yandex Music",
  spinrilla: "Spinrilla",
};

/**
 * Which provider a link is from: the first spec host its hostname contains, and the adapter
 * for it (undefined for hosts we recognise but have no adapter for). Null: unsupported.
 */
export function providerForHost(
  hostname: string,
): { host: string; name: string; adapter?: MusicAdapter } | null {
  const h = hostname.toLowerCase();
  const host = LINK_HOSTS.find((x) => h.includes(x));
  if (!host) return null;
  const adapter = MUSIC_ADAPTERS.find((a) => a.hosts.includes(host));
  return { host, name: adapter?.name ?? HOST_NAMES[host] ?? host, adapter };
}

/** The adapter, or 503 naming the provider when it is not configured. */
export function requireEnabled(env: Env, adapter: MusicAdapter): MusicAdapter {
  if (!adapter.enabled(env)) throw new ApiError(503, MSG.providerOff(adapter.name));
  return adapter;
}

/**
 * Runs one provider call for a route: a provider failure becomes a 502 naming it (the
 * provider is at fault, not the client; never a 500). Our own ApiErrors pass through.
 */
export async function outside<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ProviderError) {
      console.warn(err.message);
      throw new ApiError(502, MSG.providerFailed(name));
    }
    throw err;
  }
}
