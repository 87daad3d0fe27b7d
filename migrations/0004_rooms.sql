CREATE TABLE `recent_rooms` (
	`user_uuid` text NOT NULL,
	`room_uuid` text NOT NULL,
	`visited_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `recent_rooms_user_room` ON `recent_rooms` (`user_uuid`,`room_uuid`);--> statement-breakpoint
CREATE INDEX `recent_rooms_user_visited` ON `recent_rooms` (`user_uuid`,`visited_at`);--> statement-breakpoint
CREATE INDEX `recent_rooms_room_idx` ON `recent_rooms` (`room_uuid`);--> statement-breakpoint
CREATE TABLE `room_favorites` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`room_uuid` text NOT NULL,
	`user_uuid` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `room_favorites_user_room` ON `room_favorites` (`user_uuid`,`room_uuid`);--> statement-breakpoint
CREATE INDEX `room_favorites_room_idx` ON `room_favorites` (`room_uuid`);--> statement-breakpoint
CREATE TABLE `rooms` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`vibe` text,
	`dj_type` text DEFAULT 'EVERYONE' NOT NULL,
	`type` text DEFAULT 'PUBLIC' NOT NULL,
	`design` text DEFAULT 'CLUB' NOT NULL,
	`music_provider_keys` text DEFAULT '[]' NOT NULL,
	`number_of_djs` integer DEFAULT 5 NOT NULL,
	`songs_per_dj` integer,
	`room_size` integer DEFAULT 200 NOT NULL,
	`entry_fee` integer DEFAULT 0 NOT NULL,
	`free_entries` integer DEFAULT 0 NOT NULL,
	`password_hash` text,
	`password_bucket` integer,
	`guest_password_hash` text,
	`unlisted` integer DEFAULT false NOT NULL,
	`promoted` integer DEFAULT false NOT NULL,
	`is_live` integer DEFAULT true NOT NULL,
	`live_audio` integer DEFAULT false NOT NULL,
	`has_chat` integer DEFAULT true NOT NULL,
	`poster_url` text,
	`external_url` text,
	`pinned_messages` text DEFAULT '[]' NOT NULL,
	`discord_guild_id` text,
	`owner_uuid` text NOT NULL,
	`max_song_seconds` integer DEFAULT 900 NOT NULL,
	`afk_minutes` integer DEFAULT 30 NOT NULL,
	`auto_skip_ratio` real DEFAULT 0.5 NOT NULL,
	`repeat_window_minutes` integer DEFAULT 60 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rooms_uuid_unique` ON `rooms` (`uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `rooms_slug_unique` ON `rooms` (`slug`);--> statement-breakpoint
CREATE INDEX `rooms_owner_idx` ON `rooms` (`owner_uuid`,`created_at`);--> statement-breakpoint
CREATE INDEX `rooms_listing_idx` ON `rooms` (`type`,`unlisted`,`created_at`);--> statement-breakpoint
CREATE INDEX `rooms_promoted_idx` ON `rooms` (`promoted`,`created_at`);--> statement-breakpoint
CREATE INDEX `rooms_password_bucket_idx` ON `rooms` (`password_bucket`);--> statement-breakpoint
CREATE INDEX `rooms_discord_idx` ON `rooms` (`discord_guild_id`);