import { and, asc, eq, isNotNull } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../db/client";
import { avatars } from "../../db/schema";
import type { AppEnv } from "../../env";
import { requireAdmin } from "../../lib/auth";
import { valid } from "../../lib/validate";
import { cursorField, encodeCursor, type BackfillCursor } from "./backfill-cursor";
import { boardOf, seasonIdParam, seasonOr404 } from "./season-repo";

/**
 * `POST /points/backfill-achieved-avatars/{seasonId}?limit=&cursor=` (admin, seed 000): gives
 * each of the season's SEASON_AWARD avatars (avatars.seasonId = the season, with a
 * pointsThreshold) to every user on that season's board at or above the threshold, as an
 * avatar_assignments row of type SEASON_AWARD.
 *
 * - Once each: the insert is ON CONFLICT DO NOTHING on (avatar, user), so a second run, or
 *   two runs at once, award nothing more. `awarded` counts only rows this call inserted.
 * - Bounded calls: `limit` (default 1000, at most 10,000) caps the users one call examines
 *   (each earns at most one award), so a call costs the same on any board. Awards go in slug
 *   order, users in uuid order; when the cap is reached the answer has `complete: false` and
 *   a `cursor`, and a call with that cursor goes on from the next user: a whole backfill
 *   examines each qualifying user once per award, however many calls it takes. A call
 *   without a cursor starts from the beginning (a user may have crossed a threshold since).
 */
export const avatarBackfillRoutes = new Hono<AppEnv>();

const backfillQuery = z.object({
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(10_000, "limit must be at most 10000")
    .default(1000),
  cursor: cursorField.optional(),
});
const PAGE = 500;

avatarBackfillRoutes.post(
  "/points/backfill-achieved-avatars/:seasonId",
  requireAdmin,
  valid("param", z.object({ seasonId: seasonIdParam.shape.id })),
  valid("query", backfillQuery),
  async (c) => {
    const { seasonId } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    await seasonOr404(c.env, seasonId);
    const awards = await db(c.env)
      .select({ slug: avatars.slug, threshold: avatars.pointsThreshold })
      .from(avatars)
      .where(
        and(
          eq(avatars.seasonId, seasonId),
          eq(avatars.status, "SEASON_AWARD"),
          isNotNull(avatars.pointsThreshold),
        ),
      )
      .orderBy(asc(avatars.slug))
      .all();
    const board = boardOf(c.env, seasonId);
    let awarded = 0;
    let examined = 0;
    let stopped: BackfillCursor | null = null;
    outer: for (const a of awards) {
      if (cursor && a.slug < cursor.slug) continue; // given out in an earlier call
      for (let after = a.slug === cursor?.slug ? cursor.after : ""; ;) {
        if (examined >= limit) {
          stopped = { slug: a.slug, after };
          break outer;
        }
        const page = await board.usersAtOrAbove(
          a.threshold!,
          Math.min(PAGE, limit - examined),
          after,
        );
        if (page.length === 0) break;
        examined += page.length;
        // One statement per page: the users travel as one JSON value (D1 binds 100 at most).
        const rows = JSON.stringify(
          page.map((u) => ({ id: crypto.randomUUID(), user: u.userUuid })),
        );
        const { results } = await c.env.DB.prepare(
          `insert into avatar_assignments (id, avatar_slug, user_uuid, type, season_id)
         select json_extract(value, '$.id'), ?1, json_extract(value, '$.user'), 'SEASON_AWARD', ?2 from json_each(?3) where true
         on conflict do nothing returning id`,
        )
          .bind(a.slug, seasonId, rows)
          .all();
        awarded += results.length;
        after = page[page.length - 1].userUuid;
      }
    }
    return c.json({
      seasonId,
      avatars: awards.map((a) => a.slug),
      awarded,
      complete: stopped === null,
      ...(stopped ? { cursor: encodeCursor(stopped) } : {}),
    });
  },
);
