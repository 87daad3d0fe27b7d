-- Lookups for track import (dedupe by provider id, or by artist + track per the seed's
-- matching rule) and the catalogue's genre filter. drizzle-kit mangles expressions that
-- contain commas, so the json_extract lines are written by hand; the snapshot is as generated.
CREATE INDEX `songs_seven_digital_idx` ON `songs` (json_extract(music_providers, '$.sevenDigital'));--> statement-breakpoint
CREATE INDEX `songs_sound_cloud_idx` ON `songs` (json_extract(music_providers, '$.soundCloudPublic'));--> statement-breakpoint
CREATE INDEX `songs_spotify_idx` ON `songs` (json_extract(music_providers, '$.spotify'));--> statement-breakpoint
CREATE INDEX `songs_apple_idx` ON `songs` (json_extract(music_providers, '$.apple'));--> statement-breakpoint
CREATE INDEX `songs_upload_service_idx` ON `songs` (json_extract(music_providers, '$.uploadService'));--> statement-breakpoint
CREATE INDEX `songs_artist_track_lower_idx` ON `songs` (lower(trim(artist_name)),lower(trim(track_name)));--> statement-breakpoint
CREATE INDEX `songs_genre_lower_idx` ON `songs` (lower(genre));
