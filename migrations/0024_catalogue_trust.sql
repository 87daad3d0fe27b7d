CREATE TABLE `crate_imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`import_id` text NOT NULL,
	`import_key` text NOT NULL,
	`user_uuid` text NOT NULL,
	`crate_id` integer NOT NULL,
	`tracks` text NOT NULL,
	`total` integer NOT NULL,
	`done` integer DEFAULT 0 NOT NULL,
	`results` text DEFAULT '[]' NOT NULL,
	`status` text DEFAULT 'IN_PROGRESS' NOT NULL,
	`detail` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crate_imports_import_id_unique` ON `crate_imports` (`import_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `crate_imports_user_key` ON `crate_imports` (`user_uuid`,`import_key`);--> statement-breakpoint
CREATE INDEX `crate_imports_crate_idx` ON `crate_imports` (`crate_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `crate_imports_status_idx` ON `crate_imports` (`status`,`updated_at`);--> statement-breakpoint
ALTER TABLE `songs` ADD `name_key` text;--> statement-breakpoint
CREATE INDEX `songs_name_key_idx` ON `songs` (`name_key`);--> statement-breakpoint
-- Backfill the name key where it can be computed in SQL exactly as shared/songs.ts `nameKey`
-- does: names of printable ASCII only (NFKC leaves those alone and lower() folds them all).
-- Other rows keep a null key; the import lookup falls back to lower(trim(...)) for them.
UPDATE `songs` SET `name_key` = lower(trim(`artist_name`)) || char(31) || lower(trim(`track_name`))
  WHERE `artist_name` NOT GLOB '*[^ -~]*' AND `track_name` NOT GLOB '*[^ -~]*';
--> statement-breakpoint
-- Genres, artists and albums from the listed catalogue so far (issue 18: nothing wrote these
-- tables), the same rule as workers/songs/facets.ts: verified public songs only, names
-- trimmed, one row per name ignoring ASCII case (the first spelling wins).
INSERT OR IGNORE INTO `genres` (`name`)
  SELECT trim(`genre`) FROM `songs` s WHERE `status` = 'VERIFIED' AND `is_public` = 1 AND trim(coalesce(`genre`, '')) != ''
    AND NOT EXISTS (SELECT 1 FROM `genres` g WHERE lower(g.`name`) = lower(trim(s.`genre`)))
    GROUP BY lower(trim(`genre`));
--> statement-breakpoint
INSERT OR IGNORE INTO `artists` (`name`)
  SELECT trim(`artist_name`) FROM `songs` s WHERE `status` = 'VERIFIED' AND `is_public` = 1 AND trim(`artist_name`) != ''
    AND NOT EXISTS (SELECT 1 FROM `artists` a WHERE lower(a.`name`) = lower(trim(s.`artist_name`)))
    GROUP BY lower(trim(`artist_name`));
--> statement-breakpoint
INSERT OR IGNORE INTO `albums` (`name`, `artist_name`, `release_year`)
  SELECT trim(`album_name`), trim(`artist_name`), max(`release_year`) FROM `songs` s
    WHERE `status` = 'VERIFIED' AND `is_public` = 1 AND trim(coalesce(`album_name`, '')) != '' AND trim(`artist_name`) != ''
    AND NOT EXISTS (SELECT 1 FROM `albums` a WHERE lower(a.`name`) = lower(trim(s.`album_name`)) AND lower(a.`artist_name`) = lower(trim(s.`artist_name`)))
    GROUP BY lower(trim(`album_name`)), lower(trim(`artist_name`));
--> statement-breakpoint
UPDATE `songs` SET
  `artist_id` = (SELECT a.`id` FROM `artists` a WHERE lower(a.`name`) = lower(trim(`songs`.`artist_name`))),
  `album_id` = (SELECT a.`id` FROM `albums` a WHERE lower(a.`name`) = lower(trim(`songs`.`album_name`)) AND lower(a.`artist_name`) = lower(trim(`songs`.`artist_name`)))
  WHERE `status` = 'VERIFIED' AND `is_public` = 1;
