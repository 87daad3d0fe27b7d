CREATE TABLE `audit_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`topic` text NOT NULL,
	`user_uuid` text,
	`data` text DEFAULT '{}' NOT NULL,
	`occurred_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_events_event_id_unique` ON `audit_events` (`event_id`);--> statement-breakpoint
CREATE INDEX `audit_events_user_idx` ON `audit_events` (`user_uuid`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `audit_events_topic_idx` ON `audit_events` (`topic`,`occurred_at`);--> statement-breakpoint
CREATE TABLE `dev_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`channel` text NOT NULL,
	`to` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`html` text,
	`message_id` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dev_outbox_message_id_unique` ON `dev_outbox` (`message_id`);--> statement-breakpoint
CREATE INDEX `dev_outbox_to_idx` ON `dev_outbox` (`to`);--> statement-breakpoint
CREATE TABLE `login_attempts` (
	`key` text NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `login_attempts_key_window` ON `login_attempts` (`key`,`window_start`);--> statement-breakpoint
CREATE TABLE `one_time_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`user_id` integer NOT NULL,
	`target` text,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `one_time_tokens_user_idx` ON `one_time_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `user_emails` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`email` text NOT NULL,
	`type` text DEFAULT 'personal' NOT NULL,
	`status` text DEFAULT 'PENDING_VERIFICATION' NOT NULL,
	`code_hash` text,
	`code_sent_at` integer,
	`code_attempts` integer DEFAULT 0 NOT NULL,
	`verified_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_emails_user_idx` ON `user_emails` (`user_id`);--> statement-breakpoint
CREATE INDEX `user_emails_email_idx` ON `user_emails` (`email`);--> statement-breakpoint
CREATE TABLE `user_images` (
	`id` text PRIMARY KEY NOT NULL,
	`user_uuid` text NOT NULL,
	`kind` text NOT NULL,
	`r2_key` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `user_images_user_idx` ON `user_images` (`user_uuid`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`email` text,
	`password_hash` text,
	`email_verified` integer DEFAULT false NOT NULL,
	`nickname` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`color` text DEFAULT '562DF9' NOT NULL,
	`avatar_id` text,
	`pronoun` text,
	`display_pronouns` integer DEFAULT false NOT NULL,
	`song_of_the_week` text,
	`zodiac` text,
	`bio` text,
	`profile_picture` text,
	`cover_picture` text,
	`facebook` text,
	`instagram` text,
	`twitter` text,
	`snapchat` text,
	`tiktok` text,
	`price_for_gig` integer,
	`roles` text DEFAULT '["user"]' NOT NULL,
	`capabilities` text DEFAULT '[]' NOT NULL,
	`badges` text DEFAULT '[]' NOT NULL,
	`user_data` text DEFAULT '{}' NOT NULL,
	`owner_uuid` text,
	`subscription_level` text,
	`session_version` integer DEFAULT 0 NOT NULL,
	`deactivated` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_uuid_unique` ON `users` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_nickname_idx` ON `users` (`nickname`);--> statement-breakpoint
CREATE INDEX `users_updated_idx` ON `users` (`updated_at`);--> statement-breakpoint
CREATE TABLE `vouchers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`code` text NOT NULL,
	`status` text DEFAULT 'PENDING' NOT NULL,
	`capability` text,
	`note` text,
	`created_by` text NOT NULL,
	`redeemed_by` text,
	`redeemed_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vouchers_code_unique` ON `vouchers` (`code`);