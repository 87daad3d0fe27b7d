import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { songs } from "./schema";

/**
 * Music analysis of a song (issue 18, similar tracks; workers/similar/analysis-queue.ts).
 * Re-exported by schema.ts (drizzle-kit reads it).
 *
 * One row per song is the idempotency key of the whole job: whoever inserts the row (or
 * re-claims a stale one with a conditional UPDATE) is the one caller that sends the queue
 * message, so a flood of enqueues for one song enqueues once. The consumer keeps the
 * provider's answer here; requests only read it, never call the provider.
 */
export type AnalysisStatus = "QUEUED" | "ANALYZED" | "FAILED";

export const songAnalysis = sqliteTable(
  "song_analysis",
  {
    songId: integer("song_id")
      .primaryKey()
      .references(() => songs.id, { onDelete: "cascade" }),
    /** The track id at the analysis provider (a Spotify id: what the provider analyses). */
    providerTrackId: text("provider_track_id").notNull(),
    status: text("status").$type<AnalysisStatus>().notNull().default("QUEUED"),
    /** The provider's similar tracks (its track ids, best first), once ANALYZED. */
    similar: text("similar", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    /** Consumer runs so far; the job fails after MAX_ATTEMPTS. */
    attempts: integer("attempts").notNull().default(0),
    /** When we asked the provider to analyse it (the enqueue mutation), once. */
    providerEnqueuedAt: integer("provider_enqueued_at"),
    detail: text("detail"),
    createdAt: integer("created_at").notNull(),
    /** Every claim and every consumer step touches it: a QUEUED row left untouched is stale. */
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("song_analysis_status_idx").on(t.status, t.updatedAt)],
);
export type SongAnalysisRow = typeof songAnalysis.$inferSelect;
