import { nowMs } from "./now";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Points, seasons, ranking and avatars (seed 000). The authoritative points and ranks live
 * in the Leaderboard durable objects (one per season, one "lifetime"); the ranking_status
 * tables are a mirror for the admin lists' crud queries, written with the board's absolute
 * balance and a version so a late write never replaces a newer one.
 */
const now = nowMs;
const timestamps = {
  createdAt: integer("created_at").notNull().default(now),
  updatedAt: integer("updated_at").notNull().default(now),
};

export const AVATAR_STATUSES = ["PUBLIC", "PRIVATE", "SEASON_AWARD", "SUBSCRIBER_ONLY"] as const;
export type AvatarStatus = (typeof AVATAR_STATUSES)[number];
export const AVATAR_ASSIGNMENT_TYPES = ["MANUAL", "SEASON_AWARD", "PURCHASED"] as const;
export type AvatarAssignmentType = (typeof AVATAR_ASSIGNMENT_TYPES)[number];

/** A season: [startDate, endDate) in epoch ms. Seasons never overlap (checked on write). */
export const seasons = sqliteTable(
  "seasons",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull().unique(),
    startDate: integer("start_date").notNull(),
    endDate: integer("end_date").notNull(),
    ...timestamps,
  },
  (t) => [index("seasons_start_idx").on(t.startDate), index("seasons_end_idx").on(t.endDate)],
);

/** Mirror of one user's balance on one season's board (admin lists). */
export const rankingStatus = sqliteTable(
  "ranking_status",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userUuid: text("user_uuid").notNull(),
    seasonId: integer("season_id").notNull(),
    balance: integer("balance").notNull().default(0),
    /** The board's per-user version (events applied); a mirror write only moves it forward. */
    version: integer("version").notNull().default(0),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("ranking_status_user_season").on(t.userUuid, t.seasonId),
    index("ranking_status_season_balance").on(t.seasonId, t.balance),
  ],
);

/** Mirror of one user's lifetime balance (admin lists). */
export const rankingStatusLifetime = sqliteTable(
  "ranking_status_lifetime",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userUuid: text("user_uuid").notNull().unique(),
    balance: integer("balance").notNull().default(0),
    version: integer("version").notNull().default(0),
    ...timestamps,
  },
  (t) => [index("ranking_status_lifetime_balance").on(t.balance)],
);

/** An avatar (seed 000: slug, status, discordOnly; art in R2 with thumbnails). */
export const avatars = sqliteTable(
  "avatars",
  {
    slug: text("slug").primaryKey(),
    name: text("name").notNull(),
    description: text("description"),
    status: text("status").$type<AvatarStatus>().notNull().default("PUBLIC"),
    discordOnly: integer("discord_only", { mode: "boolean" }).notNull().default(false),
    /** SEASON_AWARD: the season whose board awards it, and the points needed. */
    seasonId: integer("season_id"),
    pointsThreshold: integer("points_threshold"),
    /** R2 key of the original art; thumbnails are `<key>/<size>`. */
    imageKey: text("image_key"),
    ...timestamps,
  },
  (t) => [index("avatars_status_idx").on(t.status), index("avatars_season_idx").on(t.seasonId)],
);

/** An avatar a user may wear beyond the public ones; one row per (avatar, user). */
export const avatarAssignments = sqliteTable(
  "avatar_assignments",
  {
    id: text("id").primaryKey(),
    avatarSlug: text("avatar_slug").notNull(),
    userUuid: text("user_uuid").notNull(),
    type: text("type").$type<AvatarAssignmentType>().notNull(),
    seasonId: integer("season_id"),
    createdAt: timestamps.createdAt,
  },
  (t) => [
    uniqueIndex("avatar_assignments_avatar_user").on(t.avatarSlug, t.userUuid),
    index("avatar_assignments_user_idx").on(t.userUuid),
  ],
);

/** Free-form key/value fields a user sets on themselves (`/custom-fields`). */
export const customFields = sqliteTable(
  "custom_fields",
  {
    userUuid: text("user_uuid").notNull(),
    key: text("key").notNull(),
    value: text("value").notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex("custom_fields_user_key").on(t.userUuid, t.key)],
);

/** Errors the error-reporting path recorded (`POST /sentry-testing` raises one on purpose). */
export const errorReports = sqliteTable(
  "error_reports",
  {
    id: text("id").primaryKey(),
    service: text("service").notNull(),
    message: text("message").notNull(),
    stack: text("stack"),
    path: text("path"),
    userUuid: text("user_uuid"),
    createdAt: timestamps.createdAt,
  },
  (t) => [index("error_reports_created_idx").on(t.createdAt)],
);

/**
 * Why a points dead letter is kept (issue 12): `dead` (the queue gave up after its retries),
 * `invalid` (the body can never be an event, so it was never retried), and what an admin did
 * with a dead one: `replayed` (sent to the points queue again) or `discarded`.
 */
export const DEAD_LETTER_STATUSES = ["dead", "invalid", "replayed", "discarded"] as const;
export type DeadLetterStatus = (typeof DEAD_LETTER_STATUSES)[number];

/**
 * A points event the queue could not deliver, kept until an admin replays or discards it, so
 * no point is ever lost silently. One row per event id (`dedupe_key`): an event that dies
 * again updates its row (`dead_count`) instead of adding one. A body that is not an event has
 * no trustworthy id and is keyed `invalid:<queue message id>`. The event's fields are copied
 * out of the body for the admin list; `body` is what a replay sends (JSON, size-capped).
 */
export const pointsDeadLetters = sqliteTable(
  "points_dead_letters",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    dedupeKey: text("dedupe_key").notNull().unique(),
    eventId: text("event_id"),
    userUuid: text("user_uuid"),
    points: integer("points"),
    occurredAt: integer("occurred_at"),
    source: text("source"),
    body: text("body").notNull(),
    status: text("status").$type<DeadLetterStatus>().notNull(),
    /** Deliveries the queue made before giving up (0: not known). */
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /** When the event first failed (its first failed delivery), and when it was given up on. */
    firstFailedAt: integer("first_failed_at").notNull(),
    deadAt: integer("dead_at").notNull(),
    deadCount: integer("dead_count").notNull().default(1),
    replayedAt: integer("replayed_at"),
    replayCount: integer("replay_count").notNull().default(0),
    /** The admin who last replayed or discarded it. */
    resolvedBy: text("resolved_by"),
    ...timestamps,
  },
  (t) => [
    index("points_dead_letters_dead_idx").on(t.deadAt),
    index("points_dead_letters_status_idx").on(t.status, t.deadAt),
  ],
);

/**
 * The last error of each points event that is failing right now (written by the consumer on
 * every failed delivery): what a dead letter's `last_error` and `attempts` come from, since
 * the dead-letter queue carries only the body. A row goes when its event succeeds or dies.
 */
export const pointsFailures = sqliteTable(
  "points_failures",
  {
    eventId: text("event_id").primaryKey(),
    attempts: integer("attempts").notNull(),
    lastError: text("last_error").notNull(),
    firstFailedAt: integer("first_failed_at").notNull(),
    lastFailedAt: integer("last_failed_at").notNull(),
  },
  (t) => [index("points_failures_last_idx").on(t.lastFailedAt)],
);

export type SeasonRow = typeof seasons.$inferSelect;
export type AvatarRow = typeof avatars.$inferSelect;
export type AvatarAssignmentRow = typeof avatarAssignments.$inferSelect;
export type DeadLetterRow = typeof pointsDeadLetters.$inferSelect;
