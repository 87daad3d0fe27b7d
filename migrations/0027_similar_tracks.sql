-- Similar tracks (issue 18): the analysis job per song, and the plays of a song by its id.
CREATE TABLE `song_analysis` (
	`song_id` integer PRIMARY KEY NOT NULL,
	`provider_track_id` text NOT NULL,
	`status` text DEFAULT 'QUEUED' NOT NULL,
	`similar` text DEFAULT '[]' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`provider_enqueued_at` integer,
	`detail` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`song_id`) REFERENCES `songs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `song_analysis_status_idx` ON `song_analysis` (`status`,`updated_at`);--> statement-breakpoint
-- drizzle-kit mangles expressions that contain commas: this line is written by hand.
CREATE INDEX `recent_song_plays_song_idx` ON `recent_song_plays` (json_extract(song, '$.songId'),`played_at`);
