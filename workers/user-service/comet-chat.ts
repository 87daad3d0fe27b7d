import { inArray } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { users } from "../db/schema";
import type { AppEnv } from "../env";
import {
  caller,
  CHAT_SCOPE_PREFIX,
  requireService,
  requireUser,
  ROOM_CHAT_PATH,
} from "../lib/auth";
import { signToken, TOKEN_TTL_SECONDS } from "../lib/jwt";
import { fields, valid } from "../lib/validate";

/**
 * The three CometChat calls the clients know (seed 000, "Tokens"), with their paths kept and
 * served by our own chat (docs/DECISIONS.md, "Chat: our own direct messages"): the room's
 * chat lives in the Room object, direct messages in D1 (social-service direct-messages.ts).
 * - user-token: a token scoped to the direct-message calls (`scope: "chat"`; lib/auth.ts
 *   refuses it on every other call), so a chat client reads and writes its owner's
 *   conversations and can do nothing else with the account.
 * - ghost-token: a `ghost` token, for anyone: it reads public room state (a spectator's
 *   socket, room lists) and every write refuses it (lib/auth.ts `ghostReadOnly`).
 * - create-users: services make sure accounts exist as chat users; ours need no separate
 *   chat account, so it reports which of the uuids are chat users (active accounts).
 */
export const cometChatRoutes = new Hono<AppEnv>();

/** A chat token lives a day; the client asks for another with its account token. */
export const CHAT_TOKEN_TTL_SECONDS = 24 * 3600;

const expiresAt = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

/** GET /comet-chat/user-token → `{ authToken, uid, tokenType, scope, expiresAt, chatApi, roomChatApi }`. */
cometChatRoutes.get("/comet-chat/user-token", requireUser, async (c) => {
  const who = caller(c);
  const authToken = await signToken(
    c.env,
    { sub: who.uuid, type: who.type, roles: [], sv: who.user.sessionVersion, scope: "chat" },
    CHAT_TOKEN_TTL_SECONDS,
  );
  return c.json({
    authToken,
    uid: who.uuid,
    tokenType: who.type,
    scope: "chat",
    expiresAt: expiresAt(CHAT_TOKEN_TTL_SECONDS),
    chatApi: CHAT_SCOPE_PREFIX,
    roomChatApi: ROOM_CHAT_PATH,
  });
});

/** GET /comet-chat/ghost-token → a read-only `ghost` token with a fresh uid (no token needed). */
cometChatRoutes.get("/comet-chat/ghost-token", async (c) => {
  const uid = crypto.randomUUID();
  const authToken = await signToken(c.env, { sub: uid, type: "ghost", roles: [] });
  return c.json({
    authToken,
    token: authToken,
    uid,
    tokenType: "ghost",
    expiresAt: expiresAt(TOKEN_TTL_SECONDS.ghost),
  });
});

const createUsersBody = z.strictObject({
  uids: z
    .array(fields.uuid, { error: "uids must be a list of user uuids" })
    .min(1, "uids must not be empty")
    .max(100, "uids must hold at most 100 users"),
});

/**
 * POST /comet-chat/create-users `{uids}` (service-only) → `{ users, missing }`: the uuids
 * that are chat users now (every active account is one) and those that are not accounts.
 */
cometChatRoutes.post(
  "/comet-chat/create-users",
  requireService,
  valid("json", createUsersBody),
  async (c) => {
    const wanted = [...new Set(c.req.valid("json").uids)];
    const found = await db(c.env)
      .select({ uuid: users.uuid, deactivated: users.deactivated })
      .from(users)
      .where(inArray(users.uuid, wanted))
      .all();
    const active = new Set(found.filter((u) => !u.deactivated).map((u) => u.uuid));
    return c.json({
      users: wanted.filter((u) => active.has(u)),
      missing: wanted.filter((u) => !active.has(u)),
    });
  },
);
