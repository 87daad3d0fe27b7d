import { musicLinkRoutes } from "./linked-music";

/**
 * YouTube (Google OAuth) linking (issue 16): POST /youtube/exchange-code and
 * /youtube/refresh-token; unlink is DELETE /linked-accounts/youtube.
 */
export const youtubeRoutes = musicLinkRoutes("youtube");
