CREATE TABLE `phone_codes` (
	`phone` text PRIMARY KEY NOT NULL,
	`code_hash` text NOT NULL,
	`channel` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `phone_validations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer,
	`phone` text NOT NULL,
	`result` text NOT NULL,
	`line_type` text,
	`country` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `phone_validations_user_idx` ON `phone_validations` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `phone_validations_created_idx` ON `phone_validations` (`created_at`);--> statement-breakpoint
CREATE TABLE `phone_whitelist` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`phone` text NOT NULL,
	`code` text NOT NULL,
	`note` text,
	`created_by` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `phone_whitelist_phone_idx` ON `phone_whitelist` (`phone`);--> statement-breakpoint
CREATE TABLE `user_phones` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`phone` text NOT NULL,
	`contact_hash` text,
	`verified_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_phones_phone_idx` ON `user_phones` (`phone`);--> statement-breakpoint
CREATE INDEX `user_phones_contact_hash_idx` ON `user_phones` (`contact_hash`);