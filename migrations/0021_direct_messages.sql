-- Direct messages (issue 16): conversations per sorted user pair, a member row per side
-- (unread counter, read position, last message time), messages, and who may write to whom.
CREATE TABLE `dm_conversation_members` (
	`user_uuid` text NOT NULL,
	`conversation_uuid` text NOT NULL,
	`peer_uuid` text NOT NULL,
	`unread` integer DEFAULT 0 NOT NULL,
	`read_up_to` integer DEFAULT 0 NOT NULL,
	`last_message_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`user_uuid`, `conversation_uuid`)
);
--> statement-breakpoint
CREATE INDEX `dm_members_recent_idx` ON `dm_conversation_members` (`user_uuid`,`last_message_at`);--> statement-breakpoint
CREATE TABLE `dm_conversations` (
	`uuid` text PRIMARY KEY NOT NULL,
	`user_a` text NOT NULL,
	`user_b` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dm_conversations_pair_idx` ON `dm_conversations` (`user_a`,`user_b`);--> statement-breakpoint
CREATE TABLE `dm_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`conversation_uuid` text NOT NULL,
	`sender_uuid` text NOT NULL,
	`text` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dm_messages_conversation_idx` ON `dm_messages` (`conversation_uuid`,`id`);--> statement-breakpoint
CREATE TABLE `dm_settings` (
	`user_uuid` text PRIMARY KEY NOT NULL,
	`friends_only` integer DEFAULT false NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
