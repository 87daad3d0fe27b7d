CREATE TABLE `queue_refills` (
	`user_uuid` text PRIMARY KEY NOT NULL,
	`crate_id` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`crate_id`) REFERENCES `crates`(`id`) ON UPDATE no action ON DELETE cascade
);
