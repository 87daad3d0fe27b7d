CREATE TABLE `albums` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`artist_name` text NOT NULL,
	`release_year` integer,
	`thumbnail` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `albums_name_artist` ON `albums` (`name`,`artist_name`);--> statement-breakpoint
CREATE TABLE `artists` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`thumbnail` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `artists_name_unique` ON `artists` (`name`);--> statement-breakpoint
CREATE TABLE `crate_songs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`crate_song_uuid` text NOT NULL,
	`crate_id` integer NOT NULL,
	`song_id` integer NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`crate_id`) REFERENCES `crates`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`song_id`) REFERENCES `songs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crate_songs_crate_song_uuid_unique` ON `crate_songs` (`crate_song_uuid`);--> statement-breakpoint
CREATE INDEX `crate_songs_crate_pos` ON `crate_songs` (`crate_id`,`position`);--> statement-breakpoint
CREATE INDEX `crate_songs_song_idx` ON `crate_songs` (`song_id`);--> statement-breakpoint
CREATE TABLE `crates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`crate_uuid` text NOT NULL,
	`user_uuid` text NOT NULL,
	`crate_name` text NOT NULL,
	`description` text,
	`crate_type` text,
	`is_public` integer DEFAULT true NOT NULL,
	`current_position` integer DEFAULT 0 NOT NULL,
	`import_status` text,
	`thumbnails` text DEFAULT '[]' NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crates_crate_uuid_unique` ON `crates` (`crate_uuid`);--> statement-breakpoint
CREATE INDEX `crates_user_idx` ON `crates` (`user_uuid`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `crates_user_special` ON `crates` (`user_uuid`,`crate_type`);--> statement-breakpoint
CREATE TABLE `genres` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `genres_name_unique` ON `genres` (`name`);--> statement-breakpoint
CREATE TABLE `recent_song_plays` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`play_id` text NOT NULL,
	`room_slug` text NOT NULL,
	`song` text NOT NULL,
	`vote_counts` text NOT NULL,
	`dj_uuid` text NOT NULL,
	`played_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `recent_song_plays_play_id_unique` ON `recent_song_plays` (`play_id`);--> statement-breakpoint
CREATE INDEX `recent_song_plays_room_idx` ON `recent_song_plays` (`room_slug`,`played_at`);--> statement-breakpoint
CREATE TABLE `song_files` (
	`song_id` integer PRIMARY KEY NOT NULL,
	`r2_key` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`segments` text,
	`detail` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`song_id`) REFERENCES `songs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `songs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`song_id` text NOT NULL,
	`song_short_id` text NOT NULL,
	`isrc` text,
	`track_name` text DEFAULT '' NOT NULL,
	`artist_name` text DEFAULT '' NOT NULL,
	`genre` text,
	`duration` integer DEFAULT 0 NOT NULL,
	`explicit` integer DEFAULT false NOT NULL,
	`release_year` integer,
	`album_name` text,
	`artist_id` integer,
	`album_id` integer,
	`status` text DEFAULT 'PENDING_UPLOAD' NOT NULL,
	`music_providers` text DEFAULT '{}' NOT NULL,
	`thumbnails` text DEFAULT '{}' NOT NULL,
	`links` text DEFAULT '{}' NOT NULL,
	`previews` text DEFAULT '[]' NOT NULL,
	`stream_urls` text DEFAULT '{}' NOT NULL,
	`owner_uuid` text,
	`is_public` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `songs_song_id_unique` ON `songs` (`song_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `songs_song_short_id_unique` ON `songs` (`song_short_id`);--> statement-breakpoint
CREATE INDEX `songs_isrc_idx` ON `songs` (`isrc`);--> statement-breakpoint
CREATE INDEX `songs_owner_idx` ON `songs` (`owner_uuid`,`created_at`);--> statement-breakpoint
CREATE INDEX `songs_status_public_idx` ON `songs` (`status`,`is_public`);--> statement-breakpoint
CREATE INDEX `songs_artist_id_idx` ON `songs` (`artist_id`);--> statement-breakpoint
CREATE INDEX `songs_album_id_idx` ON `songs` (`album_id`);