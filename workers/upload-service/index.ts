import { serviceApp } from "../lib/service";
import { hlsRoutes } from "./hls";
import { songRoutes } from "./songs";
import { transcoderRoutes } from "./transcoder";
import { transcoderFileRoutes } from "./transcoder-files";
import { uploadRoutes } from "./uploads";

/**
 * The upload-service (the song service, docs/SONGS-API.md): uploads, tags, lists and search,
 * HLS playback, and the transcoder's callback. No two resources share a path shape except
 * `/songs/public` and `/songs/{songId}`, ordered inside songs.ts.
 */
export const uploadService = serviceApp("upload-service");
for (const routes of [
  uploadRoutes,
  transcoderRoutes,
  transcoderFileRoutes,
  songRoutes,
  hlsRoutes,
]) {
  uploadService.route("/", routes);
}
