import { Hono } from "hono";
import { z } from "zod";
import { appleDeveloperToken } from "../adapters/apple-developer-token";
import { outside } from "../adapters/music";
import { appleEnabled } from "../adapters/music/apple";
import { joinUrl, providerJson, ProviderError } from "../adapters/music/http";
import { PROVIDER_NAMES } from "../adapters/oauth";
import type { AppEnv, Env } from "../env";
import { caller, requireUser } from "../lib/auth";
import { sha256 } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { idParam, ownOrService } from "./linked-access";
import { LINK_MSG } from "./linked-messages";
import { findLink, openSecret, saveLink } from "./linked-oauth";

/**
 * Apple Music (issue 16). Apple has no OAuth for this: MusicKit (JS or the iOS SDK),
 * configured with our developer token, asks the person and hands the page a Music User
 * Token. POST /apple/user-token stores it (sealed, like every provider secret) after Apple
 * accepts it; GET /apple/user-token/{id} gives it back to its owner or to a service.
 */
export const appleRoutes = new Hono<AppEnv>();
const NAME = PROVIDER_NAMES.apple;
/** Apple documents Music User Tokens as lasting about six months. */
const MUT_LIFETIME_MS = 180 * 24 * 3600_000;

export const appleReady = (env: Env) => appleEnabled(env);

async function developerTokenOr503(env: Env) {
  const token = appleReady(env) ? await appleDeveloperToken(env) : null;
  if (!token) throw new ApiError(503, LINK_MSG.notConfigured(NAME));
  return token;
}

/** GET /apple/developer-token: the token MusicKit JS is configured with (signed-in users). */
appleRoutes.get("/apple/developer-token", requireUser, async (c) =>
  c.json({ developerToken: await developerTokenOr503(c.env) }),
);

/** POST /apple/user-token `{ musicUserToken }`: links Apple Music to the caller. */
appleRoutes.post(
  "/apple/user-token",
  requireUser,
  valid(
    "json",
    z.object({
      musicUserToken: z
        .string({ error: "musicUserToken must be a string" })
        .min(1, "musicUserToken should not be empty")
        .max(4096, "musicUserToken must be at most 4096 characters")
        .regex(/^[\x21-\x7e]+$/, "musicUserToken must be printable ASCII"),
    }),
  ),
  async (c) => {
    const me = caller(c, ["user"]);
    const dev = await developerTokenOr503(c.env);
    const mut = c.req.valid("json").musicUserToken;
    // Apple must accept the token before we keep it: the storefront is who it belongs to.
    const body = await outside(NAME, async () => {
      try {
        return await providerJson(NAME, joinUrl(c.env.APPLE_MUSIC_API_URL!, "v1/me/storefront"), {
          headers: { Authorization: `Bearer ${dev}`, "Music-User-Token": mut },
        });
      } catch (err) {
        if (err instanceof ProviderError && (err.status === 401 || err.status === 403))
          throw new ApiError(400, LINK_MSG.appleTokenRefused);
        throw err;
      }
    });
    const storefront = (body as { data?: { id?: unknown }[] } | null)?.data?.[0]?.id;
    if (typeof storefront !== "string") throw new ApiError(400, LINK_MSG.appleTokenRefused);
    const row = await saveLink(
      c.env,
      me.user.id,
      { provider: "apple", variant: "web", name: NAME },
      // Apple names no account; the token's hash stands for it (one token links one account).
      {
        id: `mut-${(await sha256(mut)).slice(0, 32)}`,
        displayName: `${NAME} (${storefront.toUpperCase()})`,
      },
      { refresh: null, access: { token: mut, expiresAt: Date.now() + MUT_LIFETIME_MS } },
    );
    await audit(c, "user.link", me.uuid, { provider: "apple" });
    return c.json({ provider: "apple", linked: true, displayName: row.displayName, storefront });
  },
);

/** GET /apple/user-token/{id}: account {id}'s Music User Token, for itself, a service or an admin. */
appleRoutes.get("/apple/user-token/:id", valid("param", idParam), async (c) => {
  const target = await ownOrService(c, c.req.valid("param").id);
  const row = await findLink(c.env, target.id, "apple", "web");
  const mut = row ? await openSecret(c.env, row, "access") : null;
  if (!row || !mut) throw new ApiError(404, LINK_MSG.notLinked(NAME));
  return c.json({
    userUuid: target.uuid,
    musicUserToken: mut,
    expiresAt: row.accessExpiresAt ? new Date(row.accessExpiresAt).toISOString() : null,
    developerToken: await appleDeveloperToken(c.env),
  });
});
