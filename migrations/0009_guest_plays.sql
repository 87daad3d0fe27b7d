CREATE TABLE `guest_plays` (
	`guest_uuid` text PRIMARY KEY NOT NULL,
	`plays` integer DEFAULT 0 NOT NULL,
	`last_play_id` text,
	`updated_at` integer NOT NULL
);
