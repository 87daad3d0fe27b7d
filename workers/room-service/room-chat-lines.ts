import { Hono } from "hono";
import { z } from "zod";
import { CHAT_MSG } from "../../durable/room/messages";
import { sendChat } from "../../shared/protocol";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { valid } from "../lib/validate";
import { MSG } from "./messages";
import { onObject } from "./room-moderation";
import { roomIdParam, roomOr404 } from "./room-repo";

/**
 * The room chat over HTTP: what a CometChat client did with its chat token against the room's
 * group, served by the Room object (docs/DECISIONS.md, "Rooms: chat without CometChat"). A
 * bot or chat client gets a token scoped to chat (GET /comet-chat/user-token) and reads and
 * posts here without a socket. Only members of the room's chat (POST
 * /roomUserRoles/cometchat/join/{id}, which refuses the banned, the kicked and, in a password
 * room, anyone who did not join it) may read or post; a post pays the same budgets and
 * follows the same rules as a socket's sendChat, and every socket sees it in its next frame.
 */
export const roomChatLineRoutes = new Hono<AppEnv>();

const pageQuery = z.object({
  before: z.string().min(1).max(64, "before must be a message id").optional(),
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(50, "limit must be at most 50")
    .default(50),
});

/** The body is a sendChat without its action: text (≤1000 chars) or an image with media. */
const postBody = sendChat
  .omit({ action: true, clientId: true })
  .extend({ clientId: sendChat.shape.clientId.optional() })
  .strict();

/** The room's refusals as HTTP statuses: rate → 429, a bad line → 400, the rest → 403. */
function refused(error: string): never {
  if (error === CHAT_MSG.rate) throw new ApiError(429, error);
  if (error === CHAT_MSG.invalid || error === CHAT_MSG.notFound) throw new ApiError(400, error);
  throw new ApiError(403, error);
}

/** GET /rooms/{id}/chat?before=&limit=: history before `before` (or the newest), oldest first. */
roomChatLineRoutes.get(
  "/rooms/:id/chat",
  requireUser,
  valid("param", roomIdParam),
  valid("query", pageQuery),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("param").id);
    if (!room.hasChat) throw new ApiError(403, MSG.chatOff);
    const q = c.req.valid("query");
    const r = await onObject(c.env, room, "readChat", (s) =>
      s.readChat({
        userUuid: who.uuid,
        tokenType: who.type,
        roles: who.roles,
        before: q.before ?? null,
        limit: q.limit,
      }),
    );
    if (r.error) refused(r.error);
    return c.json({ roomUuid: room.uuid, messages: r.messages });
  },
);

/** POST /rooms/{id}/chat `{message?, imageUrls?, media?, replyTo?, clientId?}` → 201 the line. */
roomChatLineRoutes.post(
  "/rooms/:id/chat",
  requireUser,
  valid("param", roomIdParam),
  valid("json", postBody),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("param").id);
    if (!room.hasChat) throw new ApiError(403, MSG.chatOff);
    const body = c.req.valid("json");
    const r = await onObject(c.env, room, "postChat", (s) =>
      s.postChat({
        userUuid: who.uuid,
        tokenType: who.type,
        roles: who.roles,
        message: { ...body, clientId: body.clientId ?? crypto.randomUUID() },
      }),
    );
    if (r.error) refused(r.error);
    return c.json({ roomUuid: room.uuid, message: r.message }, 201);
  },
);
