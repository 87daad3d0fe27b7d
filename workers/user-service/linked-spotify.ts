import { requireService, caller } from "../lib/auth";
import { valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { findAnyUserOr404 } from "./accounts";
import { idParam } from "./linked-access";
import { musicLinkRoutes } from "./linked-music";
import { accessAnswer, accessToken, requireClient, unlink } from "./linked-oauth";

/**
 * Spotify linking (issue 16): exchange-code and refresh-token (linked-music.ts), unlink,
 * and the access token other services ask for to act for a person (playback, export).
 */
export const spotifyRoutes = musicLinkRoutes("spotify");

/** DELETE /spotify/refresh-token: unlinks Spotify (the sealed tokens are deleted). */
spotifyRoutes.delete("/spotify/refresh-token", async (c) => {
  const me = caller(c, ["user"]);
  const removed = await unlink(c.env, me.user.id, "spotify", "web");
  if (removed) await audit(c, "user.unlink", me.uuid, { provider: "spotify" });
  return c.json({ provider: "spotify", linked: false, removed });
});

/** GET /spotify/access-token/{id}/service: a person's Spotify access token, for services only. */
spotifyRoutes.get(
  "/spotify/access-token/:id/service",
  requireService,
  valid("param", idParam),
  async (c) => {
    requireClient(c.env, "spotify");
    const target = await findAnyUserOr404(c.env, c.req.valid("param").id);
    return c.json({
      userUuid: target.uuid,
      ...accessAnswer(await accessToken(c.env, target.id, "spotify")),
    });
  },
);
