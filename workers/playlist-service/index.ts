import { serviceApp } from "../lib/service";
import { catalogueRoutes } from "./catalogue";
import { crateSongRoutes } from "./crate-songs";
import { crateRoutes } from "./crates";
import { queueRefillRoutes } from "./queue-refill";
import { recentSongRoutes } from "./recent-songs";
import { specialCrateRoutes } from "./special-crates";
import { trackImportRoutes } from "./track-import";
import { exportRoutes } from "./exports";
import { searchRoutes } from "./search";
import { songDataRoutes } from "./song-data";
import { similarTrackRoutes } from "./similar-tracks";

/**
 * The playlist-service: song search across the catalogue and the music providers, song
 * data and streams by provider link or id, crate exports to providers, crates (the queue
 * and likes special crates, ordinary crates and their songs), the catalogue and its
 * imports, and recently played songs. Its texts are in messages.ts (the seeds' song texts
 * are in workers/songs/messages.ts).
 */
export const playlistService = serviceApp("playlist-service");
playlistService.route("/", searchRoutes);
playlistService.route("/", songDataRoutes);
playlistService.route("/", exportRoutes);
// Crates: the queue and likes routes go first so /crate/queue and /crate/likes are never
// taken for a crate uuid by /crate/:id.
playlistService.route("/", queueRefillRoutes);
playlistService.route("/", specialCrateRoutes);
playlistService.route("/", crateRoutes);
playlistService.route("/", crateSongRoutes);
playlistService.route("/", catalogueRoutes);
playlistService.route("/", trackImportRoutes);
playlistService.route("/", recentSongRoutes);
playlistService.route("/", similarTrackRoutes);
