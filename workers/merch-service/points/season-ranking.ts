import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../env";
import { notFound } from "../../lib/errors";
import { valid } from "../../lib/validate";
import { rankingOf, rankingPage } from "./ranking-repo";
import { instantParam, seasonAt, seasonBeside, seasonByName } from "./season-repo";
import { MSG } from "../messages";

/**
 * Season rankings (seed 000): pages of a season's board with take/skip, public. Each answer
 * is `{ season, data: [{ userUuid, nickname, avatarId, balance, rank }], total, take, skip }`,
 * and, for a signed-in caller, `me`: their own row (null when they have no points there),
 * so a page shows "your rank" even when it is off the page.
 *
 * - `/points/season-ranking` and `/points/season-ranking-current`: the current season
 *   (season null and no rows when none is running).
 * - `/points/all-seasons-ranking`: the lifetime board (season null).
 * - `/points/season-ranking/{seasonName}`: that season, 404 when no season has that name.
 * - `/points/season-ranking/next-season/{seasonStart}` and `/prev-season/{seasonStart}`:
 *   the first season starting after / the last starting before that time (ISO or epoch
 *   ms), 404 when there is none: the page's "next" and "previous" links.
 */
export const seasonRankingRoutes = new Hono<AppEnv>();

/** The signed-in caller's uuid, if the caller is an account (guests have no points). */
const me = (c: Context<AppEnv>) => {
  const who = c.get("caller");
  return who && (who.type === "user" || who.type === "bot") ? who.uuid : undefined;
};

const current = async (c: Context<AppEnv>, q: z.output<typeof rankingPage>) => {
  const season = await seasonAt(c.env);
  if (!season)
    return c.json({
      season: null,
      data: [],
      total: 0,
      take: q.take,
      skip: q.skip,
      ...(me(c) ? { me: null } : {}),
    });
  return c.json(await rankingOf(c.env, season, q.take, q.skip, me(c)));
};

seasonRankingRoutes.get("/points/season-ranking", valid("query", rankingPage), (c) =>
  current(c, c.req.valid("query")),
);
seasonRankingRoutes.get("/points/season-ranking-current", valid("query", rankingPage), (c) =>
  current(c, c.req.valid("query")),
);

seasonRankingRoutes.get("/points/all-seasons-ranking", valid("query", rankingPage), async (c) => {
  const q = c.req.valid("query");
  return c.json(await rankingOf(c.env, null, q.take, q.skip, me(c)));
});

const nameParam = z.object({
  seasonName: z.string().min(1).max(100, "seasonName must be at most 100 characters"),
});
seasonRankingRoutes.get(
  "/points/season-ranking/:seasonName",
  valid("param", nameParam),
  valid("query", rankingPage),
  async (c) => {
    const season = await seasonByName(c.env, c.req.valid("param").seasonName);
    if (!season) throw notFound(MSG.seasonNotFound);
    const q = c.req.valid("query");
    return c.json(await rankingOf(c.env, season, q.take, q.skip, me(c)));
  },
);

const startParam = z.object({ seasonStart: instantParam("seasonStart") });
for (const dir of ["next", "prev"] as const) {
  seasonRankingRoutes.get(
    `/points/season-ranking/${dir}-season/:seasonStart`,
    valid("param", startParam),
    valid("query", rankingPage),
    async (c) => {
      const season = await seasonBeside(c.env, c.req.valid("param").seasonStart, dir);
      if (!season) throw notFound(dir === "next" ? MSG.noLaterSeason : MSG.noEarlierSeason);
      const q = c.req.valid("query");
      return c.json(await rankingOf(c.env, season, q.take, q.skip, me(c)));
    },
  );
}
