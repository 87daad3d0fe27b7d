import { count, eq } from "drizzle-orm";
import { Hono } from "hono";
import { db } from "../../db/client";
import { avatarAssignments, avatars, users, type AvatarRow } from "../../db/schema";
import type { AppEnv } from "../../env";
import { requireAdmin } from "../../lib/auth";
import { crudList, crudQuerySchema, type Columns } from "../../lib/crud-query";
import { valid } from "../../lib/validate";
import { deleteAvatar, findAvatarOr404, slugParam, toAvatarDto } from "./avatars";

/** The admin panel's avatar pages: the list (crud query language), one avatar in full, delete. */
export const adminAvatarRoutes = new Hono<AppEnv>();

/** What an admin may filter and sort on (`filter=status||$eq||PUBLIC`, `sort=name,ASC`). */
const AVATAR_COLUMNS: Columns = {
  slug: avatars.slug,
  name: avatars.name,
  description: avatars.description,
  status: avatars.status,
  discordOnly: avatars.discordOnly,
  seasonId: avatars.seasonId,
  pointsThreshold: avatars.pointsThreshold,
  createdAt: avatars.createdAt,
  updatedAt: avatars.updatedAt,
};

/** GET /admin/avatars: `{ data, count, total, page, pageCount }`, newest first by default. */
adminAvatarRoutes.get("/admin/avatars", requireAdmin, valid("query", crudQuerySchema), async (c) =>
  c.json(
    await crudList(
      c.env,
      avatars,
      AVATAR_COLUMNS,
      c.req.valid("query"),
      (r: AvatarRow) => toAvatarDto(r),
      { defaultSort: ["createdAt", "DESC"] },
    ),
  ),
);

/** GET /admin/avatars/{slug}: the avatar, whatever its status, with who holds and wears it. */
adminAvatarRoutes.get(
  "/admin/avatars/:slug",
  requireAdmin,
  valid("param", slugParam),
  async (c) => {
    const row = await findAvatarOr404(c.env, c.req.valid("param").slug);
    const d = db(c.env);
    const [assignments, [{ wearers }]] = await Promise.all([
      d
        .select()
        .from(avatarAssignments)
        .where(eq(avatarAssignments.avatarSlug, row.slug))
        .orderBy(avatarAssignments.createdAt)
        .limit(200)
        .all(),
      d.select({ wearers: count() }).from(users).where(eq(users.avatarId, row.slug)).all(),
    ]);
    return c.json({
      ...toAvatarDto(row),
      wearers,
      assignments: assignments.map((a) => ({
        id: a.id,
        userUuid: a.userUuid,
        type: a.type,
        seasonId: a.seasonId,
        createdAt: new Date(a.createdAt).toISOString(),
      })),
    });
  },
);

/** DELETE /admin/avatars/{slug}: as DELETE /avatars/{slug}. */
adminAvatarRoutes.delete(
  "/admin/avatars/:slug",
  requireAdmin,
  valid("param", slugParam),
  async (c) => c.json(await deleteAvatar(c.env, c.req.valid("param").slug)),
);
