import { and, desc, eq, isNotNull, ne, sql, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { songFiles, songs } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { limitOffset } from "../lib/paging";
import { valid } from "../lib/validate";
import { SONG_MSG } from "../songs/messages";
import { matchesSearch, NEWEST_MATCHES, songPage, uploadSearchWhere } from "../songs/search";
import {
  canView,
  findUpload,
  findUploadOr404,
  hasNames,
  isAdmin,
  isOwner,
  songIdParam,
  songPrefix,
  tagFields,
  toUploadDto,
  type TagUpdate,
  type Upload,
} from "./common";
import { MSG } from "./messages";
import { forgetSongSegments } from "./segment-cache";
import { canTransition } from "./uploads";
import { recordFacetsQuietly } from "../songs/facets";

/** Uploaded songs: read, edit tags, take down, delete, list and search. */
export const songRoutes = new Hono<AppEnv>();

const hasSome = (o: object) => Object.values(o).some((v) => v !== undefined);
const patchBody = z
  .strictObject({
    ...tagFields,
    status: z
      .enum(["UNVERIFIED", "VERIFIED"], { error: "status must be UNVERIFIED or VERIFIED" })
      .optional(),
  })
  .refine(hasSome, MSG.nothingToUpdate);
const metadataBody = z
  .strictObject({ songId: songIdParam.shape.songId, ...tagFields })
  .refine(({ songId: _, ...tags }) => hasSome(tags), MSG.nothingToUpdate);

/**
 * Writes the owner's tags. A song waiting only for its names (MISSING_METADATA, with
 * segments) becomes VERIFIED in the same batch; the condition is in SQL, so an admin's
 * takedown racing this edit is never undone.
 */
async function updateTags(env: Env, up: Upload, tags: TagUpdate) {
  const d = db(env);
  const id = up.song.id;
  await d.batch([
    d
      .update(songs)
      .set({ ...tags, updatedAt: Date.now() })
      .where(eq(songs.id, id)),
    d
      .update(songs)
      .set({ status: "VERIFIED" })
      .where(
        and(
          eq(songs.id, id),
          eq(songs.status, "MISSING_METADATA"),
          ne(sql`trim(${songs.trackName})`, ""),
          ne(sql`trim(${songs.artistName})`, ""),
          sql`exists (select 1 from song_files f where f.song_id = ${id} and f.segments is not null)`,
        ),
      ),
  ]);
}

/**
 * An admin's status change: a takedown (UNVERIFIED) from any settled status, or putting a
 * taken-down song back (VERIFIED, or MISSING_METADATA if it has no names). Conditional on
 * the status read, so two moderators cannot interleave.
 */
async function setStatus(env: Env, up: Upload, to: "UNVERIFIED" | "VERIFIED") {
  const from = up.song.status;
  if (from === to) return;
  let target: typeof from = to;
  if (to === "VERIFIED") {
    if (from !== "UNVERIFIED" || !up.file?.segments?.length)
      throw new ApiError(409, MSG.cannotReinstate);
    target = hasNames(up.song) ? "VERIFIED" : "MISSING_METADATA";
  } else if (!canTransition(from, to)) throw new ApiError(409, MSG.stillUploading);
  const done = await db(env)
    .update(songs)
    .set({ status: target, updatedAt: Date.now() })
    .where(and(eq(songs.id, up.song.id), eq(songs.status, from)))
    .returning({ id: songs.id });
  if (!done.length) throw new ApiError(409, MSG.changedMeanwhile);
}

/** GET /songs/public: verified public uploads, newest first, for anyone. */
songRoutes.get("/songs/public", valid("query", limitOffset()), async (c) => {
  const { limit, offset } = c.req.valid("query");
  return c.json(
    await page(
      c.env,
      and(isNotNull(songs.ownerUuid), eq(songs.status, "VERIFIED"), eq(songs.isPublic, true))!,
      limit,
      offset,
    ),
  );
});

/** GET /songs?verified=true|false: the caller's own uploads, newest first. */
songRoutes.get(
  "/songs",
  requireUser,
  valid(
    "query",
    limitOffset().extend({
      verified: z.enum(["true", "false"], { error: "verified must be true or false" }).optional(),
    }),
  ),
  async (c) => {
    const who = caller(c);
    const { limit, offset, verified } = c.req.valid("query");
    const status =
      verified === undefined
        ? undefined
        : verified === "true"
          ? eq(songs.status, "VERIFIED")
          : ne(songs.status, "VERIFIED");
    return c.json(await page(c.env, and(eq(songs.ownerUuid, who.uuid), status)!, limit, offset));
  },
);

/** GET /search?term=: the caller's uploads and public verified ones, by FTS5 word prefixes, newest first. */
songRoutes.get(
  "/search",
  requireUser,
  valid(
    "query",
    limitOffset().extend({
      term: z.string().max(200, "term must be at most 200 characters").optional(),
    }),
  ),
  async (c) => {
    const who = caller(c);
    const { term, limit, offset } = c.req.valid("query");
    const match = matchesSearch(term ?? "");
    if (!match) throw new ApiError(400, SONG_MSG.emptySearch);
    return c.json(
      await songPage(c.env, uploadSearchWhere(match, who.uuid), NEWEST_MATCHES, limit, offset),
    );
  },
);

/** Lists of uploads: newest first by created_at, the order songs_owner_idx keeps. */
const page = (env: Env, where: SQL | undefined, limit: number, offset: number) =>
  songPage(env, where, [desc(songs.createdAt), desc(songs.id)], limit, offset);

/** GET /songs/{songId}: the owner (and admins) always; anyone once it is public and verified; else 404. */
songRoutes.get("/songs/:songId", valid("param", songIdParam), async (c) => {
  const who = c.get("caller");
  const up = await findUpload(c.env, c.req.valid("param").songId);
  if (!up || !canView(who, up.song)) throw new ApiError(404, SONG_MSG.songNotFound);
  return c.json(toUploadDto(up, who));
});

/**
 * PATCH /songs/{songId}: tags by the owner (anyone else: 403 with the catalogue's text),
 * `status` by an admin only (a takedown or its reversal).
 */
songRoutes.patch(
  "/songs/:songId",
  requireUser,
  valid("param", songIdParam),
  valid("json", patchBody),
  async (c) => {
    const who = caller(c);
    const { songId } = c.req.valid("param");
    const { status, ...tags } = c.req.valid("json");
    let up = await findUploadOr404(c.env, songId);
    if (hasSome(tags) && !isOwner(who, up.song)) throw new ApiError(403, SONG_MSG.editForbidden);
    if (status && !isAdmin(who)) throw new ApiError(403, MSG.statusAdminOnly);
    if (hasSome(tags)) {
      await updateTags(c.env, up, tags);
      up = await findUploadOr404(c.env, songId);
    }
    if (status) {
      await setStatus(c.env, up, status);
      up = await findUploadOr404(c.env, songId);
      // A takedown stops playback at once: no cached segment outlives it here.
      if (up.song.status !== "VERIFIED") await forgetSongSegments(c.env, c.req.url, up);
    }
    await recordFacetsQuietly(c.env, up.song);
    return c.json(toUploadDto(up, who));
  },
);

/** POST /metadata `{ songId, ...tags }`: the same edit as PATCH, owner only. */
songRoutes.post("/metadata", requireUser, valid("json", metadataBody), async (c) => {
  const who = caller(c);
  const { songId, ...tags } = c.req.valid("json");
  const up = await findUploadOr404(c.env, songId);
  if (!isOwner(who, up.song)) throw new ApiError(403, SONG_MSG.editForbidden);
  await updateTags(c.env, up, tags);
  const updated = await findUploadOr404(c.env, songId);
  await recordFacetsQuietly(c.env, updated.song);
  return c.json(toUploadDto(updated, who));
});

/**
 * DELETE /songs/{songId}: the owner or an admin. D1 first (rows gone, crates lose it by
 * cascade), then every R2 object under the song's prefix (original and renditions): a
 * failure in between leaves unreferenced bytes, never a row pointing at nothing.
 */
songRoutes.delete("/songs/:songId", requireUser, valid("param", songIdParam), async (c) => {
  const who = caller(c);
  const { songId } = c.req.valid("param");
  const up = await findUploadOr404(c.env, songId);
  if (!isOwner(who, up.song) && !isAdmin(who)) throw new ApiError(403, MSG.deleteForbidden);
  const d = db(c.env);
  await d.batch([
    d.delete(songFiles).where(eq(songFiles.songId, up.song.id)),
    d.delete(songs).where(eq(songs.id, up.song.id)),
  ]);
  await forgetSongSegments(c.env, c.req.url, up);
  let cursor: string | undefined;
  do {
    const listed = await c.env.UPLOADS.list({ prefix: songPrefix(songId), cursor });
    if (listed.objects.length) await c.env.UPLOADS.delete(listed.objects.map((o) => o.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
  return c.json({ songId, deleted: true });
});
