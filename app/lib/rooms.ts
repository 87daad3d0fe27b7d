import { isPlatformStaff } from "../../shared/permissions";
import type { RoomDesign } from "../../shared/rooms";
import type { RoomDto } from "../../workers/room-service/room-dto";

export type { RoomDto };
export { ROOM_DESIGNS, DJ_TYPES, type RoomDesign, type DjType } from "../../shared/rooms";

/** Where the room-service answers (DESIGN.md, "Gateway paths"). */
export const ROOM_SERVICE = "/api/room-service";
/** Favourites live under the room-service's `/api/v1` prefix. */
export const ROOM_FAVORITES = `${ROOM_SERVICE}/api/v1/room-favorites`;

/** What `POST /rooms/{id}/join` answers: everything the socket needs. */
export interface JoinInfo {
  roomUuid: string;
  slug: string;
  partyPath: string;
  /** Shown by the websocket: proof this visitor went through the join (and its password). */
  ticket: string;
  settings: {
    numberOfDjs: number;
    design: RoomDesign;
    name: string;
    hasChat: boolean;
    djType: string;
    ownerUuid: string | null;
  };
}

export interface Palette {
  /** The backdrop: a CSS background (gradients over the page's dark ink). */
  backdrop: string;
  /** The lit colour: current DJ ring, progress, buttons. */
  accent: string;
  /** A second colour for glows. */
  glow: string;
}

/**
 * Each room design's look (seed 001: the design picks the backdrop). Colours are picked so
 * white text on the backdrop keeps AA contrast (every stop is dark at the text's height).
 */
export const DESIGN_PALETTES: Record<RoomDesign, Palette> = {
  BARN: {
    backdrop: "radial-gradient(120% 80% at 50% 0%, #6b3a1f 0%, #2a160c 55%, #120a06 100%)",
    accent: "#f4a259",
    glow: "#c8553d",
  },
  BARN_UA: {
    backdrop: "linear-gradient(180deg, #0b3d91 0%, #0b2a5e 45%, #3a3208 80%, #141006 100%)",
    accent: "#ffd500",
    glow: "#005bbb",
  },
  CHAT_ONLY: {
    backdrop: "linear-gradient(160deg, #1f2440 0%, #13162a 60%, #0b0d18 100%)",
    accent: "#9aa8ff",
    glow: "#562df9",
  },
  CLUB: {
    backdrop: "radial-gradient(120% 90% at 20% 0%, #5a1a8c 0%, #250b45 45%, #0b0615 100%)",
    accent: "#ff4fa3",
    glow: "#562df9",
  },
  CLUB_UA: {
    backdrop: "radial-gradient(120% 90% at 80% 0%, #0057b7 0%, #10254d 50%, #0a0c14 100%)",
    accent: "#ffd700",
    glow: "#0057b7",
  },
  FERRY_BUILDING: {
    backdrop: "linear-gradient(180deg, #274060 0%, #1b2a3f 50%, #0d141f 100%)",
    accent: "#ffb366",
    glow: "#5c9ead",
  },
  FESTIVAL: {
    backdrop: "radial-gradient(140% 90% at 50% 0%, #b33a3a 0%, #5d1f5e 40%, #1a0d26 100%)",
    accent: "#ffd166",
    glow: "#ef476f",
  },
  STADIUM: {
    backdrop: "radial-gradient(120% 70% at 50% 0%, #1f6f4a 0%, #0f3a2a 45%, #07140f 100%)",
    accent: "#7cf29c",
    glow: "#e0f7ff",
  },
  THEATER: {
    backdrop: "radial-gradient(110% 80% at 50% 0%, #7a0e1e 0%, #3d0710 50%, #140307 100%)",
    accent: "#f5c04a",
    glow: "#b3122e",
  },
  TOMORROWLAND: {
    backdrop: "radial-gradient(130% 90% at 50% 0%, #3b2f8f 0%, #1d1650 45%, #090720 100%)",
    accent: "#3ee0ff",
    glow: "#b388ff",
  },
  UNDERGROUND: {
    backdrop: "linear-gradient(180deg, #2b2b2b 0%, #161616 55%, #080808 100%)",
    accent: "#39ff14",
    glow: "#ff3131",
  },
  YACHT: {
    backdrop: "linear-gradient(180deg, #0f5e8c 0%, #0a3a5c 45%, #061c2c 100%)",
    accent: "#ffe8a3",
    glow: "#4fd1ff",
  },
};

export const paletteOf = (design: string | null | undefined): Palette =>
  DESIGN_PALETTES[(design as RoomDesign) ?? "CLUB"] ?? DESIGN_PALETTES.CLUB;

/**
 * Where a song starts in the room (DESIGN.md, "Playback"): duration minus the time left
 * until endTime, never below zero (nor past the end).
 */
export function startOffsetSeconds(
  np: { startTime: number; endTime: number; song: { duration?: number | null } },
  serverNow: number,
): number {
  const duration = np.song.duration ?? (np.endTime - np.startTime) / 1000;
  const at = duration - (np.endTime - serverNow) / 1000;
  return Math.max(0, Math.min(duration, at));
}

/** A public profile, as `GET /users/profiles` gives it (the fields the room shows). */
export interface RoomProfile {
  uuid: string;
  nickname: string;
  color: string | null;
  profilePicture: string | null;
  /** The avatar the user wears (issue 6); the room draws it before the picture. */
  avatarId?: string | null;
  /** Platform badges (issue 15), shown beside the name. */
  badges?: string[];
}

/** The room roles a user holds now (expired entries left out); the owner holds "owner". */
export function activeRoomRoles(
  settings:
    | {
        ownerUuid?: string | null;
        roomRoles?: { userUuid: string; role: string; expirationTime: number | null }[];
      }
    | null
    | undefined,
  uuid: string | null | undefined,
  now = Date.now(),
): Set<string> {
  const held = new Set<string>();
  if (!settings || !uuid) return held;
  if (settings.ownerUuid === uuid) held.add("owner");
  for (const r of settings.roomRoles ?? [])
    if (r.userUuid === uuid && (r.expirationTime === null || r.expirationTime > now))
      held.add(r.role);
  return held;
}

/**
 * Who may moderate a room (issue 4, "moderator actions"): its owner, a coOwner or moderator
 * by the room's roles, or a token role that moderates everywhere. `manage` says whether they
 * may also grant and remove moderators (owner, coOwner, or the global roles).
 */
export function moderationRights(
  settings: Parameters<typeof activeRoomRoles>[0],
  uuid: string | null | undefined,
  tokenRoles: readonly (string | null | undefined)[] = [],
  now = Date.now(),
): { moderate: boolean; manage: boolean } {
  const held = activeRoomRoles(settings, uuid, now);
  // The buttons follow the one table the room and REST enforce (shared/permissions.ts).
  const global = isPlatformStaff(tokenRoles);
  const manage = global || held.has("owner") || held.has("coOwner");
  return { moderate: manage || held.has("moderator"), manage };
}

/** What the room's refusal reason means to the person refused (the kicked screen). */
export function kickKind(reason: string | null | undefined): "banned" | "kicked" | "reason" {
  if (reason === "banned") return "banned";
  if (!reason || reason === "kicked") return "kicked";
  return "reason";
}

/** Where a play happens, for play tracking (seed 001 "Play-tracking record"): null outside a room. */
export interface PlayContext {
  roomSlug: string;
  roomOwnerUuid: string | null;
  djUuid: string | null;
  /** The Room object's id for this play: every listener of it reports the same one. */
  playId: string | null;
}

/**
 * The play-tracking context of the song a room plays: its slug (lowercase, as recent plays
 * store it), owner, the DJ and the room's playId. Null when nothing plays or the room's
 * settings are not known yet, so a record is never sent with half its room fields.
 */
export function roomPlayContext(
  np: { djUuid: string; playId: string } | null | undefined,
  settings: { slug?: string | null; ownerUuid?: string | null } | null | undefined,
): PlayContext | null {
  if (!np || !settings?.slug) return null;
  return {
    roomSlug: settings.slug.toLowerCase(),
    roomOwnerUuid: settings.ownerUuid ?? null,
    djUuid: np.djUuid || null,
    playId: np.playId || null,
  };
}
