import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { db } from "../db/client";
import { userEmails, users } from "../db/schema";
import type { AppEnv } from "../env";
import { requireAdmin } from "../lib/auth";
import { crudList, crudQuerySchema, type Columns } from "../lib/crud-query";
import { valid } from "../lib/validate";
import { findAnyUserOr404, toOwnProfile } from "./accounts";
import { idOrUuid } from "./profiles";

/** The admin panel's user pages: the list (crud query language) and one user in full. */
export const adminUserRoutes = new Hono<AppEnv>();

/**
 * What an admin may filter and sort on. `roles` is a JSON text column, so
 * `filter=roles||$cont||admin` is a substring match on it. The password hash is absent,
 * so no query can probe it.
 */
const USER_COLUMNS: Columns = {
  id: users.id,
  uuid: users.uuid,
  email: users.email,
  nickname: users.nickname,
  firstName: users.firstName,
  lastName: users.lastName,
  roles: users.roles,
  emailVerified: users.emailVerified,
  deactivated: users.deactivated,
  createdAt: users.createdAt,
  updatedAt: users.updatedAt,
};

/** GET /admin/users: `{ data, count, total, page, pageCount }`, newest accounts first by default. */
adminUserRoutes.get("/admin/users", requireAdmin, valid("query", crudQuerySchema), async (c) => {
  return c.json(await crudList(c.env, users, USER_COLUMNS, c.req.valid("query"), toOwnProfile));
});

/** GET /admin/users/{id}: the full profile, deactivated or not, with every e-mail row. */
adminUserRoutes.get("/admin/users/:id", requireAdmin, valid("param", idOrUuid), async (c) => {
  const user = await findAnyUserOr404(c.env, c.req.valid("param").id);
  const emails = await db(c.env)
    .select({
      id: userEmails.id,
      email: userEmails.email,
      type: userEmails.type,
      status: userEmails.status,
    })
    .from(userEmails)
    .where(eq(userEmails.userId, user.id))
    .orderBy(userEmails.id)
    .all();
  return c.json({ ...toOwnProfile(user), emails });
});
