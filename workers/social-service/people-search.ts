import { and, asc, count, ne, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { users } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { takeSkip } from "../lib/paging";
import { valid } from "../lib/validate";
import { toOtherProfile } from "../user-service/accounts";
import { paged, visibleTo } from "./people";

/**
 * Finding people by nickname (issue 14: the friends page's "find people"). A prefix, matched
 * without regard to ASCII case on the `lower(nickname)` index (migration 0017): one range
 * scan, never a scan of every user. The caller, deactivated accounts and anyone blocked
 * either way are left out (a block hides each from the other's searches of people).
 */
export const peopleSearchRoutes = new Hono<AppEnv>();

export const SEARCH_MAX_TAKE = 20;
/** Deep pages of a prefix cost a step per skipped row; nobody reads past this. */
export const SEARCH_MAX_SKIP = 1000;

const searchQuery = takeSkip(SEARCH_MAX_TAKE, 12, SEARCH_MAX_SKIP).extend({
  q: z
    .string({ error: "q must be 2 to 30 characters of a nickname" })
    .trim()
    .min(2, "q must be 2 to 30 characters of a nickname")
    .max(30, "q must be 2 to 30 characters of a nickname"),
});

/** SQLite's lower() folds ASCII only; fold the query the same way so both sides agree. */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (ch) => ch.toLowerCase());
/** Above every string starting with the prefix (UTF-8 compares bytewise; U+10FFFF is the top). */
const TOP = String.fromCodePoint(0x10ffff);

/** GET /people?q=<nickname prefix>&skip&take: public profiles, by nickname. */
peopleSearchRoutes.get("/people", requireUser, valid("query", searchQuery), async (c) => {
  const me = caller(c).uuid;
  const page = c.req.valid("query");
  const q = asciiLower(page.q);
  const lower = sql`lower(${users.nickname})`;
  const where = and(
    sql`${lower} >= ${q} and ${lower} < ${q + TOP}`,
    ne(users.uuid, me),
    visibleTo(me, users.uuid),
  );
  const d = db(c.env);
  const [rows, [{ total }]] = await d.batch([
    d
      .select()
      .from(users)
      .where(where)
      .orderBy(lower, asc(users.id))
      .limit(page.take)
      .offset(page.skip),
    d.select({ total: count() }).from(users).where(where),
  ]);
  return c.json(paged(rows.map(toOtherProfile), total, page));
});
