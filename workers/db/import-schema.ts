import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Playlist imports that run in the background (issue 18; workers/queues/crate-imports.ts).
 * Re-exported by schema.ts (drizzle-kit reads it).
 *
 * A row is the whole job: the validated tracks, a cursor (`done`) and the per-track results
 * so far. The consumer works from the cursor, so a redelivered message resumes where the
 * last one stopped; each track's crate song uuid is derived from (import, index), so a
 * track appended before a crash is never appended twice. (user_uuid, import_key) is unique:
 * a client retrying with the same key gets the same import, not a second one.
 */
export type CrateImportStatus = "IN_PROGRESS" | "COMPLETE" | "FAILED";

export const crateImports = sqliteTable(
  "crate_imports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The public id of the import (uuid). */
    importId: text("import_id").notNull().unique(),
    /** The client's idempotency key (or the import id when it sent none). */
    importKey: text("import_key").notNull(),
    userUuid: text("user_uuid").notNull(),
    crateId: integer("crate_id").notNull(),
    /** The request's tracks, as validated (ImportSong[]). */
    tracks: text("tracks", { mode: "json" }).$type<unknown[]>().notNull(),
    total: integer("total").notNull(),
    /** How many tracks (from the start) are settled: imported or failed. */
    done: integer("done").notNull().default(0),
    /** Per settled track: `{ index, status, ... }` (track-import.ts TrackResult without rows). */
    results: text("results", { mode: "json" })
      .$type<unknown[]>()
      .notNull()
      .default(sql`'[]'`),
    status: text("status").$type<CrateImportStatus>().notNull().default("IN_PROGRESS"),
    /** Why it failed (a stuck import, a crate deleted meanwhile). */
    detail: text("detail"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("crate_imports_user_key").on(t.userUuid, t.importKey),
    index("crate_imports_crate_idx").on(t.crateId, t.createdAt),
    index("crate_imports_status_idx").on(t.status, t.updatedAt),
  ],
);
