import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { codeBody, idParam, mobileQuery, ownOrService } from "./linked-access";
import { accessAnswer, accessToken, linkWithCode, requireClient } from "./linked-oauth";
import { publicToken } from "./soundcloud-public-token";

/**
 * SoundCloud (issue 16). The web app and the mobile app are two SoundCloud clients, so
 * every call has a `/mobile/` twin (or `?mobile=true`) using the mobile client's keys and
 * its own link row. SoundCloud's auth host (authorize, oauth/token) is SOUNDCLOUD_AUTH_URL,
 * not its API host.
 */
export const soundcloudRoutes = new Hono<AppEnv>();

// `{}` refreshes; `{ code, state }` finishes a link started at
// GET /auth/soundcloud/authorize-url (with mobile=true for the mobile twin).
const refreshBody = codeBody
  .partial()
  .refine((b) => (b.code === undefined) === (b.state === undefined), {
    message: "send { code, state } to link, or {} to refresh",
  });

for (const mobile of [false, true]) {
  const variant = mobile ? "mobile" : "web";
  const base = mobile ? "/soundcloud/mobile" : "/soundcloud";

  /**
   * POST /soundcloud[/mobile]/refresh-token: with `{ code, state }` links the caller's
   * SoundCloud account; with `{}` answers a usable access token for it.
   */
  soundcloudRoutes.post(
    `${base}/refresh-token`,
    requireUser,
    valid("json", refreshBody),
    async (c) => {
      const me = caller(c, ["user"]);
      const client = requireClient(c.env, "soundcloud", variant);
      const body = c.req.valid("json");
      if (body.code !== undefined && body.state !== undefined) {
        const { row, tokens } = await linkWithCode(c, client, me.user.id, {
          code: body.code,
          state: body.state,
        });
        await audit(c, "user.link", me.uuid, { provider: "soundcloud", variant });
        return c.json({
          provider: "soundcloud",
          linked: true,
          displayName: row.displayName,
          ...accessAnswer({ token: tokens.accessToken, expiresAt: row.accessExpiresAt ?? 0 }),
        });
      }
      return c.json(accessAnswer(await accessToken(c.env, me.user.id, "soundcloud", variant)));
    },
  );

  /** GET /soundcloud[/mobile]/public-token: the app's own token (client credentials). */
  soundcloudRoutes.get(`${base}/public-token`, requireUser, async (c) =>
    c.json(accessAnswer(await publicToken(c.env, requireClient(c.env, "soundcloud", variant)))),
  );
}

async function linkedToken(c: Context<AppEnv>, id: string, mobile: boolean) {
  const variant = mobile ? "mobile" : "web";
  const target = await ownOrService(c, id);
  requireClient(c.env, "soundcloud", variant);
  if (target.deactivated) throw new ApiError(404, "User profile not found.");
  return {
    userUuid: target.uuid,
    ...accessAnswer(await accessToken(c.env, target.id, "soundcloud", variant)),
  };
}

/**
 * GET /soundcloud/access-token/{id}?mobile=true: account {id}'s SoundCloud access token,
 * for that account itself, another service or an admin (403 for anyone else).
 */
soundcloudRoutes.get(
  "/soundcloud/access-token/:id",
  valid("param", idParam),
  valid("query", mobileQuery),
  async (c) => c.json(await linkedToken(c, c.req.valid("param").id, c.req.valid("query").mobile)),
);
