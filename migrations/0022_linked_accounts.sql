-- Linked provider accounts (issue 16): sealed provider tokens, OAuth states in flight (hashed, single-use), the app's own shared provider tokens. See workers/db/linked-schema.ts.
CREATE TABLE `app_tokens` (
	`name` text PRIMARY KEY NOT NULL,
	`token_enc` text,
	`key_id` text,
	`expires_at` integer DEFAULT 0 NOT NULL,
	`lease_until` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `linked_accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`provider` text NOT NULL,
	`variant` text DEFAULT 'web' NOT NULL,
	`external_id` text NOT NULL,
	`display_name` text,
	`refresh_token_enc` text,
	`access_token_enc` text,
	`access_expires_at` integer,
	`key_id` text NOT NULL,
	`scope` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `linked_accounts_user_idx` ON `linked_accounts` (`user_id`,`provider`,`variant`);--> statement-breakpoint
CREATE UNIQUE INDEX `linked_accounts_external_idx` ON `linked_accounts` (`provider`,`variant`,`external_id`);--> statement-breakpoint
CREATE TABLE `oauth_states` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`variant` text DEFAULT 'web' NOT NULL,
	`intent` text NOT NULL,
	`user_id` integer,
	`verifier_enc` text,
	`key_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `oauth_states_expires_idx` ON `oauth_states` (`expires_at`);