CREATE TABLE `checkout_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_uuid` text NOT NULL,
	`product_id` text NOT NULL,
	`mode` text NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`url` text NOT NULL,
	`completed_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `checkout_sessions_user_idx` ON `checkout_sessions` (`user_uuid`,`created_at`);--> statement-breakpoint
CREATE TABLE `consumable_files` (
	`id` text PRIMARY KEY NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`owner_uuid` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `consumable_purchases` (
	`id` text PRIMARY KEY NOT NULL,
	`idempotency_key` text NOT NULL,
	`account_id` text NOT NULL,
	`user_uuid` text NOT NULL,
	`room_uuid` text NOT NULL,
	`consumable_id` integer NOT NULL,
	`token_cost` integer NOT NULL,
	`status` text DEFAULT 'held' NOT NULL,
	`hold_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `consumable_purchases_idempotency_key_unique` ON `consumable_purchases` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `consumable_purchases_account_idx` ON `consumable_purchases` (`account_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `consumable_purchases_room_idx` ON `consumable_purchases` (`room_uuid`,`created_at`);--> statement-breakpoint
CREATE TABLE `consumables` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`token_cost` integer NOT NULL,
	`display_type` text DEFAULT 'small' NOT NULL,
	`file_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `consumables_created_idx` ON `consumables` (`created_at`);--> statement-breakpoint
CREATE TABLE `payment_events` (
	`id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`type` text NOT NULL,
	`received_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`payment_type` text DEFAULT 'one_time' NOT NULL,
	`price` integer NOT NULL,
	`currency` text DEFAULT 'usd' NOT NULL,
	`subscription_level` text,
	`stripe_price_id` text,
	`active` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `products_type_idx` ON `products` (`payment_type`,`created_at`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_uuid` text NOT NULL,
	`product_id` text,
	`level` text NOT NULL,
	`status` text NOT NULL,
	`region` text,
	`source` text NOT NULL,
	`external_id` text NOT NULL,
	`customer_id` text,
	`start_date` integer NOT NULL,
	`end_date` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_source_external` ON `subscriptions` (`source`,`external_id`);--> statement-breakpoint
CREATE INDEX `subscriptions_user_idx` ON `subscriptions` (`user_uuid`,`start_date`);--> statement-breakpoint
CREATE INDEX `subscriptions_start_idx` ON `subscriptions` (`start_date`);--> statement-breakpoint
CREATE TABLE `token_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`user_uuid` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `token_accounts_user_uuid_unique` ON `token_accounts` (`user_uuid`);--> statement-breakpoint
CREATE TABLE `token_bundles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`product_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`token_amount` integer NOT NULL,
	`thumbnail_key` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `token_bundles_product_idx` ON `token_bundles` (`product_id`);--> statement-breakpoint
CREATE TABLE `avatar_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`avatar_slug` text NOT NULL,
	`user_uuid` text NOT NULL,
	`type` text NOT NULL,
	`season_id` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `avatar_assignments_avatar_user` ON `avatar_assignments` (`avatar_slug`,`user_uuid`);--> statement-breakpoint
CREATE INDEX `avatar_assignments_user_idx` ON `avatar_assignments` (`user_uuid`);--> statement-breakpoint
CREATE TABLE `avatars` (
	`slug` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'PUBLIC' NOT NULL,
	`discord_only` integer DEFAULT false NOT NULL,
	`season_id` integer,
	`points_threshold` integer,
	`image_key` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `avatars_status_idx` ON `avatars` (`status`);--> statement-breakpoint
CREATE INDEX `avatars_season_idx` ON `avatars` (`season_id`);--> statement-breakpoint
CREATE TABLE `custom_fields` (
	`user_uuid` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_fields_user_key` ON `custom_fields` (`user_uuid`,`key`);--> statement-breakpoint
CREATE TABLE `error_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`service` text NOT NULL,
	`message` text NOT NULL,
	`stack` text,
	`path` text,
	`user_uuid` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `error_reports_created_idx` ON `error_reports` (`created_at`);--> statement-breakpoint
CREATE TABLE `ranking_status` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_uuid` text NOT NULL,
	`season_id` integer NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ranking_status_user_season` ON `ranking_status` (`user_uuid`,`season_id`);--> statement-breakpoint
CREATE INDEX `ranking_status_season_balance` ON `ranking_status` (`season_id`,`balance`);--> statement-breakpoint
CREATE TABLE `ranking_status_lifetime` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_uuid` text NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ranking_status_lifetime_user_uuid_unique` ON `ranking_status_lifetime` (`user_uuid`);--> statement-breakpoint
CREATE INDEX `ranking_status_lifetime_balance` ON `ranking_status_lifetime` (`balance`);--> statement-breakpoint
CREATE TABLE `seasons` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`start_date` integer NOT NULL,
	`end_date` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `seasons_name_unique` ON `seasons` (`name`);--> statement-breakpoint
CREATE INDEX `seasons_start_idx` ON `seasons` (`start_date`);--> statement-breakpoint
CREATE INDEX `seasons_end_idx` ON `seasons` (`end_date`);