import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv, Env } from "../env";
import { AGORA_ROLES, buildAccessToken2, rtcService, type AgoraRole } from "../lib/agora-token";
import { caller, requireAnyToken } from "../lib/auth";
import { ApiError, forbidden } from "../lib/errors";
import { ticketAdmits } from "../lib/room-ticket";
import { valid } from "../lib/validate";
import { MSG as ROOM_MSG } from "../room-service/messages";
import { activeRoles, liveState, rolesOf } from "../room-service/room-moderation";
import { isAdmin, roomOr404 } from "../room-service/room-repo";
import { MSG } from "./messages";

/**
 * POST /agora/token: the AccessToken2 a client needs to hear (or, for the room's DJs and
 * owner while the room's `liveAudio` is on, to speak in) the room's live audio channel
 * (seed 000: Agora role PUBLISHER, SUBSCRIBER). The channel is the room's uuid and the
 * Agora account is the caller's uuid, so a token opens exactly one room for exactly one
 * person. Who may enter the room decides who gets a token, by the room-state rule: a
 * password room needs the join ticket (POST /rooms/{id}/join), a banned user gets none.
 * Without AGORA_APP_ID and AGORA_APP_CERTIFICATE the call is 503: no token could be valid.
 */
export const agoraRoutes = new Hono<AppEnv>();

/** How long a token (and each of its privileges) lasts; clients renew before it ends. */
export const AGORA_TOKEN_TTL_SECONDS = 3600;

const agoraBody = z.strictObject(
  {
    roomId: z.string().trim().min(1, "roomId is required").max(64, "roomId is too long"),
    /** Ask for a role; omitted, the caller gets the most it may hold. */
    role: z.enum(AGORA_ROLES, { error: "role must be PUBLISHER or SUBSCRIBER" }).optional(),
    ticket: z.string().max(512, "ticket is too long").optional(),
  },
  {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `Unknown field(s): ${i.keys.join(", ")}`
        : i.input === undefined
          ? "roomId is required"
          : "body must be a JSON object",
  },
);

export const agoraConfig = (env: Env) =>
  env.AGORA_APP_ID && env.AGORA_APP_CERTIFICATE
    ? { appId: env.AGORA_APP_ID, appCertificate: env.AGORA_APP_CERTIFICATE }
    : null;

agoraRoutes.post("/agora/token", requireAnyToken, valid("json", agoraBody), async (c) => {
  const who = caller(c, ["user", "bot", "guest", "ghost"]);
  const config = agoraConfig(c.env);
  if (!config) throw new ApiError(503, MSG.agoraOff);
  const body = c.req.valid("json");
  const room = await roomOr404(c.env, body.roomId);
  const privileged = room.ownerUuid === who.uuid || isAdmin(who);
  if (!privileged && (room.passwordHash !== null || room.guestPasswordHash !== null)) {
    if (who.type === "guest") throw forbidden(ROOM_MSG.roomStateGuest);
    if (who.type === "ghost") throw forbidden(ROOM_MSG.ghostPublicOnly);
    if (!(await ticketAdmits(c.env, body.ticket ?? null, room.uuid, who.uuid)))
      throw forbidden(ROOM_MSG.joinPasswordRequired);
  }
  const state = await liveState(c.env, room);
  const held = rolesOf(activeRoles(state), who.uuid);
  if (!privileged && held.has("banned")) throw forbidden(ROOM_MSG.chatBanned);
  // The room's DJs: while live audio is on the booth is closed (durable/room/actions.ts), so
  // they are the holders of the room's `dj` role (granted by the owner), plus anyone still
  // on the stage; the owner and co-owners speak too. Only accounts speak: a guest or ghost
  // listens whatever the room shows.
  const speaks =
    room.liveAudio &&
    (who.type === "user" || who.type === "bot") &&
    (room.ownerUuid === who.uuid ||
      held.has("coOwner") ||
      held.has("dj") ||
      (state.djs ?? []).some((d) => d.uuid === who.uuid));
  if (body.role === "PUBLISHER" && !speaks) throw forbidden(MSG.agoraNotPublisher);
  const role: AgoraRole = body.role ?? (speaks ? "PUBLISHER" : "SUBSCRIBER");
  const issueTs = Math.floor(Date.now() / 1000);
  const token = await buildAccessToken2({
    ...config,
    issueTs,
    expire: AGORA_TOKEN_TTL_SECONDS,
    services: [rtcService(room.uuid, who.uuid, role, AGORA_TOKEN_TTL_SECONDS)],
  });
  return c.json({
    token,
    appId: config.appId,
    channelName: room.uuid,
    uid: who.uuid,
    role,
    expiresIn: AGORA_TOKEN_TTL_SECONDS,
    expiresAt: new Date((issueTs + AGORA_TOKEN_TTL_SECONDS) * 1000).toISOString(),
  });
});
