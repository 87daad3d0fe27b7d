-- Platform moderation (issue 15): the moderation action log and moderators' notes on a user,
-- and on users a ban (banned_at, banned_until: null for a permanent ban; in force while
-- banned_until is null or ahead, so a temporary ban ends by the clock) and a deactivation request.
CREATE TABLE `moderation_actions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`action_type` text NOT NULL,
	`actor_uuid` text NOT NULL,
	`target_uuid` text NOT NULL,
	`previous_role` text,
	`role` text,
	`reason` text,
	`until` integer,
	`details` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `moderation_actions_uuid_unique` ON `moderation_actions` (`uuid`);--> statement-breakpoint
CREATE INDEX `moderation_actions_target_idx` ON `moderation_actions` (`target_uuid`,`created_at`);--> statement-breakpoint
CREATE INDEX `moderation_actions_actor_idx` ON `moderation_actions` (`actor_uuid`,`created_at`);--> statement-breakpoint
CREATE INDEX `moderation_actions_time_idx` ON `moderation_actions` (`created_at`);--> statement-breakpoint
CREATE INDEX `moderation_actions_type_idx` ON `moderation_actions` (`action_type`,`created_at`);--> statement-breakpoint
CREATE TABLE `moderation_comments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`target_uuid` text NOT NULL,
	`author_uuid` text NOT NULL,
	`comment` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `moderation_comments_target_idx` ON `moderation_comments` (`target_uuid`,`id`);--> statement-breakpoint
ALTER TABLE `users` ADD `deactivation_requested_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `banned_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `banned_until` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `ban_reason` text;--> statement-breakpoint
CREATE INDEX `users_deactivation_request_idx` ON `users` (`deactivation_requested_at`);