import { serviceApp } from "../lib/service";

/** The playlist-service. Its resources arrive with their issues; for now it answers its health check. */
export const playlistService = serviceApp("playlist-service");
