import { count, countDistinct, desc, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { db } from "../db/client";
import { djFans } from "../db/schema";
import type { AppEnv } from "../env";
import { requireAdmin } from "../lib/auth";
import { valid } from "../lib/validate";
import { findAnyUserOr404, toOwnProfile } from "../user-service/accounts";
import { fanCounts } from "./dj-fans";
import { iso, paged, peoplePage, profilesOf, uuidParam } from "./people";

/**
 * The admin panel's DJ pages: DJs ranked by fans, and one DJ with their counts. A "DJ"
 * here is anyone with at least one fan (any account may take a seat).
 */
export const adminDjRoutes = new Hono<AppEnv>();

/** GET /admin/djs: `{ data: [{ uuid, fans, profile }], total, skip, take }`, most fans first. */
adminDjRoutes.get("/admin/djs", requireAdmin, valid("query", peoplePage), async (c) => {
  const page = c.req.valid("query");
  const d = db(c.env);
  const fans = count().as("fans");
  const [rows, [{ total }]] = await d.batch([
    d
      .select({ uuid: djFans.djUuid, fans })
      .from(djFans)
      .groupBy(djFans.djUuid)
      .orderBy(desc(sql`fans`), djFans.djUuid)
      .limit(page.take)
      .offset(page.skip),
    d.select({ total: countDistinct(djFans.djUuid) }).from(djFans),
  ]);
  const profiles = await profilesOf(
    c.env,
    rows.map((r) => r.uuid),
  );
  return c.json(
    paged(
      rows.map((r) => ({ uuid: r.uuid, fans: r.fans, profile: profiles.get(r.uuid) ?? null })),
      total,
      page,
    ),
  );
});

/** GET /admin/djs/{id}: the DJ's full profile (deactivated too), counts and first fan time. */
adminDjRoutes.get("/admin/djs/:id", requireAdmin, valid("param", uuidParam), async (c) => {
  const user = await findAnyUserOr404(c.env, c.req.valid("param").id);
  const d = db(c.env);
  const [counts, span] = await Promise.all([
    fanCounts(c.env, user.uuid),
    d
      .select({
        first: sql<number | null>`min(${djFans.createdAt})`,
        last: sql<number | null>`max(${djFans.createdAt})`,
      })
      .from(djFans)
      .where(eq(djFans.djUuid, user.uuid))
      .get(),
  ]);
  return c.json({
    ...toOwnProfile(user),
    ...counts,
    firstFanAt: span?.first ? iso(span.first) : null,
    lastFanAt: span?.last ? iso(span.last) : null,
  });
});
