import { sql } from "drizzle-orm";

/**
 * The default of every time column: now, in epoch milliseconds, computed by SQLite at insert
 * (one definition, so every table's "created" time means the same thing). Its own module, not
 * schema.ts, because the per-area schema files are re-exported by schema.ts.
 */
export const nowMs = sql`(unixepoch('subsec') * 1000)`;
