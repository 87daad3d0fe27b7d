import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../db/client";
import { rankingStatus, rankingStatusLifetime } from "../../db/schema";
import type { AppEnv, Env } from "../../env";
import { requireAdmin } from "../../lib/auth";
import { crudList, crudQuerySchema, type Columns } from "../../lib/crud-query";
import { notFound } from "../../lib/errors";
import { valid } from "../../lib/validate";
import { withProfiles } from "./ranking-repo";
import { MSG } from "../messages";

/**
 * The admin panel's ranking status lists (seed 000): the D1 mirrors of the boards
 * (`ranking_status` per user and season, `ranking_status_lifetime`), with the crud query
 * language plus the spec's plain filters `userUuid`, `seasonId` and `balance` (each an
 * exact match, ANDed with any `filter`). Rows carry the user's nickname for the page.
 * Highest balance first by default. The mirror follows the boards within a queue batch;
 * the boards stay the authority for ranks.
 */
export const adminRankingStatusRoutes = new Hono<AppEnv>();

const STATUS_COLUMNS: Columns = {
  id: rankingStatus.id,
  userUuid: rankingStatus.userUuid,
  seasonId: rankingStatus.seasonId,
  balance: rankingStatus.balance,
  version: rankingStatus.version,
  createdAt: rankingStatus.createdAt,
  updatedAt: rankingStatus.updatedAt,
};
const LIFETIME_COLUMNS: Columns = {
  id: rankingStatusLifetime.id,
  userUuid: rankingStatusLifetime.userUuid,
  balance: rankingStatusLifetime.balance,
  version: rankingStatusLifetime.version,
  createdAt: rankingStatusLifetime.createdAt,
  updatedAt: rankingStatusLifetime.updatedAt,
};

const int = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(-(2 ** 52))
    .max(2 ** 52);
const seasonQuery = crudQuerySchema.extend({
  userUuid: z.uuid({ error: "userUuid must be a UUID" }).optional(),
  seasonId: int("seasonId").optional(),
  balance: int("balance").optional(),
});
const lifetimeQuery = seasonQuery.omit({ seasonId: true });
const idParam = z.object({
  id: z.coerce
    .number({ error: "id must be a number" })
    .int("id must be a whole number")
    .min(1, "id must be positive")
    .max(2 ** 52),
});

type StatusRow = typeof rankingStatus.$inferSelect;
type LifetimeRow = typeof rankingStatusLifetime.$inferSelect;
const dto = <R extends StatusRow | LifetimeRow>(r: R) => ({
  ...r,
  createdAt: new Date(r.createdAt).toISOString(),
  updatedAt: new Date(r.updatedAt).toISOString(),
});

/** The plain filters as crud filters, so one query path serves both. */
function withPlainFilters(q: z.output<typeof seasonQuery>) {
  const { userUuid, seasonId, balance, ...crud } = q;
  const extra = [
    userUuid !== undefined && `userUuid||$eq||${userUuid}`,
    seasonId !== undefined && `seasonId||$eq||${seasonId}`,
    balance !== undefined && `balance||$eq||${balance}`,
  ].filter((f): f is string => typeof f === "string");
  return { ...crud, filter: [...(crud.filter ?? []), ...extra] };
}

/** Adds each row's nickname (one D1 read for the page). */
async function named<T extends { userUuid: string }>(env: Env, page: { data: Partial<T>[] }) {
  const p = await withProfiles(
    env,
    page.data.map((r) => ({ userUuid: r.userUuid ?? "", balance: 0, rank: 0 })),
  );
  return { ...page, data: page.data.map((r, i) => ({ ...r, nickname: p[i].nickname })) };
}

adminRankingStatusRoutes.get(
  "/admin/ranking-status",
  requireAdmin,
  valid("query", seasonQuery),
  async (c) => {
    const page = await crudList(
      c.env,
      rankingStatus,
      STATUS_COLUMNS,
      withPlainFilters(c.req.valid("query")),
      dto<StatusRow>,
      { defaultSort: ["balance", "DESC"] },
    );
    return c.json(await named(c.env, page));
  },
);

adminRankingStatusRoutes.get(
  "/admin/ranking-status-lifetime",
  requireAdmin,
  valid("query", lifetimeQuery),
  async (c) => {
    const page = await crudList(
      c.env,
      rankingStatusLifetime,
      LIFETIME_COLUMNS,
      withPlainFilters(c.req.valid("query")),
      dto<LifetimeRow>,
      { defaultSort: ["balance", "DESC"] },
    );
    return c.json(await named(c.env, page));
  },
);

adminRankingStatusRoutes.get(
  "/admin/ranking-status/:id",
  requireAdmin,
  valid("param", idParam),
  async (c) => {
    const row = await db(c.env)
      .select()
      .from(rankingStatus)
      .where(eq(rankingStatus.id, c.req.valid("param").id))
      .get();
    if (!row) throw notFound(MSG.rankingStatusNotFound);
    return c.json((await named(c.env, { data: [dto(row)] })).data[0]);
  },
);

adminRankingStatusRoutes.get(
  "/admin/ranking-status-lifetime/:id",
  requireAdmin,
  valid("param", idParam),
  async (c) => {
    const row = await db(c.env)
      .select()
      .from(rankingStatusLifetime)
      .where(eq(rankingStatusLifetime.id, c.req.valid("param").id))
      .get();
    if (!row) throw notFound(MSG.rankingStatusNotFound);
    return c.json((await named(c.env, { data: [dto(row)] })).data[0]);
  },
);
