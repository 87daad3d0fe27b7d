import {
  DISCOVER_SORTS,
  ROOM_DESIGNS,
  ROOM_GENRES,
  type RoomDesign,
  type RoomGenre,
} from "../../shared/rooms";
import type { RoomDto } from "./rooms";

export { ROOM_GENRES, DISCOVER_SORTS };
export type DiscoverSort = (typeof DISCOVER_SORTS)[number];

/** A card from GET /rooms/discover: the RoomDto plus the friends there and the latest play. */
export type DiscoverRoom = RoomDto & {
  friendsInRoom?: {
    uuid: string;
    nickname: string;
    avatarId: string | null;
    color: string | null;
  }[];
  lastPlayedAt?: string | null;
};

export interface DiscoverFilters {
  q: string;
  sort: DiscoverSort;
  genre: RoomGenre | "";
  design: RoomDesign | "";
}

const oneOf = <T extends string>(list: readonly T[], v: string | null): T | "" =>
  v && (list as readonly string[]).includes(v) ? (v as T) : "";

/**
 * The page's query string as filters. A value the service would refuse (an unknown genre,
 * a 300-character search) becomes the default here, so a mangled link still shows rooms.
 */
export function discoverFilters(p: URLSearchParams): DiscoverFilters {
  return {
    q: (p.get("q") ?? "").trim().slice(0, 100),
    sort: oneOf(DISCOVER_SORTS, p.get("sort")) || "listeners",
    genre: oneOf(ROOM_GENRES, p.get("genre")),
    design: oneOf(ROOM_DESIGNS, p.get("design")),
  };
}

/** The service's query for these filters (empty ones left out). */
export function discoverQueryString(f: Partial<DiscoverFilters>, limit: number): string {
  const q = new URLSearchParams({ sort: f.sort || "listeners", limit: String(limit) });
  if (f.q) q.set("q", f.q);
  if (f.genre) q.set("genre", f.genre);
  if (f.design) q.set("design", f.design);
  return q.toString();
}
