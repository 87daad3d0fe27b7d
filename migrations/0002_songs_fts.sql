-- Full-text search over the catalogue (FTS5, external content: the text lives in `songs`).
-- unicode61 with remove_diacritics folds "Beyoncé" to "beyonce"; prefix indexes make
-- search-as-you-type ("blue mon*") an index lookup, not a scan.
CREATE VIRTUAL TABLE `songs_fts` USING fts5(
	track_name, artist_name, album_name, genre,
	content='songs', content_rowid='id',
	tokenize='unicode61 remove_diacritics 2',
	prefix='2 3 4'
);
--> statement-breakpoint
CREATE TRIGGER `songs_fts_ai` AFTER INSERT ON `songs` BEGIN
	INSERT INTO songs_fts(rowid, track_name, artist_name, album_name, genre) VALUES (new.id, new.track_name, new.artist_name, new.album_name, new.genre);
END;
--> statement-breakpoint
CREATE TRIGGER `songs_fts_ad` AFTER DELETE ON `songs` BEGIN
	INSERT INTO songs_fts(songs_fts, rowid, track_name, artist_name, album_name, genre) VALUES ('delete', old.id, old.track_name, old.artist_name, old.album_name, old.genre);
END;
--> statement-breakpoint
CREATE TRIGGER `songs_fts_au` AFTER UPDATE OF track_name, artist_name, album_name, genre ON `songs` BEGIN
	INSERT INTO songs_fts(songs_fts, rowid, track_name, artist_name, album_name, genre) VALUES ('delete', old.id, old.track_name, old.artist_name, old.album_name, old.genre);
	INSERT INTO songs_fts(rowid, track_name, artist_name, album_name, genre) VALUES (new.id, new.track_name, new.artist_name, new.album_name, new.genre);
END;
