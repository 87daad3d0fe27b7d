import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { nowMs } from "./now";

/**
 * Uploads in flight (issue 18; workers/upload-service/stale-uploads.ts). Re-exported by
 * schema.ts (drizzle-kit reads it).
 *
 * A row exists from the moment an upload's song row is made until its bytes are all in R2;
 * it names the R2 multipart upload once one is opened (the R2 binding cannot list open
 * multipart uploads, so this is the only way to find one again). A Worker that dies
 * mid-upload leaves the row behind, and the cron sweeper aborts the multipart upload and
 * fails the song. `song_id` is songs.id; deleting the song deletes the row.
 */
export const songUploads = sqliteTable("song_uploads", {
  songId: integer("song_id").primaryKey(),
  r2Key: text("r2_key").notNull(),
  /** The R2 multipart upload id; null while the bytes still fit in one part in memory. */
  uploadId: text("upload_id"),
  createdAt: integer("created_at").notNull().default(nowMs),
});
