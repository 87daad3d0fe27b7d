import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { crates } from "./schema";

/**
 * "Refill my queue from crate X" (issue 20): when a DJ's queue has nothing left to play on
 * their turn, the room copies songs from this crate into it instead of dropping them from
 * the stage. One row per user; deleting the crate deletes the choice. Re-exported by
 * schema.ts (drizzle-kit reads it).
 */
export const queueRefills = sqliteTable("queue_refills", {
  userUuid: text("user_uuid").primaryKey(),
  crateId: integer("crate_id")
    .notNull()
    .references(() => crates.id, { onDelete: "cascade" }),
  updatedAt: integer("updated_at").notNull(),
});
