import { Hono } from "hono";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { codeBody } from "./linked-access";
import { accessAnswer, accessToken, linkWithCode, requireClient } from "./linked-oauth";

/**
 * The two calls Spotify and YouTube share (issue 16):
 * - POST /{provider}/exchange-code `{ code, state }`: finishes a link the caller started
 *   at GET /auth/{provider}/authorize-url; answers who was linked and an access token.
 * - POST /{provider}/refresh-token: a usable access token for the caller's link (the
 *   cached one while it lasts, else refreshed with the sealed refresh token, which never
 *   leaves the server).
 */
export function musicLinkRoutes(provider: "spotify" | "youtube") {
  const routes = new Hono<AppEnv>();
  routes.post(`/${provider}/exchange-code`, requireUser, valid("json", codeBody), async (c) => {
    const me = caller(c, ["user"]);
    const client = requireClient(c.env, provider);
    const { row, tokens } = await linkWithCode(c, client, me.user.id, c.req.valid("json"));
    await audit(c, "user.link", me.uuid, { provider });
    return c.json({
      provider,
      linked: true,
      displayName: row.displayName,
      ...accessAnswer({ token: tokens.accessToken, expiresAt: row.accessExpiresAt ?? Date.now() }),
    });
  });
  routes.post(`/${provider}/refresh-token`, requireUser, async (c) => {
    const me = caller(c, ["user"]);
    requireClient(c.env, provider);
    return c.json(accessAnswer(await accessToken(c.env, me.user.id, provider)));
  });
  return routes;
}
