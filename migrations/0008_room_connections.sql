CREATE TABLE `room_connections` (
	`user_uuid` text NOT NULL,
	`room_uuid` text NOT NULL,
	`connected_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `room_connections_user_room` ON `room_connections` (`user_uuid`,`room_uuid`);--> statement-breakpoint
CREATE INDEX `room_connections_room_idx` ON `room_connections` (`room_uuid`);