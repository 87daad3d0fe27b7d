import { and, asc, desc, eq, gt, lt, lte } from "drizzle-orm";
import { z } from "zod";
import { db } from "../../db/client";
import { seasons, type SeasonRow } from "../../db/schema";
import type { Env } from "../../env";
import { notFound } from "../../lib/errors";
import { seasonBoard } from "../../queues/points";
import { MSG } from "../messages";

/**
 * Seasons in D1 (seed 000): a name and a window [startDate, endDate) in epoch ms. Seasons
 * never overlap (seasons.ts enforces it in the writing statement itself), so at any
 * instant at most one season is current, and an instant on a boundary belongs to the
 * season that starts there.
 */

/** A time in a body, query or path: ISO 8601 or epoch milliseconds, years 2000..2100. */
export const instant = (name: string) =>
  z
    .union(
      [
        z.iso
          .datetime({ offset: true, error: `${name} must be an ISO 8601 date-time` })
          .transform((s) => Date.parse(s)),
        z.number().int(),
      ],
      {
        error: `${name} must be an ISO date-time or epoch milliseconds`,
      },
    )
    .refine(
      (n) => n >= Date.UTC(2000, 0, 1) && n <= Date.UTC(2100, 0, 1),
      `${name} must be between 2000 and 2100`,
    );

/** The same in a path segment (always a string): digits are epoch ms. */
export const instantParam = (name: string) =>
  z
    .string()
    .transform((s) => (/^\d{1,15}$/.test(s) ? Number(s) : s))
    .pipe(instant(name));

export const seasonIdParam = z.object({
  id: z.coerce
    .number({ error: "id must be a number" })
    .int("id must be a whole number")
    .min(1, "id must be positive")
    .max(2 ** 31),
});

export const seasonDto = (s: SeasonRow) => ({
  id: s.id,
  name: s.name,
  startDate: new Date(s.startDate).toISOString(),
  endDate: new Date(s.endDate).toISOString(),
  createdAt: new Date(s.createdAt).toISOString(),
  updatedAt: new Date(s.updatedAt).toISOString(),
});
export type SeasonDto = ReturnType<typeof seasonDto>;

export async function findSeason(env: Env, id: number): Promise<SeasonRow | undefined> {
  return db(env).select().from(seasons).where(eq(seasons.id, id)).get();
}

export async function seasonOr404(env: Env, id: number): Promise<SeasonRow> {
  const s = await findSeason(env, id);
  if (!s) throw notFound(MSG.seasonNotFound);
  return s;
}

/** The season whose window holds `at` (now by default), if any. */
export async function seasonAt(env: Env, at = Date.now()): Promise<SeasonRow | undefined> {
  return db(env)
    .select()
    .from(seasons)
    .where(and(lte(seasons.startDate, at), gt(seasons.endDate, at)))
    .get();
}

export async function seasonByName(env: Env, name: string): Promise<SeasonRow | undefined> {
  return db(env).select().from(seasons).where(eq(seasons.name, name)).get();
}

/** The first season starting after `start`, or the last one starting before it. */
export async function seasonBeside(
  env: Env,
  start: number,
  dir: "next" | "prev",
): Promise<SeasonRow | undefined> {
  return db(env)
    .select()
    .from(seasons)
    .where(dir === "next" ? gt(seasons.startDate, start) : lt(seasons.startDate, start))
    .orderBy(dir === "next" ? asc(seasons.startDate) : desc(seasons.startDate))
    .limit(1)
    .get();
}

/** The season's board. */
export const boardOf = (env: Env, seasonId: number) =>
  env.Leaderboard.getByName(seasonBoard(seasonId));
