import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../db/client";
import { rankingStatus, seasons, type SeasonRow } from "../../db/schema";
import type { AppEnv, Env } from "../../env";
import { requireAdmin } from "../../lib/auth";
import { crudList, crudQuerySchema, type Columns } from "../../lib/crud-query";
import { conflict, isUniqueViolation } from "../../lib/errors";
import { cleanText, valid } from "../../lib/validate";
import { boardOf, instant, seasonAt, seasonDto, seasonIdParam, seasonOr404 } from "./season-repo";
import { checkNewWindow, checkWindowChange } from "./season-window";
import { MSG } from "../messages";

/**
 * Seasons (seed 000): create, change, delete, list, and the current one.
 *
 * Rules:
 * - Seasons never overlap. The check is inside the writing statement (INSERT ... SELECT
 *   ... WHERE NOT EXISTS an overlapping season; UPDATE ... WHERE NOT EXISTS), so two
 *   concurrent creates cannot both win: D1 runs statements one at a time. Overlap is 409.
 * - A season's board knows its window: every create and change sets it on the board.
 * - Windows (season-window.ts): a season never starts in the past (a minute's grace) and
 *   its end, when set, is in the future. Only a season that has not started may move its
 *   start; only one that has not ended may move its end. An ended season is frozen.
 * - Deleting a season deletes its ranking (board and mirror rows); lifetime points stay.
 * - `GET /seasons/current` answers 200 with `null` when no season is running: no season is
 *   a normal state a client shows, not a missing record.
 */
export const seasonRoutes = new Hono<AppEnv>();

const name = z
  .string({ error: "name must be a string" })
  .trim()
  .min(1, "name must not be empty")
  .max(100, "name must be at most 100 characters")
  .refine((s) => cleanText(s), "name must not contain control characters or broken unicode")
  // A name is a path segment (`/points/season-ranking/{seasonName}`).
  .refine((s) => !s.includes("/"), "name must not contain a slash");

const windowCheck = (v: { startDate?: number; endDate?: number }) =>
  v.startDate === undefined || v.endDate === undefined || v.endDate > v.startDate;
const createBody = z
  .object({ name, startDate: instant("startDate"), endDate: instant("endDate") })
  .refine(windowCheck, { message: MSG.endBeforeStart, path: ["endDate"] });
const patchBody = z
  .object({
    name: name.optional(),
    startDate: instant("startDate").optional(),
    endDate: instant("endDate").optional(),
  })
  .refine(
    (v) => v.name !== undefined || v.startDate !== undefined || v.endDate !== undefined,
    "Send at least one of name, startDate, endDate.",
  )
  .refine(windowCheck, { message: MSG.endBeforeStart, path: ["endDate"] });

/** The season's row as written, or a 409 for a name already used. */
async function writeSeason(
  run: () => Promise<SeasonRow | null>,
  seasonName: string,
): Promise<SeasonRow | null> {
  try {
    return await run();
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(MSG.nameTaken(seasonName));
    throw e;
  }
}

const SEASON_COLS =
  "id, name, start_date as startDate, end_date as endDate, created_at as createdAt, updated_at as updatedAt";

seasonRoutes.post("/points/season", requireAdmin, valid("json", createBody), async (c) => {
  const b = c.req.valid("json");
  checkNewWindow(b);
  const row = await writeSeason(
    () =>
      c.env.DB.prepare(
        `insert into seasons (name, start_date, end_date)
         select ?1, ?2, ?3 where not exists (select 1 from seasons where start_date < ?3 and end_date > ?2)
         returning ${SEASON_COLS}`,
      )
        .bind(b.name, b.startDate, b.endDate)
        .first<SeasonRow>(),
    b.name,
  );
  if (!row) throw conflict(MSG.overlap);
  await boardOf(c.env, row.id).setWindow(row.startDate, row.endDate);
  return c.json(seasonDto(row), 201);
});

seasonRoutes.patch(
  "/points/season/:id",
  requireAdmin,
  valid("param", seasonIdParam),
  valid("json", patchBody),
  async (c) => {
    const { id } = c.req.valid("param");
    const b = c.req.valid("json");
    const s = await seasonOr404(c.env, id);
    const startDate = b.startDate ?? s.startDate;
    const endDate = b.endDate ?? s.endDate;
    checkWindowChange(s, { startDate, endDate });
    const seasonName = b.name ?? s.name;
    const row = await writeSeason(
      () =>
        c.env.DB.prepare(
          `update seasons set name = ?2, start_date = ?3, end_date = ?4, updated_at = (unixepoch('subsec') * 1000)
         where id = ?1 and not exists (select 1 from seasons where id != ?1 and start_date < ?4 and end_date > ?3)
         returning ${SEASON_COLS}`,
        )
          .bind(id, seasonName, startDate, endDate)
          .first<SeasonRow>(),
      seasonName,
    );
    if (!row) {
      // Either the season vanished meanwhile or the new window overlaps another one.
      await seasonOr404(c.env, id);
      throw conflict(MSG.overlap);
    }
    if (row.startDate !== s.startDate || row.endDate !== s.endDate)
      await boardOf(c.env, id).setWindow(row.startDate, row.endDate);
    return c.json(seasonDto(row));
  },
);

async function deleteSeason(env: Env, id: number) {
  const s = await seasonOr404(env, id);
  // The row first: the consumer stops routing events here and its mirror writes (which
  // require the season to exist) stop; then the mirror rows and the board itself.
  await db(env).delete(seasons).where(eq(seasons.id, id)).run();
  await db(env).delete(rankingStatus).where(eq(rankingStatus.seasonId, id)).run();
  await boardOf(env, id).close();
  return { ...seasonDto(s), deleted: true };
}

seasonRoutes.delete("/points/season/:id", requireAdmin, valid("param", seasonIdParam), async (c) =>
  c.json(await deleteSeason(c.env, c.req.valid("param").id)),
);
seasonRoutes.delete("/admin/seasons/:id", requireAdmin, valid("param", seasonIdParam), async (c) =>
  c.json(await deleteSeason(c.env, c.req.valid("param").id)),
);

const SEASON_COLUMNS: Columns = {
  id: seasons.id,
  name: seasons.name,
  startDate: seasons.startDate,
  endDate: seasons.endDate,
  createdAt: seasons.createdAt,
  updatedAt: seasons.updatedAt,
};

/** GET /admin/seasons: the crud list, latest start first by default. */
seasonRoutes.get("/admin/seasons", requireAdmin, valid("query", crudQuerySchema), async (c) =>
  c.json(
    await crudList(c.env, seasons, SEASON_COLUMNS, c.req.valid("query"), seasonDto, {
      defaultSort: ["startDate", "DESC"],
    }),
  ),
);

seasonRoutes.get("/admin/seasons/:id", requireAdmin, valid("param", seasonIdParam), async (c) =>
  c.json(seasonDto(await seasonOr404(c.env, c.req.valid("param").id))),
);

seasonRoutes.get("/seasons/current", async (c) => {
  const s = await seasonAt(c.env);
  return c.json(s ? seasonDto(s) : null);
});
