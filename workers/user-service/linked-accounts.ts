import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { oauthClient, PROVIDER_NAMES } from "../adapters/oauth";
import { db } from "../db/client";
import { linkedAccounts, LINK_PROVIDERS } from "../db/schema";
import type { AppEnv } from "../env";
import { clientNet } from "../lib/abuse-limits";
import { caller } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { takeAttempt } from "../lib/rate-limit";
import { valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { appleReady } from "./linked-apple";
import { unlinkDiscordGuard } from "./linked-discord";
import { LINK_MSG } from "./linked-messages";
import { authorizeUrl, linkView, redirectUri, requireClient, unlink } from "./linked-oauth";

/**
 * The Connected accounts calls (issue 16): start an OAuth link, list the links, remove one.
 *
 * GET /auth/{provider}/authorize-url?intent=link|sign-in&mobile=true: the URL to send the
 * browser (or the app) to, with a fresh single-use `state` bound to the caller's account
 * (intent=link, a signed-in account) or, for a Discord sign-in, to nobody yet: the web
 * page binds it to the browser with an HttpOnly cookie and checks it on the way back.
 */
export const linkedAccountRoutes = new Hono<AppEnv>();

const OAUTH_PROVIDERS = ["discord", "spotify", "youtube", "soundcloud"] as const;
const providerParam = z.object({
  provider: z.enum(LINK_PROVIDERS, { error: LINK_MSG.unknownProvider }),
});

linkedAccountRoutes.get(
  "/auth/:provider/authorize-url",
  valid("param", z.object({ provider: z.enum(OAUTH_PROVIDERS, { error: LINK_MSG.notOAuth }) })),
  valid(
    "query",
    z.object({
      intent: z
        .enum(["link", "sign-in"], { error: "intent must be link or sign-in" })
        .default("link"),
      mobile: z.enum(["true", "false"], { error: "mobile must be true or false" }).optional(),
    }),
  ),
  async (c) => {
    const { provider } = c.req.valid("param");
    const q = c.req.valid("query");
    if (q.intent === "sign-in" && provider !== "discord")
      throw new ApiError(400, LINK_MSG.signInOnlyDiscord);
    const client = requireClient(c.env, provider, q.mobile === "true" ? "mobile" : "web");
    if (q.intent === "sign-in") {
      await takeAttempt(
        c.env,
        [{ rule: "oauthSignInPerIp", key: clientNet(c.req.header("CF-Connecting-IP")) }],
        LINK_MSG.tooManyLinks,
      );
      return c.json(await authorizeUrl(c, client, "sign-in", null));
    }
    const me = caller(c, ["user"]);
    await takeAttempt(
      c.env,
      [{ rule: "oauthLinkPerAccount", key: String(me.user.id) }],
      LINK_MSG.tooManyLinks,
    );
    return c.json(await authorizeUrl(c, client, "link", me.user.id));
  },
);

/** GET /auth/sign-in-providers: which providers the log-in page may offer (public). */
linkedAccountRoutes.get("/auth/sign-in-providers", (c) => {
  const client = oauthClient(c.env, "discord");
  return c.json({ discord: !!client && !!redirectUri(c, client) });
});

/**
 * GET /linked-accounts: the caller's links (never a token) and, for the page, each
 * provider's availability on this server.
 */
linkedAccountRoutes.get("/linked-accounts", async (c) => {
  const me = caller(c, ["user"]);
  const rows = await db(c.env)
    .select()
    .from(linkedAccounts)
    .where(eq(linkedAccounts.userId, me.user.id))
    .all();
  const providers = LINK_PROVIDERS.map((p) => {
    const client = p === "apple" ? null : oauthClient(c.env, p);
    const available = p === "apple" ? appleReady(c.env) : !!client && !!redirectUri(c, client);
    return { provider: p, name: PROVIDER_NAMES[p], available };
  });
  return c.json({ providers, links: rows.map(linkView) });
});

/** DELETE /linked-accounts/{provider}?mobile=true: removes the link and its tokens. */
linkedAccountRoutes.delete(
  "/linked-accounts/:provider",
  valid("param", providerParam),
  valid(
    "query",
    z.object({
      mobile: z.enum(["true", "false"], { error: "mobile must be true or false" }).optional(),
    }),
  ),
  async (c) => {
    const me = caller(c, ["user"]);
    const { provider } = c.req.valid("param");
    if (provider === "discord") await unlinkDiscordGuard(c.env, me.user);
    const removed = await unlink(
      c.env,
      me.user.id,
      provider,
      c.req.valid("query").mobile === "true" ? "mobile" : "web",
    );
    if (removed) await audit(c, "user.unlink", me.uuid, { provider });
    return c.json({ provider, linked: false, removed, name: PROVIDER_NAMES[provider] });
  },
);
