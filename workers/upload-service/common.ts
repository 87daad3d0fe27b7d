import { and, eq, isNotNull } from "drizzle-orm";
import { z } from "zod";
import { ADMIN_ROLES } from "../../shared/roles";
import type { SongStatus } from "../../shared/songs";
import { db } from "../db/client";
import { songFiles, songs, type SongRow } from "../db/schema";
import type { Env } from "../env";
import type { Caller } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { toSongDto } from "../songs/dto";
import type { HlsSegment, Id3Tags, Mp3Index } from "../songs/mp3";
import { isPlayable } from "../songs/mp3";
import { SONG_MSG } from "../songs/messages";
import { MSG } from "./messages";

/** What the upload-service's routes share: loading an upload, who may see it, its verdict, its shape. */

export type SongFileRow = typeof songFiles.$inferSelect;
export interface Upload {
  song: SongRow;
  file?: SongFileRow;
}

/** R2 keys of a song live under one prefix, so deleting it can sweep a transcoder's renditions too. */
export const songPrefix = (songId: string) => `songs/${songId}/`;
export const originalKey = (songId: string) => `${songPrefix(songId)}original`;

export const isAdmin = (who: Caller | undefined) =>
  !!who && who.roles.some((r) => ADMIN_ROLES.includes(r));
export const isOwner = (who: Caller | undefined, song: SongRow) =>
  !!who && who.uuid === song.ownerUuid;

/** An uploaded song (catalogue songs have no owner and are not this service's) with its file row. */
export async function findUpload(env: Env, songId: string): Promise<Upload | undefined> {
  const row = await db(env)
    .select()
    .from(songs)
    .leftJoin(songFiles, eq(songFiles.songId, songs.id))
    .where(and(eq(songs.songId, songId), isNotNull(songs.ownerUuid)))
    .get();
  return row && { song: row.songs, file: row.song_files ?? undefined };
}

/**
 * The version of a song's audio that segment URLs and the segment cache are keyed by
 * (segment-cache.ts): song_files.updated_at, which every write of the file or its segments
 * (upload, transcoder) moves.
 */
export const fileEpoch = (file: SongFileRow) => file.updatedAt;

export async function findUploadOr404(env: Env, songId: string): Promise<Upload> {
  const up = await findUpload(env, songId);
  if (!up) throw new ApiError(404, SONG_MSG.songNotFound);
  return up;
}

/** Owners and admins see any upload; everyone else only public, verified ones. */
export const canView = (who: Caller | undefined, song: SongRow) =>
  isOwner(who, song) || isAdmin(who) || (song.isPublic && song.status === "VERIFIED");

/**
 * A song as the API answers it. The owner (and an admin) also get `detail`: why
 * verification failed or is postponed; others never see it.
 */
export function toUploadDto(up: Upload, who: Caller | undefined) {
  const dto = toSongDto(up.song);
  return isOwner(who, up.song) || isAdmin(who) ? { ...dto, detail: up.file?.detail ?? null } : dto;
}

/** A trimmed, non-empty text of at most `max` characters. */
export const text = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(max, `${field} must be at most ${max} characters`);
const ISRC = /^[A-Z]{2}[A-Z0-9]{3}\d{7}$/i;

/** Tag fields the owner may set (POST /metadata, PATCH /songs/{id}); null clears an optional one. */
export const tagFields = {
  trackName: text("trackName", 200).optional(),
  artistName: text("artistName", 200).optional(),
  albumName: text("albumName", 200).nullable().optional(),
  genre: text("genre", 50).nullable().optional(),
  releaseYear: z
    .number({ error: "releaseYear must be a number" })
    .int("releaseYear must be a whole year")
    .min(1900, "releaseYear must be 1900 or later")
    .max(2100, "releaseYear must be 2100 or earlier")
    .nullable()
    .optional(),
  explicit: z.boolean({ error: "explicit must be true or false" }).optional(),
  isrc: z
    .string({ error: "isrc must be a string" })
    .trim()
    .regex(ISRC, "isrc must be an ISRC like USRC17607839")
    .transform((s) => s.toUpperCase())
    .nullable()
    .optional(),
  isPublic: z.boolean({ error: "isPublic must be true or false" }).optional(),
};
export type TagUpdate = { [K in keyof typeof tagFields]?: z.output<(typeof tagFields)[K]> };

export const songIdParam = z.object({ songId: z.uuid({ error: "songId must be a UUID" }) });

/** Both names known: what VERIFIED needs besides playable audio. */
export const hasNames = (s: { trackName: string; artistName: string }) =>
  s.trackName.trim() !== "" && s.artistName.trim() !== "";

/** Names and tags for a new upload: what the uploader typed wins over the file's ID3 tag. */
export function mergeTags(
  form: { trackName?: string; artistName?: string; albumName?: string; genre?: string },
  id3: Id3Tags,
) {
  const clip = (s: string | undefined, max: number) => s?.trim().slice(0, max) || undefined;
  const year = id3.year && id3.year >= 1900 && id3.year <= 2100 ? id3.year : undefined;
  return {
    trackName: clip(form.trackName ?? id3.title, 200) ?? "",
    artistName: clip(form.artistName ?? id3.artist, 200) ?? "",
    albumName: clip(form.albumName ?? id3.album, 200) ?? null,
    genre: clip(form.genre ?? id3.genre, 50) ?? null,
    releaseYear: year ?? null,
  };
}

export interface Verdict {
  status: SongStatus;
  detail: string | null;
  segments: HlsSegment[] | null;
  /** Whole seconds, as songs.duration keeps it. */
  duration: number;
}

/** What an MP3's index means for its song (the table at the top of uploads.ts). */
export function verdict(ix: Mp3Index, names: { trackName: string; artistName: string }): Verdict {
  if (!isPlayable(ix)) {
    const detail =
      ix.frames === 0 ? MSG.noFrames : ix.overflow ? MSG.tooFragmented : MSG.mostlyJunk;
    return { status: "VERIFICATION_ERROR", detail, segments: null, duration: 0 };
  }
  return {
    status: hasNames(names) ? "VERIFIED" : "MISSING_METADATA",
    detail: null,
    segments: ix.segments,
    duration: Math.round(ix.duration),
  };
}
