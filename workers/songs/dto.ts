import type { CrateSongDto, SongDto } from "../../shared/songs";
import type { CrateRow, SongRow } from "../db/schema";

export type { CrateSongDto, SongDto } from "../../shared/songs";

/**
 * The shapes songs and crates leave the API in (seed 001 Song and Crate; REFERENCE.md
 * MinimalCrateSongResDTO). Every route and the web app use these; the song shapes are
 * shared/songs.ts's (the room protocol carries them too), built here from rows.
 */

/** Where an uploaded song streams from (its HLS playlist). */
export const hlsPlaylistPath = (songId: string) =>
  `/api/upload-service/songs/${songId}/hls-playlist`;

export function toSongDto(s: SongRow): SongDto {
  const uploaded = s.musicProviders.uploadService !== undefined;
  return {
    songId: s.songId,
    songShortId: s.songShortId,
    isrc: s.isrc,
    trackName: s.trackName,
    artistName: s.artistName,
    genre: s.genre,
    duration: s.duration,
    explicit: s.explicit,
    releaseYear: s.releaseYear,
    albumName: s.albumName,
    status: s.status,
    musicProviders: s.musicProviders,
    thumbnails: s.thumbnails,
    links: s.links,
    previews: s.previews,
    // An upload streams from its HLS playlist once verified; other providers keep theirs.
    streamUrls:
      uploaded && s.status === "VERIFIED"
        ? { ...s.streamUrls, uploadService: hlsPlaylistPath(s.songId) }
        : s.streamUrls,
    ownerUuid: s.ownerUuid,
    isPublic: s.isPublic,
    createdAt: new Date(s.createdAt).toISOString(),
    updatedAt: new Date(s.updatedAt).toISOString(),
  };
}

/** A song as it sits in a crate: the song plus its place there. */
export function toCrateSongDto(
  s: SongRow,
  cs: { crateSongUuid: string; position: number; createdAt: number },
): CrateSongDto {
  return {
    ...toSongDto(s),
    crateSongUuid: cs.crateSongUuid,
    position: cs.position,
    addedAt: new Date(cs.createdAt).toISOString(),
    playbackToken: null,
  };
}

export function toCrateDto(c: CrateRow, crateSongsNumber: number) {
  return {
    crateUuid: c.crateUuid,
    crateName: c.crateName,
    description: c.description,
    userUuid: c.userUuid,
    crateType: c.crateType,
    isPublic: c.isPublic,
    thumbnails: c.thumbnails,
    crateSongsNumber,
    count: crateSongsNumber,
    currentPosition: c.currentPosition,
    importStatus: c.importStatus,
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
  };
}
export type CrateDto = ReturnType<typeof toCrateDto>;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** A 10-character base-62 short id (~59 bits; the unique index catches the rare clash). */
export function newShortId(): string {
  return [...crypto.getRandomValues(new Uint8Array(10))].map((b) => BASE62[b % 62]).join("");
}
