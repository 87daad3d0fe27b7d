import { z } from "zod";

/**
 * Room enumerations and settings (seed 001: Room, Room settings; REFERENCE.md RoomDto),
 * shared by the room-service, the Room object and the browser.
 */
/**
 * Songs a guest hears before the room asks them to sign up (spec 001 Playback: "Guests
 * beyond a free-play limit cannot play"; the spec does not show the value). A song counts
 * when it is on air while the guest has a socket in the room; the count is per guest token
 * across reconnects and rooms (D1 guest_plays). Five songs is about twenty minutes: long
 * enough to know a room, short of a free radio.
 */
export const GUEST_FREE_PLAYS = 5;

export const DJ_TYPES = ["EVERYONE", "INVITE_ONLY", "PRO_PLAN_OWNER", "VERIFIED_ONLY"] as const;
export type DjType = (typeof DJ_TYPES)[number];
export const ROOM_TYPES = ["PUBLIC", "PRIVATE"] as const;
export type RoomType = (typeof ROOM_TYPES)[number];
export const ROOM_DESIGNS = [
  "BARN",
  "BARN_UA",
  "CHAT_ONLY",
  "CLUB",
  "CLUB_UA",
  "FERRY_BUILDING",
  "FESTIVAL",
  "STADIUM",
  "THEATER",
  "TOMORROWLAND",
  "UNDERGROUND",
  "YACHT",
] as const;
export type RoomDesign = (typeof ROOM_DESIGNS)[number];
/**
 * What a room mostly plays, so listeners can find their music (issue 20, "filter by
 * genre"). A short fixed list, not the catalogue's genres: a filter needs few, stable
 * choices, and a room is rarely one narrow genre. Null: the owner did not say.
 */
export const ROOM_GENRES = [
  "pop",
  "rock",
  "hiphop",
  "electronic",
  "house",
  "techno",
  "indie",
  "rnb",
  "jazz",
  "latin",
  "lofi",
  "metal",
  "country",
  "classical",
  "mixed",
] as const;
export type RoomGenre = (typeof ROOM_GENRES)[number];
/** How room discovery orders rooms (GET /rooms/discover?sort=). */
export const DISCOVER_SORTS = ["listeners", "activity", "newest"] as const;
export const ROOM_ROLES = [
  "moderator",
  "owner",
  "coOwner",
  "banned",
  "kicked",
  "chatDisabled",
  "djDisabled",
  "dj",
] as const;
export type RoomRoleName = (typeof ROOM_ROLES)[number];

/**
 * What the live Room object needs of a room's settings. The room-service owns the D1 row
 * and pushes these to the object (Room.applySettings) whenever they change; the object
 * keeps its own copy so it never reads D1 on a hot path. Beyond-peer settings have
 * defaults (issue 4): a maximum song length, AFK removal, an auto-skip threshold scaled to
 * active listeners, a repeat window.
 */
export const roomSettingsSchema = z.object({
  uuid: z.string(),
  slug: z.string(),
  name: z.string(),
  ownerUuid: z.string().nullable().default(null),
  numberOfDjs: z.number().int().min(1).max(10).default(5),
  songsPerDj: z.number().int().min(1).max(100).nullable().default(null),
  djType: z.enum(DJ_TYPES).default("EVERYONE"),
  type: z.enum(ROOM_TYPES).default("PUBLIC"),
  design: z.enum(ROOM_DESIGNS).default("CLUB"),
  hasChat: z.boolean().default(true),
  /** Shown to clients; the password itself is checked by the REST join, never by the object. */
  isPasswordProtected: z.boolean().default(false),
  isGuestPasswordProtected: z.boolean().default(false),
  isLive: z.boolean().default(true),
  liveAudio: z.boolean().default(false),
  pinnedMessages: z
    .array(
      z.object({ id: z.string(), message: z.string(), pinnedBy: z.string(), pinnedAt: z.number() }),
    )
    .default([]),
  /** Songs longer than this are skipped at their start (seconds). */
  maxSongSeconds: z
    .number()
    .int()
    .min(30)
    .max(3 * 3600)
    .default(15 * 60),
  /** A DJ idle (no vote, chat or seat action) this long is taken off the stage (minutes; 0 = never). */
  afkMinutes: z.number().int().min(0).max(240).default(30),
  /** Share of active listeners whose dislikes skip the song (0 = never). */
  autoSkipRatio: z.number().min(0).max(1).default(0.5),
  /** A song played in the room within this many minutes is refused (0 = off). */
  repeatWindowMinutes: z
    .number()
    .int()
    .min(0)
    .max(24 * 60)
    .default(60),
});
export type RoomSettings = z.output<typeof roomSettingsSchema>;
