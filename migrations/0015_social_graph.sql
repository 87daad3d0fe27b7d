-- The social graph (issue 14): follows, invitations, friendships, blocks, contact-book hashes,
-- and user_emails.contact_hash for matching a contact book.
CREATE TABLE `blocked_users` (
	`blocker_uuid` text NOT NULL,
	`blocked_uuid` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`blocker_uuid`, `blocked_uuid`)
);
--> statement-breakpoint
CREATE INDEX `blocked_users_blocked_idx` ON `blocked_users` (`blocked_uuid`);--> statement-breakpoint
CREATE TABLE `dj_fans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`dj_uuid` text NOT NULL,
	`user_uuid` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dj_fans_pair_idx` ON `dj_fans` (`dj_uuid`,`user_uuid`);--> statement-breakpoint
CREATE INDEX `dj_fans_user_idx` ON `dj_fans` (`user_uuid`);--> statement-breakpoint
CREATE TABLE `friend_invitations` (
	`uuid` text PRIMARY KEY NOT NULL,
	`from_uuid` text NOT NULL,
	`to_uuid` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `friend_invitations_from_idx` ON `friend_invitations` (`from_uuid`,`status`);--> statement-breakpoint
CREATE INDEX `friend_invitations_to_idx` ON `friend_invitations` (`to_uuid`,`status`);--> statement-breakpoint
-- Written by hand: drizzle-kit quotes expression indexes wrongly. At most one pending
-- invitation per unordered pair (workers/db/social-schema.ts).
CREATE UNIQUE INDEX `friend_invitations_pending_pair_idx` ON `friend_invitations` (min(`from_uuid`, `to_uuid`), max(`from_uuid`, `to_uuid`)) WHERE `status` = 'pending';--> statement-breakpoint
CREATE TABLE `friends` (
	`user_a` text NOT NULL,
	`user_b` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`user_a`, `user_b`)
);
--> statement-breakpoint
CREATE INDEX `friends_user_b_idx` ON `friends` (`user_b`);--> statement-breakpoint
CREATE TABLE `user_contact_hashes` (
	`user_uuid` text NOT NULL,
	`kind` text NOT NULL,
	`hash` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`user_uuid`, `hash`)
);
--> statement-breakpoint
CREATE INDEX `user_contact_hashes_hash_idx` ON `user_contact_hashes` (`hash`);--> statement-breakpoint
ALTER TABLE `user_emails` ADD `contact_hash` text;--> statement-breakpoint
CREATE INDEX `user_emails_contact_hash_idx` ON `user_emails` (`contact_hash`);