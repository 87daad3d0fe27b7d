import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { ADMIN_ROLES, type TokenType, type UserRole } from "../../shared/roles";
import type { UserRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { accountNow } from "../payment-service/level";
import { activeBan, banMessage } from "./bans";
import { secretsEqual } from "./crypto";
import { ApiError, forbidden, unauthorized } from "./errors";
import { verifyToken, type TokenClaims } from "./jwt";
import { LIB_MSG } from "./messages";
import { cookieClaims } from "./web-sessions";

/** Who is calling: from a verified token, with roles read fresh from D1 for accounts. */
export interface Caller {
  uuid: string;
  type: TokenType;
  roles: UserRole[];
  /** The account row, for user and bot tokens. */
  user?: UserRow;
  /** The web session the call came through (cookie or minted token), for logout. */
  sessionId?: string;
}

const bearer = (c: Context) => {
  const h = c.req.header("Authorization");
  const m = h?.match(/^Bearer\s+(\S+)$/i);
  return m?.[1];
};

/**
 * Reads the bearer token if there is one. A token that is present but forged, expired,
 * revoked (password changed) or whose account is gone or deactivated is a 401 at once,
 * even on public routes, so a client learns to drop it (spec: "stored tokens are cleared").
 * Roles come from the account row, not the token, so a removed role takes effect at once.
 */
export const authenticate: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearer(c);
  if (token) {
    const claims = await verifyToken(c.env, token);
    const who = claims ? await currentCaller(c.env, claims) : null;
    if (!who) throw unauthorized(LIB_MSG.invalidToken);
    if (claims?.scope === "chat" && !chatScopeOpens(c.req.path))
      throw forbidden(LIB_MSG.chatTokenOnlyChat);
    c.set("caller", who);
  } else {
    // No bearer: a browser's own call from our pages may stand on its session cookie
    // (lib/web-sessions.ts). From another origin, or with a cookie that stands for nobody now,
    // the call is anonymous (a route that needs an account answers 401).
    const claims = await cookieClaims(c.env, c.req.raw);
    const who = claims ? await currentCaller(c.env, claims) : null;
    if (who) c.set("caller", who);
  }
  await next();
});

/** The only calls a chat-scoped token (GET /comet-chat/user-token) opens: direct messages, */
export const CHAT_SCOPE_PREFIX = "/api/social-service/direct-messages";
/** and a room's chat (room-service room-chat-lines.ts), where it reads and posts as a socket would. */
export const ROOM_CHAT_PATH = "/api/room-service/rooms/{roomId}/chat";
const ROOM_CHAT = /^\/api\/room-service\/rooms\/[^/]+\/chat$/;
const chatScopeOpens = (path: string) =>
  path === CHAT_SCOPE_PREFIX || path.startsWith(`${CHAT_SCOPE_PREFIX}/`) || ROOM_CHAT.test(path);

/**
 * The POSTs a ghost may make, because they only read: entering a public room as a spectator
 * and a live-audio listener's token. (POST /rooms/list is not one: it finds private rooms.)
 */
const GHOST_READS = [
  /^\/api\/room-service\/rooms\/[^/]+\/join$/,
  /^\/api\/user-service\/agora\/token$/,
];
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A ghost reads public state only (issue 16): every write it attempts is a 403, here, once
 * for every service (lib/service.ts), so no route can forget it. Runs after `authenticate`.
 */
export const ghostReadOnly: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(
  async (c, next) => {
    if (
      c.get("caller")?.type === "ghost" &&
      !READ_METHODS.has(c.req.method) &&
      !GHOST_READS.some((r) => r.test(c.req.path))
    )
      throw forbidden(LIB_MSG.ghostReadOnly);
    await next();
  },
);

/** Whether an account-backed token (user, bot) is read from D1; guests and ghosts have no row. */
export const hasAccount = (claims: TokenClaims) => claims.type === "user" || claims.type === "bot";

/**
 * The caller a verified token stands for now, or null when it no longer stands for anyone:
 * the account is gone or deactivated, or its sessions were ended after the token was signed
 * (sessionVersion). `user` is the account row the caller read (REST and the room gateway
 * both use this one rule; the gateway batches the read with its room lookup).
 *
 * A banned account (lib/bans.ts) is a 403 naming the ban and its end, thrown here, before the
 * session check: a ban also ends the sessions, and the person should read why, not "sign in
 * again". Checked before the sessionVersion so every token of theirs gets the same answer.
 */
export function callerFrom(claims: TokenClaims, user: UserRow | undefined): Caller | null {
  if (!hasAccount(claims)) return { uuid: claims.sub, type: claims.type, roles: claims.roles };
  if (!user || user.deactivated) return null;
  const ban = activeBan(user);
  if (ban) throw forbidden(banMessage(ban));
  if ((claims.sv ?? 0) !== user.sessionVersion) return null;
  return { uuid: user.uuid, type: claims.type, roles: user.roles, user, sessionId: claims.sid };
}

/**
 * callerFrom with the account row read here. Its `subscriptionLevel` is the one the
 * subscriptions grant now (a subscription past its endDate grants none, event or not).
 */
export async function currentCaller(env: Env, claims: TokenClaims): Promise<Caller | null> {
  const user = hasAccount(claims) ? await accountNow(env, claims.sub) : undefined;
  return callerFrom(claims, user);
}

/** The caller, or 401. `types` narrows which token kinds may call (403 for the others). */
export function caller(
  c: Context<AppEnv>,
  types: readonly TokenType[] = ["user", "bot"],
): Caller & { user: UserRow } {
  const who = c.get("caller");
  if (!who) throw unauthorized();
  if (!types.includes(who.type))
    throw forbidden(who.type === "guest" ? LIB_MSG.guestsCannot : "Forbidden resource");
  return who as Caller & { user: UserRow };
}

/** Route guard: a signed-in account (user or bot token). */
export const requireUser = createMiddleware<AppEnv>(async (c, next) => {
  caller(c);
  await next();
});

/** Route guard: any valid token, guests included. */
export const requireAnyToken = createMiddleware<AppEnv>(async (c, next) => {
  caller(c, ["user", "bot", "guest", "ghost"]);
  await next();
});

/** Route guard: an account holding one of `roles` (401 without a token, 403 without the role). */
export function requireRole(...roles: UserRole[]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const who = caller(c);
    if (!who.roles.some((r) => roles.includes(r))) throw forbidden();
    await next();
  });
}

/** Route guard for admin-panel calls. */
export const requireAdmin = requireRole(...ADMIN_ROLES);

/**
 * Route guard for service-to-service calls (`/service/...`): the shared `X-Service-Key`
 * (SERVICE_KEY, used for nothing else: it is handed to other services, so it signs
 * nothing of ours), or an admin's token. Without either: 401; a plain user's token: 403.
 */
export const requireService = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("X-Service-Key");
  if (key !== undefined) {
    if (!c.env.SERVICE_KEY || !(await secretsEqual(key, c.env.SERVICE_KEY)))
      throw new ApiError(401, LIB_MSG.invalidServiceKey);
    return next();
  }
  const who = caller(c);
  if (!who.roles.some((r) => ADMIN_ROLES.includes(r))) throw forbidden();
  await next();
});
