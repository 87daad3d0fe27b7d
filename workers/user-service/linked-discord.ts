import { and, eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import type { Identity, OAuthClient, TokenAnswer } from "../adapters/oauth";
import { db } from "../db/client";
import { clearDiscordOnlyWorn } from "../merch-service/avatars/avatar-rules";
import { tellUserRooms } from "../room-service/user-rooms";
import { linkedAccounts, userEmails, users, type UserRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { clientNet } from "../lib/abuse-limits";
import { caller, requireUser } from "../lib/auth";
import { emailContactHashOrNull } from "../lib/contact-hash";
import { ApiError } from "../lib/errors";
import { takeAttempt } from "../lib/rate-limit";
import { cleanText, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { defaultNickname, issueSession } from "./accounts";
import { codeBody } from "./linked-access";
import { LINK_MSG } from "./linked-messages";
import {
  exchangeCode,
  identify,
  requireClient,
  requireRedirect,
  saveLink,
  spendState,
} from "./linked-oauth";
import { MSG } from "./messages";
import { defaultAvatarFor } from "../merch-service/avatars/default-avatar";

/**
 * Discord (issue 16): sign in or sign up with Discord, link Discord to an account, and the
 * Embedded App SDK's code exchange. A Discord link is recorded as a VERIFIED user e-mail of
 * type `discord` (the only way one is made), which is what unlocks Discord-only avatars
 * (merch-service/avatars/avatar-rules.ts).
 */
export const discordRoutes = new Hono<AppEnv>();

/**
 * The address the `discord` e-mail row records: Discord's own when Discord verified it,
 * else a placeholder under `.invalid` (RFC 2606: it never routes, so nothing is ever mailed
 * to an address nobody proved).
 */
const discordAddress = (who: Identity) =>
  who.email && who.emailVerified
    ? who.email.toLowerCase().slice(0, 254)
    : `${who.id}@discord.invalid`;

/** Makes the account's `discord` e-mail row say `who` (one per account). */
async function recordDiscordEmail(env: Env, userId: number, who: Identity) {
  const email = discordAddress(who);
  const d = db(env);
  await d.batch([
    d.delete(userEmails).where(and(eq(userEmails.userId, userId), eq(userEmails.type, "discord"))),
    d.insert(userEmails).values({
      userId,
      email,
      type: "discord",
      status: "VERIFIED",
      verifiedAt: Date.now(),
      contactHash: email.endsWith(".invalid") ? null : await emailContactHashOrNull(env, email),
    }),
  ]);
}

const secretsOf = (t: TokenAnswer) => ({
  refresh: t.refreshToken,
  access: { token: t.accessToken, expiresAt: Date.now() + t.expiresIn * 1000 },
});

/**
 * The account `who` signs in as: the one their Discord is linked to, or a new one. A new
 * account has no login e-mail and no password (it signs in with Discord); if Discord's
 * verified address already belongs to an account, that is a 409, never a silent merge
 * (whoever controls a Discord account would otherwise take over the Hangout one).
 */
async function discordAccount(
  env: Env,
  client: OAuthClient,
  who: Identity,
  tokens: TokenAnswer,
): Promise<{ user: UserRow; created: boolean }> {
  const d = db(env);
  const linked = await d
    .select({ user: users })
    .from(linkedAccounts)
    .innerJoin(users, eq(users.id, linkedAccounts.userId))
    .where(
      and(
        eq(linkedAccounts.provider, "discord"),
        eq(linkedAccounts.variant, "web"),
        eq(linkedAccounts.externalId, who.id),
      ),
    )
    .get();
  if (linked) {
    await saveLink(env, linked.user.id, client, who, secretsOf(tokens));
    return { user: linked.user, created: false };
  }
  if (who.email && who.emailVerified) {
    const taken = await d
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, who.email.toLowerCase()))
      .get();
    if (taken) throw new ApiError(409, LINK_MSG.discordEmailTaken);
  }
  const name = (who.displayName ?? "").trim();
  const uuid = crypto.randomUUID();
  const user = await d
    .insert(users)
    .values({
      uuid,
      avatarId: await defaultAvatarFor(env, uuid),
      email: null,
      nickname:
        name.length >= 2 && cleanText(name) ? name.slice(0, 30) : defaultNickname(who.email),
      roles: ["user"],
    })
    .returning()
    .get();
  try {
    await saveLink(env, user.id, client, who, secretsOf(tokens));
  } catch (err) {
    // Two sign-ins with one new Discord account raced: the other made the account. Ours
    // goes, and this sign-in uses theirs.
    await d.delete(users).where(eq(users.id, user.id));
    if (err instanceof ApiError && err.status === 409)
      return discordAccount(env, client, who, tokens);
    throw err;
  }
  await recordDiscordEmail(env, user.id, who);
  return { user, created: true };
}

async function signIn(c: Context<AppEnv>, client: OAuthClient, tokens: TokenAnswer) {
  const who = await identify(c.env, client, tokens);
  const { user, created } = await discordAccount(c.env, client, who, tokens);
  if (user.deactivated) throw new ApiError(403, MSG.alreadyDeactivated);
  await audit(c, created ? "user.sign-up" : "user.login", user.uuid, { via: "discord" });
  return { session: await issueSession(c.env, user), created };
}

const limitSignIn = (c: Context<AppEnv>) =>
  takeAttempt(
    c.env,
    [{ rule: "oauthSignInPerIp", key: clientNet(c.req.header("CF-Connecting-IP")) }],
    LINK_MSG.tooManyLinks,
  );

/**
 * POST /auth/discord-auth `{ code, state }`: sign in (or sign up) with Discord, after
 * GET /auth/discord/authorize-url?intent=sign-in. Answers a session, as login does.
 */
discordRoutes.post("/auth/discord-auth", valid("json", codeBody), async (c) => {
  const client = requireClient(c.env, "discord");
  await limitSignIn(c);
  const body = c.req.valid("json");
  await spendState(c.env, client, body.state, "sign-in", null);
  const tokens = await exchangeCode(client, body.code, requireRedirect(c, client), null);
  const { session, created } = await signIn(c, client, tokens);
  return c.json({ ...session, created }, created ? 201 : 200);
});

/**
 * POST /auth/exchange-code `{ code }`: the Discord Embedded App SDK's token exchange. In an
 * Activity frame the SDK's `authorize` returns the code to our page directly (no redirect,
 * so there is no state to check and no redirect_uri to send, as Discord's Activities guide
 * does it). The answer carries Discord's access token for the SDK's `authenticate` (never
 * the refresh token) and our session.
 */
discordRoutes.post(
  "/auth/exchange-code",
  valid("json", codeBody.pick({ code: true })),
  async (c) => {
    const client = requireClient(c.env, "discord");
    await limitSignIn(c);
    const tokens = await exchangeCode(client, c.req.valid("json").code, null, null);
    const { session, created } = await signIn(c, client, tokens);
    return c.json({
      access_token: tokens.accessToken,
      token_type: "Bearer",
      expires_in: tokens.expiresIn,
      scope: tokens.scope,
      ...session,
      created,
    });
  },
);

/** POST /auth/link-discord `{ code, state }`: links Discord to the signed-in account. */
discordRoutes.post("/auth/link-discord", requireUser, valid("json", codeBody), async (c) => {
  const me = caller(c, ["user"]);
  const client = requireClient(c.env, "discord");
  const body = c.req.valid("json");
  await spendState(c.env, client, body.state, "link", me.user.id);
  const tokens = await exchangeCode(client, body.code, requireRedirect(c, client), null);
  const who = await identify(c.env, client, tokens);
  const row = await saveLink(c.env, me.user.id, client, who, secretsOf(tokens));
  await recordDiscordEmail(c.env, me.user.id, who);
  await audit(c, "user.link", me.uuid, { provider: "discord" });
  return c.json({ provider: "discord", linked: true, displayName: row.displayName });
});

/**
 * Unlinking Discord takes its `discord` e-mail with it (Discord-only avatars lock again), and
 * a Discord-only avatar the account wears comes off in the same batch (nobody is left
 * wearing what they lost, even if the request dies right after).
 * An account that signs in only with Discord (no login e-mail or no password) cannot cut
 * its own way in: 409 until it sets both.
 */
export async function unlinkDiscordGuard(env: Env, user: UserRow) {
  if (!user.email || !user.passwordHash) throw new ApiError(409, LINK_MSG.discordOnlyWayIn);
  const d = db(env);
  const [, cleared] = await d.batch([
    d.delete(userEmails).where(and(eq(userEmails.userId, user.id), eq(userEmails.type, "discord"))),
    clearDiscordOnlyWorn(env, user.id),
  ]);
  // A Discord-only avatar came off: the rooms they are in draw their default one now.
  if (cleared.meta.changes) await tellUserRooms(env, user.uuid);
}
