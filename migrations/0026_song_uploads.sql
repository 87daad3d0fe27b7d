CREATE TABLE `song_uploads` (
	`song_id` integer PRIMARY KEY NOT NULL,
	`r2_key` text NOT NULL,
	`upload_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
