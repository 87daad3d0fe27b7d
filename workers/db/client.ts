import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../env";
import * as schema from "./schema";

/**
 * A drizzle handle over the request's D1 binding (cheap: no connection to open).
 *
 * How SQL is written in workers/: the drizzle query builder wherever it can say it; where
 * it cannot, a `sql` template (values interpolated, so they are bound) with lowercase
 * keywords and functions (`select ... where ... and`, `count(*)`); raw `env.DB.prepare` only
 * for what D1 must run as written (numbered `?1` parameters, statements built for
 * `env.DB.batch`), lowercase too. Every statement run on its own ends in its terminal:
 * `.get()` or `.all()` for rows, `.run()` for a write that reads nothing back; statements
 * handed to `db.batch` have none. A list built at run time goes to `db.batch` as
 * `batchOf(list)`.
 */
export const db = (env: Pick<Env, "DB">) => drizzle(env.DB, { schema });
export type DB = ReturnType<typeof db>;

/** A list of statements as the non-empty tuple `db.batch` asks for (the caller has checked it is not empty). */
export const batchOf = <T extends BatchItem<"sqlite">>(stmts: T[]) => stmts as [T, ...T[]];
