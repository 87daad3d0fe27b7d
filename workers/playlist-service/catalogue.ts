import { and, asc, count, desc, eq, or, sql, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { albums, artists, genres, songs } from "../db/schema";
import type { AppEnv } from "../env";
import { requireAnyToken } from "../lib/auth";
import { notFound } from "../lib/errors";
import { limitOffset, takeSkip } from "../lib/paging";
import { valid } from "../lib/validate";
import { toSongDto } from "../songs/dto";
import { SONG_MSG } from "../songs/messages";
import { songVisibleTo } from "../crates/crate-repo";

/** The catalogue: genres, songs, albums and artists. Any token may read it. */
export const catalogueRoutes = new Hono<AppEnv>();

/** `idIn=1,2,3`: at most 1024 positive ids. */
const idList = z
  .string({ error: "idIn must be a comma-separated list of ids" })
  .transform((s) =>
    s
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(
        z
          .string()
          .regex(/^[1-9][0-9]{0,14}$/, "idIn must hold positive integers")
          .transform(Number),
      )
      .max(1024, "idIn must have at most 1024 ids"),
  );

const genresQuery = z.object({
  // The spec's genre limit is 1024 (seed 001, constants).
  limit: z.coerce
    .number()
    .int()
    .min(1, "limit must be at least 1")
    .max(1024, "limit must be at most 1024")
    .default(100),
  idIn: idList.optional(),
  prefix: z.string().trim().max(100, "prefix must be at most 100 characters").optional(),
});

/** LIKE treats % and _ as wildcards; a typed prefix means them literally. */
const likePrefix = (s: string) => `${s.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** GET /api/v1/genres?limit&idIn&prefix: `{ data: [{ id, name }] }` by name (prefix ignores case). */
catalogueRoutes.get("/api/v1/genres", requireAnyToken, valid("query", genresQuery), async (c) => {
  const { limit, idIn, prefix } = c.req.valid("query");
  const where: (SQL | undefined)[] = [];
  // The ids go in as one JSON value: a bound parameter per id would pass D1's limit of 100.
  if (idIn) where.push(sql`${genres.id} in (select value from json_each(${JSON.stringify(idIn)}))`);
  if (prefix) where.push(sql`${genres.name} like ${likePrefix(prefix)} escape '\\'`);
  const rows = await db(c.env)
    .select({ id: genres.id, name: genres.name })
    .from(genres)
    .where(and(...where))
    .orderBy(asc(genres.name))
    .limit(limit)
    .all();
  return c.json({ data: rows });
});

const songsQuery = limitOffset(100, 20).extend({
  genre: z
    .string()
    .trim()
    .min(1, "genre should not be empty")
    .max(100, "genre must be at most 100 characters")
    .optional(),
  artist: z
    .string()
    .trim()
    .min(1, "artist should not be empty")
    .max(300, "artist must be at most 300 characters")
    .optional(),
});

/**
 * Listed catalogue: verified public songs. The unary + keeps SQLite off the status index
 * (nearly every row is listed): it walks ids newest first and stops at the page, or uses
 * the genre and artist indexes when those filters are given.
 */
const listed = sql`+${songs.status} = 'VERIFIED' and +${songs.isPublic} = 1`;

/**
 * GET /api/v1/songs?limit&offset&genre&artist: the listed catalogue, newest first, as
 * `{ data: SongDto[], total }`. genre and artist match whole names ignoring case, through
 * the expression indexes of migration 0003.
 */
catalogueRoutes.get("/api/v1/songs", requireAnyToken, valid("query", songsQuery), async (c) => {
  const { limit, offset, genre, artist } = c.req.valid("query");
  const where = and(
    listed,
    genre ? sql`lower(genre) = lower(${genre})` : undefined,
    artist ? sql`lower(trim(artist_name)) = lower(trim(${artist}))` : undefined,
  );
  const d = db(c.env);
  const [rows, total] = await d.batch([
    d.select().from(songs).where(where).orderBy(desc(songs.id)).limit(limit).offset(offset),
    d.select({ n: count() }).from(songs).where(where),
  ]);
  return c.json({ data: rows.map(toSongDto), total: total[0]?.n ?? 0 });
});

// A song is named by its uuid or its 10-character short id (links use the short one).
const songParam = z.object({
  songId: z
    .string()
    .regex(
      /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9A-Za-z]{10})$/,
      "songId must be a song uuid or short id",
    ),
});

/** GET /api/v1/songs/{songId}: a listed or catalogue song, or the caller's own upload. */
catalogueRoutes.get(
  "/api/v1/songs/:songId",
  requireAnyToken,
  valid("param", songParam),
  async (c) => {
    const { songId } = c.req.valid("param");
    const row = await db(c.env)
      .select()
      .from(songs)
      .where(
        and(
          or(eq(songs.songId, songId.toLowerCase()), eq(songs.songShortId, songId)),
          songVisibleTo(c.get("caller")?.uuid),
        ),
      )
      .get();
    if (!row) throw notFound(SONG_MSG.songNotFound);
    return c.json(toSongDto(row));
  },
);

const iso = (t: number) => new Date(t).toISOString();

/** GET /albums?take&skip: `{ data, total }` by name. */
catalogueRoutes.get("/albums", requireAnyToken, valid("query", takeSkip(100, 20)), async (c) => {
  const { take, skip } = c.req.valid("query");
  const d = db(c.env);
  const [rows, total] = await d.batch([
    d.select().from(albums).orderBy(asc(albums.name), asc(albums.id)).limit(take).offset(skip),
    d.select({ n: count() }).from(albums),
  ]);
  return c.json({
    data: rows.map((a) => ({ ...a, createdAt: iso(a.createdAt) })),
    total: total[0]?.n ?? 0,
  });
});

/** GET /artists?take&skip: `{ data, total }` by name. */
catalogueRoutes.get("/artists", requireAnyToken, valid("query", takeSkip(100, 20)), async (c) => {
  const { take, skip } = c.req.valid("query");
  const d = db(c.env);
  const [rows, total] = await d.batch([
    d.select().from(artists).orderBy(asc(artists.name), asc(artists.id)).limit(take).offset(skip),
    d.select({ n: count() }).from(artists),
  ]);
  return c.json({
    data: rows.map((a) => ({ ...a, createdAt: iso(a.createdAt) })),
    total: total[0]?.n ?? 0,
  });
});
