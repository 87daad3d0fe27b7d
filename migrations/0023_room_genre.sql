-- Room discovery (issue 20): what a room mostly plays (shared/rooms.ts ROOM_GENRES; null
-- when the owner did not say), and an index for the genre filter over listed rooms.
ALTER TABLE `rooms` ADD `genre` text;--> statement-breakpoint
CREATE INDEX `rooms_listing_genre_idx` ON `rooms` (`type`,`unlisted`,`genre`,`created_at`);
