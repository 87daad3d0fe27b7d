import { count, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { userEmails, users } from "../db/schema";
import type { AppEnv } from "../env";
import { requireAdmin } from "../lib/auth";
import { crudPage, parseCrudQuery, pickFields, type Columns } from "../lib/crud-query";
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

// The crud parameters' shapes; parseCrudQuery checks what they say (fields, operators).
// Other keys (a client's cache-buster) are ignored rather than refused.
const many = z.union([z.string(), z.array(z.string())]).transform((v) => [v].flat());
const one = z.union([z.string(), z.array(z.string())]).transform((v) => [v].flat().slice(-1));
const crudQuery = z.object({
  fields: one.optional(),
  s: one.optional(),
  filter: many.optional(),
  or: many.optional(),
  sort: many.optional(),
  join: many.optional(),
  limit: one.optional(),
  offset: one.optional(),
  page: one.optional(),
  cache: one.optional(),
});

/** GET /admin/users: `{ data, count, total, page, pageCount }`, newest accounts first by default. */
adminUserRoutes.get("/admin/users", requireAdmin, valid("query", crudQuery), async (c) => {
  const raw = c.req.valid("query");
  const query = Object.fromEntries(Object.entries(raw).filter((e): e is [string, string[]] => e[1] !== undefined));
  const q = parseCrudQuery(query, USER_COLUMNS, { defaultSort: ["id", "DESC"] });
  const d = db(c.env);
  const [rows, [{ total }]] = await Promise.all([
    d.select().from(users).where(q.where).orderBy(...q.orderBy).limit(q.limit).offset(q.offset).all(),
    d.select({ total: count() }).from(users).where(q.where).all(),
  ]);
  return c.json(crudPage(pickFields(rows.map(toOwnProfile), q.fields), total, q));
});

/** GET /admin/users/{id}: the full profile, deactivated or not, with every e-mail row. */
adminUserRoutes.get("/admin/users/:id", requireAdmin, valid("param", idOrUuid), async (c) => {
  const user = await findAnyUserOr404(c.env, c.req.valid("param").id);
  const emails = await db(c.env)
    .select({ id: userEmails.id, email: userEmails.email, type: userEmails.type, status: userEmails.status })
    .from(userEmails)
    .where(eq(userEmails.userId, user.id))
    .orderBy(userEmails.id)
    .all();
  return c.json({ ...toOwnProfile(user), emails });
});
