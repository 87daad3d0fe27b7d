-- Points dead letters (issue 12): events the points queue gave up on, kept until an admin
-- replays or discards them, and the last error of each event failing right now. As
-- drizzle-kit generated it (numbered 0012: 0011 is taken by another change).
CREATE TABLE `points_dead_letters` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`dedupe_key` text NOT NULL,
	`event_id` text,
	`user_uuid` text,
	`points` integer,
	`occurred_at` integer,
	`source` text,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`first_failed_at` integer NOT NULL,
	`dead_at` integer NOT NULL,
	`dead_count` integer DEFAULT 1 NOT NULL,
	`replayed_at` integer,
	`replay_count` integer DEFAULT 0 NOT NULL,
	`resolved_by` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `points_dead_letters_dedupe_key_unique` ON `points_dead_letters` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `points_dead_letters_dead_idx` ON `points_dead_letters` (`dead_at`);--> statement-breakpoint
CREATE INDEX `points_dead_letters_status_idx` ON `points_dead_letters` (`status`,`dead_at`);--> statement-breakpoint
CREATE TABLE `points_failures` (
	`event_id` text PRIMARY KEY NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text NOT NULL,
	`first_failed_at` integer NOT NULL,
	`last_failed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `points_failures_last_idx` ON `points_failures` (`last_failed_at`);
