import { magicPath } from "../../shared/redirects";
import { and, eq, isNull, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { oneTimeTokens, users } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { liveKeys, signToken, TOKEN_TTL_SECONDS } from "../lib/jwt";
import { verifyPassword } from "../lib/password";
import { clientNet, RULES, targetKey } from "../lib/abuse-limits";
import { takeAttempt, type Take } from "../lib/rate-limit";
import { sha256, randomToken } from "../lib/crypto";
import { endAllWebSessions } from "../lib/web-sessions";
import { publicOrigin } from "../lib/links";
import { valid, fields } from "../lib/validate";
import { audit } from "../queues/audit";
import { tellUserRooms } from "../room-service/user-rooms";
import { issueSession, toOwnProfile } from "./accounts";
import { MSG } from "./messages";
import { guestName } from "../../shared/roles";

/** Login, session, public key, guest tokens and magic links. */
export const authRoutes = new Hono<AppEnv>();

/**
 * Failed logins (RULES in lib/abuse-limits.ts) are limited per client network (30 in 15
 * minutes: spraying many accounts), per e-mail from one network (5 in 15 minutes: guessing
 * one account) and per e-mail from anywhere (100 an hour: a botnet's ceiling). The
 * per-e-mail limit is per network so an attacker cannot lock the owner out: the owner's
 * own network keeps its budget, and the owner can always sign in through a reset mail.
 * Only failures count; a success clears the e-mail's failures from that network.
 */
export const LOGIN_LIMITS = {
  perEmail: RULES.loginFailPerTargetNet.limit,
  perIp: RULES.loginFailPerIp.limit,
  perEmailAnywhere: RULES.loginFailPerTarget.limit,
  windowMs: RULES.loginFailPerIp.periodMs,
};
const loginTakes = (email: string, net: string): Take[] => [
  { rule: "loginFailPerIp", key: net },
  { rule: "loginFailPerTargetNet", key: `${targetKey(email)}|${net}` },
  { rule: "loginFailPerTarget", key: targetKey(email) },
];

const loginBody = z.object({
  email: fields.email,
  password: z.string().min(1, "password should not be empty").max(128),
});

/**
 * POST /auth/logout-everywhere: ends every session of the account, this one included
 * (sessionVersion + 1: every token signed before stops working) and closes its sockets in
 * every room now. For a lost phone or a shared computer; the password stays.
 */
authRoutes.post("/auth/logout-everywhere", requireUser, async (c) => {
  const who = caller(c);
  const d = db(c.env);
  await d.batch([
    d
      .update(users)
      .set({ sessionVersion: sql`${users.sessionVersion} + 1`, updatedAt: Date.now() })
      .where(eq(users.id, who.user.id)),
    endAllWebSessions(c.env, who.uuid),
  ]);
  await tellUserRooms(c.env, who.uuid);
  await audit(c, "user.logout-everywhere", who.uuid);
  return c.json({ message: MSG.loggedOutEverywhere });
});

authRoutes.post("/auth/login", valid("json", loginBody), async (c) => {
  const { email, password } = c.req.valid("json");
  const ip = c.req.header("CF-Connecting-IP") ?? "unknown";
  const takes = loginTakes(email, clientNet(ip));
  // The attempt is counted before the password is checked (a failure keeps it), so parallel
  // guesses cannot all slip under the limit.
  const attempt = await takeAttempt(c.env, takes, MSG.tooManyLogins);
  const user = await db(c.env).select().from(users).where(eq(users.email, email)).get();
  // The same work and the same answer whether or not the account exists.
  const ok = await verifyPassword(
    password,
    user?.passwordHash ??
      "pbkdf2-sha256$100000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
  );
  if (!user || !ok || user.deactivated) throw new ApiError(401, MSG.badLogin);
  // Only failures count: a success clears the e-mail's failures from this network and gives
  // the other hits back.
  await attempt.reset([takes[1]]);
  await attempt.release([takes[0], takes[2]]);
  await audit(c, "user.login", user.uuid, { ip });
  return c.json(await issueSession(c.env, user));
});

/** GET /auth/session: who the token belongs to, fresh from the database. */
authRoutes.get("/auth/session", async (c) => {
  const who = caller(c, ["user", "bot", "guest", "ghost"]);
  const base = { tokenType: who.type, roles: who.roles, isLoggedIn: who.type === "user" };
  if (who.user) return c.json({ ...base, user: toOwnProfile(who.user) });
  return c.json({ ...base, user: { uuid: who.uuid, nickname: guestName(who.uuid) } });
});

/**
 * GET /auth/pub-key: the RS256 public key, so other services can verify our tokens, with its
 * `kid` (the tokens' header names it) and every live key: during a rotation the previous one
 * too, so a verifier can pick by kid (lib/jwt.ts).
 */
authRoutes.get("/auth/pub-key", async (c) => {
  const live = await liveKeys(c.env);
  return c.json({
    publicKey: c.env.JWT_PUBLIC_KEY,
    algorithm: "RS256",
    kid: live[0].kid,
    keys: live.map(({ kid, pem }) => ({ kid, publicKey: pem, algorithm: "RS256" })),
  });
});

/** GET /auth/guest: a guest token (listen and chat-read only; guests never DJ). */
authRoutes.get("/auth/guest", async (c) => {
  const uuid = crypto.randomUUID();
  const token = await signToken(c.env, { sub: uuid, type: "guest", roles: [] });
  return c.json({
    token,
    tokenType: "guest",
    expiresAt: new Date(Date.now() + TOKEN_TTL_SECONDS.guest * 1000).toISOString(),
    user: { uuid, nickname: guestName(uuid) },
  });
});

/**
 * Magic links: `{host}/magic-link/{shortLivedToken}/{encoded target}`. The token is 256
 * random bits, kept only as its hash, good for 15 minutes and exchanged once.
 * Target: `subscribe-plan/{plan}` or a path on our site (starting with one "/").
 */
export const MAGIC_LINK_TTL_MS = 15 * 60_000;
const target = z
  .string()
  .max(500)
  // No control characters, raw or %-encoded: browsers drop tabs and newlines from URLs, so
  // "/\t/evil.example" would lead to //evil.example (an open redirect) in any client that
  // decodes the target and does not filter them itself.
  .refine((t) => !/[\u0000-\u001f\u007f]|%(?:[01][0-9a-f]|7f)/i.test(t), {
    message: "target must not contain control characters",
  })
  // Checked as the web page will follow it: decoded, so "/%2F%2Fevil.example" (which the
  // page would decode to "//evil.example") is refused here, not only defused there.
  .refine((t) => magicPath(t) !== null, {
    message: "target must be subscribe-plan/{plan} or a path on this site starting with /",
  });

authRoutes.get(
  "/auth/magic-link",
  requireUser,
  valid("query", z.object({ target: target.default("/") })),
  async (c) => {
    const who = caller(c, ["user"]);
    const token = randomToken();
    const t = c.req.valid("query").target;
    await db(c.env)
      .insert(oneTimeTokens)
      .values({
        tokenHash: await sha256(token),
        kind: "magic-link",
        userId: who.user.id,
        target: t,
        expiresAt: Date.now() + MAGIC_LINK_TTL_MS,
      });
    const url = `${publicOrigin(c)}/magic-link/${token}/${encodeURIComponent(t)}`;
    return c.json({ url, expiresAt: new Date(Date.now() + MAGIC_LINK_TTL_MS).toISOString() });
  },
);

authRoutes.post(
  "/auth/validate-magic-link",
  valid("json", z.object({ token: z.string().min(1, "token should not be empty").max(200) })),
  async (c) => {
    const hash = await sha256(c.req.valid("json").token);
    const d = db(c.env);
    const row = await d
      .select()
      .from(oneTimeTokens)
      .where(and(eq(oneTimeTokens.tokenHash, hash), eq(oneTimeTokens.kind, "magic-link")))
      .get();
    if (!row) throw new ApiError(401, MSG.magicLinkInvalid);
    if (row.usedAt !== null) throw new ApiError(401, MSG.magicLinkUsed);
    if (row.expiresAt < Date.now()) throw new ApiError(401, MSG.magicLinkExpired);
    // Spend it with a conditional update: of two racing exchanges only one sees a change.
    const spent = await d
      .update(oneTimeTokens)
      .set({ usedAt: Date.now() })
      .where(and(eq(oneTimeTokens.tokenHash, hash), isNull(oneTimeTokens.usedAt)))
      .returning({ userId: oneTimeTokens.userId })
      .get();
    if (!spent) throw new ApiError(401, MSG.magicLinkUsed);
    const user = await d.select().from(users).where(eq(users.id, spent.userId)).get();
    if (!user || user.deactivated) throw new ApiError(401, MSG.magicLinkInvalid);
    await audit(c, "user.login", user.uuid, { via: "magic-link" });
    return c.json({ ...(await issueSession(c.env, user)), target: row.target });
  },
);
