-- Issue 14, part 2: push devices, web push subscriptions, the in-app notification centre,
-- per-user notification settings and the throttle (workers/db/notify-schema.ts).
-- Numbered 0015: 0014 is the social graph, built in parallel (the integrator re-chains the
-- snapshot and the journal index when both are merged).
CREATE TABLE `devices` (
	`token` text PRIMARY KEY NOT NULL,
	`user_uuid` text NOT NULL,
	`platform` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `devices_user_idx` ON `devices` (`user_uuid`,`updated_at`);--> statement-breakpoint
CREATE TABLE `notification_settings` (
	`user_uuid` text PRIMARY KEY NOT NULL,
	`disabled_kinds` text DEFAULT '[]' NOT NULL,
	`quiet_start` integer,
	`quiet_end` integer,
	`time_zone` text,
	`utc_offset_minutes` integer,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`user_uuid` text NOT NULL,
	`message_id` text NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`data` text DEFAULT '{}' NOT NULL,
	`silent` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`read_at` integer,
	`push_claimed_at` integer,
	`pushed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_uuid_unique` ON `notifications` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_message_user` ON `notifications` (`message_id`,`user_uuid`);--> statement-breakpoint
CREATE INDEX `notifications_user_created` ON `notifications` (`user_uuid`,`created_at`);--> statement-breakpoint
CREATE TABLE `notify_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`until` integer NOT NULL,
	`owner` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notify_throttle_until` ON `notify_throttle` (`until`);--> statement-breakpoint
CREATE TABLE `web_push_subscriptions` (
	`endpoint` text PRIMARY KEY NOT NULL,
	`user_uuid` text NOT NULL,
	`p256dh` text NOT NULL,
	`auth` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `web_push_user_idx` ON `web_push_subscriptions` (`user_uuid`,`created_at`);