import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { recentRooms, type RoomRow } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireAdmin, requireAnyToken, requireUser } from "../lib/auth";
import { ApiError, badRequest, forbidden } from "../lib/errors";
import { verifyPassword } from "../lib/password";
import { valid } from "../lib/validate";
import { pushSettings, roomSettingsOf, toRoomDto } from "./room-dto";
import {
  budgetRoomEdit,
  isAdmin,
  requireRoomAccess,
  roomFields as f,
  roomIdParam,
  roomOr404,
  updateRoom,
} from "./room-repo";

import { issueTicket } from "../lib/room-ticket";
import { MSG } from "./messages";

/**
 * What changes a live room at once: the four switches and promotion, joining, pinned
 * messages and the external link. Each write lands in D1 first, then the object gets the
 * whole settings (roomSettingsOf), so it never holds a half-applied change.
 */
export const roomLiveRoutes = new Hono<AppEnv>();

const strict = <T extends z.ZodRawShape>(shape: T) =>
  z.strictObject(shape, {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `Unknown field(s): ${i.keys.join(", ")}`
        : "body must be a JSON object",
  });

/** One switch: `PATCH /rooms/<path>/{id}/infrastructure` with a one-field body. */
function liveSwitch(
  path: string,
  key: "isLive" | "liveAudio" | "djType" | "numberOfDjs" | "promoted",
  adminOnly: boolean,
) {
  const body: z.ZodType<Record<string, unknown>> = strict({ [key]: f[key] });
  // Promotion is the platform's call: the admin guard answers 403 before anything is read.
  const guard = adminOnly ? requireAdmin : requireUser;
  roomLiveRoutes.patch(
    `/rooms/${path}/:id/infrastructure`,
    requireUser,
    guard,
    valid("param", roomIdParam),
    valid("json", body),
    async (c) => {
      const room = await roomOr404(c.env, c.req.valid("param").id);
      if (!adminOnly) await requireRoomAccess(c.env, room, caller(c), ["coOwner"], MSG.editRefused);
      await budgetRoomEdit(c.env, room.uuid);
      const row = await updateRoom(c.env, room, c.req.valid("json"));
      await pushSettings(c.env, row);
      return c.json(toRoomDto(row));
    },
  );
}
liveSwitch("live-state", "isLive", false);
liveSwitch("live-audio", "liveAudio", false);
liveSwitch("dj-type", "djType", false);
liveSwitch("dj-seats", "numberOfDjs", false);
liveSwitch("promote", "promoted", true);

const joinBody = z.object({
  password: z
    .string({ error: "password must be a string" })
    .max(128, "password must be at most 128 characters")
    .optional(),
  guestPassword: z
    .string({ error: "guestPassword must be a string" })
    .max(128, "guestPassword must be at most 128 characters")
    .optional(),
});

/**
 * Whether the caller may enter. The owner and admins always may. A room password binds
 * everyone else; a guest password binds guests (who may also use the room password).
 * Bans are the object's to enforce, since room roles live there.
 */
async function checkEntry(
  room: RoomRow,
  who: { uuid: string; type: string; roles: string[] },
  body: z.output<typeof joinBody>,
) {
  if (room.ownerUuid === who.uuid || isAdmin(who as never)) return;
  // A ghost watches public rooms only (issue 16): no password admits one.
  if (who.type === "ghost" && (room.passwordHash !== null || room.guestPasswordHash !== null))
    throw forbidden(MSG.ghostPublicOnly);
  const passwordOk =
    room.passwordHash !== null && body.password
      ? await verifyPassword(body.password, room.passwordHash)
      : false;
  if (room.passwordHash !== null && !passwordOk)
    throw forbidden(body.password ? MSG.joinPasswordWrong : MSG.joinPasswordRequired);
  if (who.type === "guest" && room.guestPasswordHash !== null && !passwordOk) {
    if (!body.guestPassword || !(await verifyPassword(body.guestPassword, room.guestPasswordHash)))
      throw forbidden(MSG.joinGuestPasswordRequired);
  }
}

/**
 * POST /rooms/{id}/join → `{ roomUuid, slug, partyPath, settings }`, what a client needs
 * to open the socket. The settings are pushed to the object first, so a room that was never
 * opened, or missed a push, is current before anyone connects. A signed-in visit is
 * recorded in the recent rooms.
 */
roomLiveRoutes.post(
  "/rooms/:id/join",
  requireAnyToken,
  valid("param", roomIdParam),
  valid("json", joinBody),
  async (c) => {
    const who = caller(c, ["user", "bot", "guest", "ghost"]);
    const room = await roomOr404(c.env, c.req.valid("param").id);
    await checkEntry(room, who, c.req.valid("json"));
    await pushSettings(c.env, room);
    if (who.type === "user") {
      await db(c.env)
        .insert(recentRooms)
        .values({ userUuid: who.uuid, roomUuid: room.uuid, visitedAt: Date.now() })
        .onConflictDoUpdate({
          target: [recentRooms.userUuid, recentRooms.roomUuid],
          set: { visitedAt: Date.now() },
        })
        .run();
    }
    // The websocket shows this ticket, so a password cannot be skipped by connecting directly.
    const ticket = await issueTicket(c.env, room.uuid, who.uuid);
    return c.json({
      roomUuid: room.uuid,
      slug: room.slug,
      partyPath: `/parties/room/${room.uuid}`,
      ticket,
      settings: roomSettingsOf(room),
    });
  },
);

export const MAX_PINNED = 5;
const pinBody = z.object({
  message: z
    .string({ error: "message must be a string" })
    .trim()
    .min(1, "message must not be empty")
    .max(300, "message must be at most 300 characters"),
});

/** POST /rooms/{id}/pinned-messages: owner, co-owner, moderator or admin; at most 5 at a time. */
roomLiveRoutes.post(
  "/rooms/:id/pinned-messages",
  requireUser,
  valid("param", roomIdParam),
  valid("json", pinBody),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("param").id);
    await requireRoomAccess(c.env, room, who, ["coOwner", "moderator"], MSG.pinRefused);
    if (room.pinnedMessages.length >= MAX_PINNED) throw badRequest(MSG.pinLimit(MAX_PINNED));
    const pin = {
      id: crypto.randomUUID(),
      message: c.req.valid("json").message,
      pinnedBy: who.uuid,
      pinnedAt: Date.now(),
    };
    const row = await updateRoom(c.env, room, { pinnedMessages: [...room.pinnedMessages, pin] });
    await pushSettings(c.env, row);
    return c.json(toRoomDto(row), 201);
  },
);

/** DELETE /rooms/{id}/pinned-messages/{pinId}: unpin (ours; the spec names no unpin call). */
roomLiveRoutes.delete(
  "/rooms/:id/pinned-messages/:pinId",
  requireUser,
  valid("param", roomIdParam.extend({ pinId: z.uuid({ error: "pinId must be a UUID" }) })),
  async (c) => {
    const { id, pinId } = c.req.valid("param");
    const room = await roomOr404(c.env, id);
    await requireRoomAccess(c.env, room, caller(c), ["coOwner", "moderator"], MSG.pinRefused);
    if (!room.pinnedMessages.some((p) => p.id === pinId)) throw new ApiError(404, MSG.pinNotFound);
    const row = await updateRoom(c.env, room, {
      pinnedMessages: room.pinnedMessages.filter((p) => p.id !== pinId),
    });
    await pushSettings(c.env, row);
    return c.json(toRoomDto(row));
  },
);

// Only https links: an http or javascript: URL on a room page is a downgrade or an attack.
const urlBody = z.object({
  url: z
    .url({ protocol: /^https$/, hostname: z.regexes.domain, error: "url must be an https URL" })
    .max(2048, "url must be at most 2048 characters")
    .nullable(),
});

/** POST /rooms/{id}/externalUrl `{url}`: the room's outside link (null removes it); owner, co-owner or admin. */
roomLiveRoutes.post(
  "/rooms/:id/externalUrl",
  requireUser,
  valid("param", roomIdParam),
  valid("json", urlBody),
  async (c) => {
    const room = await roomOr404(c.env, c.req.valid("param").id);
    await requireRoomAccess(c.env, room, caller(c), ["coOwner"], MSG.editRefused);
    // Stored as the URL parser normalised it, so what is shown is what a browser would open.
    const url = c.req.valid("json").url;
    return c.json(
      toRoomDto(
        await updateRoom(c.env, room, { externalUrl: url === null ? null : new URL(url).href }),
      ),
    );
  },
);
