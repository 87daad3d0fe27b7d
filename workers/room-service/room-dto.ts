import { getServerByName } from "partyserver";
import { roomSettingsSchema, type RoomRoleName, type RoomSettings } from "../../shared/rooms";
import type { RoomRow } from "../db/schema";
import type { Env } from "../env";
import type { Room, RoomSummary } from "../../durable/room";

/**
 * The two shapes a room row becomes: the RoomDto clients see (REFERENCE.md) and the
 * RoomSettings the live Room object keeps (shared/rooms.ts). Both are built here and only
 * here, so a new column cannot reach one and be forgotten in the other.
 */

/** A room role as the object reports it (REFERENCE.md, UserRoles). */
export interface RoomRoleDto {
  id?: number | string;
  roomId?: number;
  userUuid: string;
  role: RoomRoleName;
  expirationTime: string | number | null;
  createdAt?: string;
  updatedAt?: string;
}

/** What only the live object knows; D1-only answers use the empty defaults. */
export interface LiveRoomInfo {
  roomRoles?: RoomRoleDto[];
  song?: unknown;
  usersInRoomUuids?: string[];
  friendInRoomUuids?: string[];
  numberOfUsersInRoom?: number;
  numberOfActiveDjs?: number;
}

/**
 * RoomDto (REFERENCE.md). Password hashes never leave: `isPasswordProtected` and
 * `isGuestPasswordProtected` say whether one is set. `ownerUuid`, `discordGuildId` and the
 * beyond-peer settings are additions of ours.
 */
export function toRoomDto(r: RoomRow, live: LiveRoomInfo = {}) {
  return {
    uuid: r.uuid,
    id: r.id,
    slug: r.slug,
    name: r.name,
    description: r.description,
    vibe: r.vibe,
    djType: r.djType,
    type: r.type,
    design: r.design,
    genre: r.genre ?? null,
    musicProviderKeys: r.musicProviderKeys,
    numberOfDjs: r.numberOfDjs,
    songsPerDj: r.songsPerDj,
    roomSize: r.roomSize,
    entryFee: r.entryFee,
    freeEntries: r.freeEntries,
    isPasswordProtected: r.passwordHash !== null,
    isGuestPasswordProtected: r.guestPasswordHash !== null,
    unlisted: r.unlisted,
    promoted: r.promoted,
    isLive: r.isLive,
    liveAudio: r.liveAudio,
    hasChat: r.hasChat,
    posterUrl: r.posterUrl,
    externalUrl: r.externalUrl,
    roomRoles: live.roomRoles ?? [],
    pinnedMessages: r.pinnedMessages,
    song: live.song ?? null,
    usersInRoomUuids: live.usersInRoomUuids ?? [],
    friendInRoomUuids: live.friendInRoomUuids ?? [],
    numberOfUsersInRoom: live.numberOfUsersInRoom ?? live.usersInRoomUuids?.length ?? 0,
    numberOfActiveDjs: live.numberOfActiveDjs ?? 0,
    ownerUuid: r.ownerUuid,
    discordGuildId: r.discordGuildId,
    maxSongSeconds: r.maxSongSeconds,
    afkMinutes: r.afkMinutes,
    autoSkipRatio: r.autoSkipRatio,
    repeatWindowMinutes: r.repeatWindowMinutes,
    createdAt: new Date(r.createdAt).toISOString(),
    updatedAt: new Date(r.updatedAt).toISOString(),
  };
}
export type RoomDto = ReturnType<typeof toRoomDto>;

/**
 * The settings the live object needs, from the row. Parsed through the shared schema so a
 * row that somehow holds an out-of-range value fails here, loudly, rather than in the object.
 */
export function roomSettingsOf(r: RoomRow): RoomSettings {
  return roomSettingsSchema.parse({
    uuid: r.uuid,
    slug: r.slug,
    name: r.name,
    ownerUuid: r.ownerUuid,
    numberOfDjs: r.numberOfDjs,
    songsPerDj: r.songsPerDj,
    djType: r.djType,
    type: r.type,
    design: r.design,
    hasChat: r.hasChat,
    isLive: r.isLive,
    liveAudio: r.liveAudio,
    pinnedMessages: r.pinnedMessages,
    maxSongSeconds: r.maxSongSeconds,
    afkMinutes: r.afkMinutes,
    autoSkipRatio: r.autoSkipRatio,
    repeatWindowMinutes: r.repeatWindowMinutes,
    isPasswordProtected: r.passwordHash !== null,
    isGuestPasswordProtected: r.guestPasswordHash !== null,
  });
}

/**
 * The Room object's RPC surface: the typed stub of the class itself (env.Room is a
 * `DurableObjectNamespace<Room>`), so a call that does not match durable/room.ts fails to
 * compile here instead of at run time.
 */
export type RoomRpc = DurableObjectStub<Room>;

/** The room's object, named by the room's uuid (partyserver needs the name set first). */
export function roomStub(env: Env, roomUuid: string): Promise<RoomRpc> {
  return getServerByName(env.Room, roomUuid);
}

/** A promise that gives up after `ms`, so one slow object cannot hold a whole list. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<T>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)),
    ),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Pushes the row's settings to the live object. D1 is the source of truth; a failed push is
 * logged, not surfaced as a 500, because the join route pushes the settings again before
 * anyone connects, so the object catches up at the latest on the next join.
 */
export async function pushSettings(env: Env, r: RoomRow): Promise<boolean> {
  try {
    const stub = await roomStub(env, r.uuid);
    await withTimeout(stub.applySettings(roomSettingsOf(r)), 5000);
    return true;
  } catch (err) {
    console.error(`room ${r.uuid}: applySettings failed`, err);
    return false;
  }
}

/** Present users' uuids, or [] when the object cannot answer (lists show 0, never a 500). */
export async function presentUsers(env: Env, roomUuid: string, ms = 2000): Promise<string[]> {
  try {
    const stub = await withTimeout(roomStub(env, roomUuid), ms);
    const uuids = await withTimeout(stub.getUserUuids(), ms);
    return Array.isArray(uuids) ? uuids : [];
  } catch {
    return [];
  }
}

/**
 * What a list shows of a live room: present users, DJs and the song playing (with its DJ's
 * name), in ONE object call bounded by `ms`. A failure or timeout is an empty room, never
 * a failed list (DECISIONS.md, "Room cards show what plays").
 */
export async function liveSummary(env: Env, roomUuid: string, ms = 2000): Promise<RoomSummary> {
  try {
    const stub = await withTimeout(roomStub(env, roomUuid), ms);
    const s = await withTimeout(stub.getSummary(), ms);
    return {
      userUuids: Array.isArray(s?.userUuids) ? s.userUuids : [],
      numberOfActiveDjs: s?.numberOfActiveDjs ?? 0,
      nowPlaying: s?.nowPlaying ?? null,
    };
  } catch {
    return { userUuids: [], numberOfActiveDjs: 0, nowPlaying: null };
  }
}

/** RoomDtos with live user counts and what plays, fanned out to every room's object in parallel. */
export async function withLiveCounts(env: Env, rows: RoomRow[]) {
  const live = await Promise.all(rows.map((r) => liveSummary(env, r.uuid)));
  return rows.map((r, i) =>
    toRoomDto(r, {
      usersInRoomUuids: live[i].userUuids,
      numberOfUsersInRoom: live[i].userUuids.length,
      numberOfActiveDjs: live[i].numberOfActiveDjs,
      song: live[i].nowPlaying,
    }),
  );
}
