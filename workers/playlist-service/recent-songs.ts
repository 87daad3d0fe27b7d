import { desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { recentSongPlays } from "../db/schema";
import type { AppEnv } from "../env";
import { requireService } from "../lib/auth";
import { fields, valid } from "../lib/validate";

/**
 * Songs played in a room (seed 001, Recent room song play), newest first. The room object
 * records each play as it ends; clients read the list when they join (stale after 60 s).
 */
export const recentSongRoutes = new Hono<AppEnv>();

// Slugs are stored lowercase (seed 001, Validation rules), so any case finds the room.
const slugParam = z.object({
  slug: z
    .string()
    .trim()
    .min(1, "slug should not be empty")
    .max(100, "slug must be at most 100 characters")
    .transform((s) => s.toLowerCase()),
});

const count = z
  .number({ error: "vote counts must be numbers" })
  .int("vote counts must be integers")
  .min(0, "vote counts must not be negative")
  .default(0);
const playBody = z.object({
  // The room's id for this play: a retried record is the same play, written once.
  playId: z
    .string({ error: "playId must be a string" })
    .trim()
    .min(1, "playId should not be empty")
    .max(100, "playId must be at most 100 characters"),
  song: z
    .record(z.string(), z.unknown(), { error: "song must be an object" })
    .refine((s) => JSON.stringify(s).length <= 16_384, "song must be at most 16 KB of JSON"),
  voteCounts: z
    .object(
      { likes: count, dislikes: count, stars: count },
      { error: "voteCounts must be an object" },
    )
    .default({ likes: 0, dislikes: 0, stars: 0 }),
  djUuid: fields.uuid,
  // An ISO date or epoch milliseconds.
  playedAt: z
    .union([z.iso.datetime({ offset: true }), z.number().int().positive()], {
      error: "playedAt must be an ISO date or epoch milliseconds",
    })
    .transform((v) => (typeof v === "number" ? v : Date.parse(v))),
});

const toPlay = (r: typeof recentSongPlays.$inferSelect) => ({
  playId: r.playId,
  roomSlug: r.roomSlug,
  song: r.song,
  voteCounts: r.voteCounts,
  djUuid: r.djUuid,
  playedAt: new Date(r.playedAt).toISOString(),
});

/** POST /rooms/{slug}/recent-songs (service): records a play; 201, or 200 with the first record for a repeated playId. */
recentSongRoutes.post(
  "/rooms/:slug/recent-songs",
  requireService,
  valid("param", slugParam),
  valid("json", playBody),
  async (c) => {
    const { slug } = c.req.valid("param");
    const body = c.req.valid("json");
    const d = db(c.env);
    const inserted = await d
      .insert(recentSongPlays)
      .values({ ...body, roomSlug: slug })
      .onConflictDoNothing({ target: recentSongPlays.playId })
      .returning()
      .get();
    if (inserted) return c.json(toPlay(inserted), 201);
    const existing = (await d
      .select()
      .from(recentSongPlays)
      .where(eq(recentSongPlays.playId, body.playId))
      .get())!;
    return c.json(toPlay(existing), 200);
  },
);

const listQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1, "limit must be at least 1")
    .max(50, "limit must be at most 50")
    .default(20),
});

/** GET /rooms/{slug}/recent-songs?limit (public): `{ songPlays: [...] }`, newest first. */
recentSongRoutes.get(
  "/rooms/:slug/recent-songs",
  valid("param", slugParam),
  valid("query", listQuery),
  async (c) => {
    const { slug } = c.req.valid("param");
    const rows = await db(c.env)
      .select()
      .from(recentSongPlays)
      .where(eq(recentSongPlays.roomSlug, slug))
      .orderBy(desc(recentSongPlays.playedAt), desc(recentSongPlays.id))
      .limit(c.req.valid("query").limit)
      .all();
    return c.json({ songPlays: rows.map(toPlay) });
  },
);
