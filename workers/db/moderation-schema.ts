import { nowMs } from "./now";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { UserRole } from "../../shared/roles";
import type { ModerationActionType } from "../user-service/moderation-rules";

/**
 * Platform moderation (issue 15; seed 001 "Moderation action"). Every moderator-type call on
 * an account leaves one row in `moderation_actions` (who did what to whom, when, why), written
 * in the same batch as the change it records, so the row exists exactly when the change does.
 * The audit-service's `/moderation-actions` routes read this table; the per-user moderation
 * page reads it by target. Times are epoch milliseconds. Re-exported by schema.ts.
 */
const now = nowMs;

export const moderationActions = sqliteTable(
  "moderation_actions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    uuid: text("uuid").notNull().unique(),
    actionType: text("action_type").$type<ModerationActionType>().notNull(),
    /** The moderator, the service ("service") or the user themselves (deactivation request). */
    actorUuid: text("actor_uuid").notNull(),
    targetUuid: text("target_uuid").notNull(),
    /** For role changes: the target's roles before and the role granted or removed. */
    previousRole: text("previous_role", { mode: "json" }).$type<UserRole[]>(),
    role: text("role"),
    reason: text("reason"),
    /** A temporary ban's end. */
    until: integer("until"),
    /** What else the action names (a capability, badges, profile fields changed). */
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    index("moderation_actions_target_idx").on(t.targetUuid, t.createdAt),
    index("moderation_actions_actor_idx").on(t.actorUuid, t.createdAt),
    index("moderation_actions_time_idx").on(t.createdAt),
    index("moderation_actions_type_idx").on(t.actionType, t.createdAt),
  ],
);
export type ModerationActionRow = typeof moderationActions.$inferSelect;

/** Notes moderators leave on a user (`/moderation-comments`): moderators and above read them. */
export const moderationComments = sqliteTable(
  "moderation_comments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    targetUuid: text("target_uuid").notNull(),
    authorUuid: text("author_uuid").notNull(),
    comment: text("comment").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("moderation_comments_target_idx").on(t.targetUuid, t.id)],
);
export type ModerationCommentRow = typeof moderationComments.$inferSelect;
