import { Hono } from "hono";
import { z } from "zod";
import { ROOM_ROLES, type RoomRoleName } from "../../shared/rooms";
import type { AppEnv } from "../env";
import { caller, requireAnyToken, requireUser } from "../lib/auth";
import { ApiError, badRequest, conflict, forbidden, notFound } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { audit } from "../queues/audit";
import { pushSettings, roomStub, toRoomDto, withTimeout } from "./room-dto";
import {
  accountExists,
  activeRoles,
  isMissingMethod,
  liveState,
  moderationRefusal,
  onObject,
  previousRole,
  roomRef,
  rolesOf,
  toUserRoleDto,
} from "./room-moderation";
import { findRoom, isAdmin, roomOr404, updateRoom } from "./room-repo";
import { MSG } from "./messages";

/**
 * /roomUserRoles (seed 001 "Room service: moderation"). Roles live in the Room object
 * (DECISIONS.md, Rooms): reads come from its state, writes go through setRole/removeRole,
 * so a grant bites at once; D1 holds only the owner. Every grant and removal is audited
 * as a Moderation action (topic "room.moderation").
 */
export const roomRoleRoutes = new Hono<AppEnv>();

const KICK_MS = 5 * 60_000;
const MAX_EXPIRY_MS = 10 * 365 * 24 * 3600_000;

const roomParam = z.object({ roomId: roomRef });
const roleField = z
  .enum(ROOM_ROLES, { error: `role must be one of ${ROOM_ROLES.join(", ")}` })
  .refine((r) => r !== "owner", MSG.changeOwnerOnly);
// Epoch ms or an ISO date; null (or absent) means no expiry. A past time would grant nothing.
const expiryField = z
  .union(
    [
      z.number().int("expirationTime must be whole epoch milliseconds"),
      z.iso.datetime({ offset: true }).transform((s) => Date.parse(s)),
    ],
    {
      error: "expirationTime must be epoch milliseconds or an ISO date",
    },
  )
  .refine((t) => t > Date.now(), "expirationTime must be in the future")
  .refine((t) => t < Date.now() + MAX_EXPIRY_MS, "expirationTime must be within 10 years")
  .nullable();
const grantBody = z.object({
  userUuid: fields.uuid,
  role: roleField,
  expirationTime: expiryField.optional(),
});
const removeBody = z.object({ userUuid: fields.uuid, role: roleField });

type Action = "grantRole" | "removeRole" | "kickUser" | "banUser" | "temporaryBan";
const actionOf = (role: RoomRoleName, expirationTime: number | null): Action =>
  role === "banned"
    ? expirationTime === null
      ? "banUser"
      : "temporaryBan"
    : role === "kicked"
      ? "kickUser"
      : "grantRole";

/**
 * POST /roomUserRoles/kick-user-from-room `{roomId, userUuid, reason?}`: who may grant
 * "kicked" may kick. The object's kickUser (closes the user's sockets with the reason) is
 * used; an object without it (an older build) falls back to granting "kicked" for 5 minutes,
 * which keeps the user out but closes no open socket (`liveKick: false` says so).
 */
roomRoleRoutes.post(
  "/roomUserRoles/kick-user-from-room",
  requireUser,
  valid(
    "json",
    z.object({
      roomId: roomRef,
      userUuid: fields.uuid,
      reason: z
        .string({ error: "reason must be a string" })
        .trim()
        .max(300, "reason must be at most 300 characters")
        .optional(),
    }),
  ),
  async (c) => {
    const who = caller(c);
    const { roomId, userUuid, reason } = c.req.valid("json");
    const room = await roomOr404(c.env, roomId);
    const state = await liveState(c.env, room);
    const roles = activeRoles(state);
    // A guest has no account but can be present: kicking what is in the room is allowed.
    const present = [
      ...(state.allUsers ?? []),
      ...(state.audienceUsers ?? []),
      ...(state.djs ?? []),
    ].some((u) => u.uuid === userUuid);
    if (!present && !(await accountExists(c.env, userUuid))) throw notFound(MSG.userNotFound);
    // The object refuses a self-kick too; saying so here keeps the answer a 403, not a silent no-op.
    if (userUuid === who.uuid) throw forbidden(MSG.kickSelf);
    const refusal = moderationRefusal(room, roles, who, userUuid, "kicked", true);
    if (refusal) throw forbidden(refusal);
    const stub = await roomStub(c.env, room.uuid).catch(() => {
      throw new ApiError(503, MSG.objectDown);
    });
    let liveKick = true;
    let wasPresent = present;
    let expirationTime: number | null = null;
    try {
      // kickUser closes the user's sockets with the reason and grants "kicked" for 5 minutes itself.
      wasPresent =
        (await withTimeout(
          stub.kickUser(userUuid, reason ?? MSG.kickedByModerator, who.uuid),
          5000,
        )) !== false;
    } catch (err) {
      if (!isMissingMethod(err)) {
        console.error(`room ${room.uuid}: kickUser failed`, err);
        throw new ApiError(503, MSG.objectDown);
      }
      liveKick = false;
      expirationTime = Date.now() + KICK_MS;
      try {
        await withTimeout(stub.setRole(userUuid, "kicked", expirationTime), 5000);
      } catch (err2) {
        // Neither call exists: this object cannot kick at all, which is ours to fix, not the client's.
        if (isMissingMethod(err2)) throw new ApiError(501, MSG.kickUnsupported);
        console.error(`room ${room.uuid}: setRole(kicked) failed`, err2);
        throw new ApiError(503, MSG.objectDown);
      }
    }
    await audit(c, "room.moderation", who.uuid, {
      actionType: "kickUser",
      previousRole: previousRole(rolesOf(roles, userUuid), room.ownerUuid === userUuid),
      role: "kicked",
      roomUuid: room.uuid,
      userUuid,
      reason: reason ?? null,
    });
    return c.json({
      roomUuid: room.uuid,
      userUuid,
      kicked: true,
      liveKick,
      wasPresent,
      expirationTime: expirationTime === null ? null : new Date(expirationTime).toISOString(),
    });
  },
);

/**
 * PUT /roomUserRoles/change-owner/{roomId} `{newOwnerUuid}`: the owner or an admin. D1 is
 * the owner's truth: the row changes, then the object gets the settings (which carry
 * ownerUuid) and, when it has one, changeOwner for anything more it wants to do.
 */
roomRoleRoutes.put(
  "/roomUserRoles/change-owner/:roomId",
  requireUser,
  valid("param", roomParam),
  valid("json", z.object({ newOwnerUuid: fields.uuid })),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("param").roomId);
    if (room.ownerUuid !== who.uuid && !isAdmin(who)) throw forbidden(MSG.changeOwnerRefused);
    const { newOwnerUuid } = c.req.valid("json");
    if (newOwnerUuid === room.ownerUuid) throw badRequest(MSG.alreadyOwner);
    if (!(await accountExists(c.env, newOwnerUuid))) throw notFound(MSG.userNotFound);
    const held = rolesOf(activeRoles(await liveState(c.env, room)), newOwnerUuid);
    if (held.has("banned")) throw conflict(MSG.newOwnerBanned);
    const row = await updateRoom(c.env, room, { ownerUuid: newOwnerUuid });
    const pushed = await pushSettings(c.env, row);
    try {
      await withTimeout((await roomStub(c.env, room.uuid)).changeOwner(newOwnerUuid), 5000);
    } catch (err) {
      // Not there yet, or down: applySettings already carries the owner, and join pushes again.
      if (!isMissingMethod(err)) console.error(`room ${room.uuid}: changeOwner failed`, err);
    }
    await audit(c, "room.moderation", who.uuid, {
      actionType: "grantRole",
      previousRole: previousRole(held, false),
      role: "owner",
      roomUuid: room.uuid,
      userUuid: newOwnerUuid,
      previousOwnerUuid: room.ownerUuid,
    });
    return c.json({ ...toRoomDto(row), liveUpdated: pushed });
  },
);

/**
 * POST /roomUserRoles/no-dancefloor-users `{roomIds}` → per room, the present users who are
 * not DJs (guests left out, as in every user list). A room whose object cannot answer is
 * `live: false` with no users rather than failing the whole list; unknown rooms are left out.
 */
roomRoleRoutes.post(
  "/roomUserRoles/no-dancefloor-users",
  requireAnyToken,
  valid(
    "json",
    z.object({
      roomIds: z
        .array(roomRef, { error: "roomIds must be a list" })
        .min(1, "roomIds must not be empty")
        .max(50, "roomIds must hold at most 50 rooms"),
    }),
  ),
  async (c) => {
    const found = (
      await Promise.all(c.req.valid("json").roomIds.map((id) => findRoom(c.env, id)))
    ).filter((r) => r !== undefined);
    const unique = [...new Map(found.map((r) => [r.id, r])).values()];
    const out = await Promise.all(
      unique.map(async (room) => {
        try {
          const state = await liveState(c.env, room);
          const userUuids = (state.audienceUsers ?? [])
            .filter((u) => u.tokenRole !== "guest")
            .map((u) => u.uuid);
          return { roomId: room.id, roomUuid: room.uuid, slug: room.slug, userUuids, live: true };
        } catch {
          return {
            roomId: room.id,
            roomUuid: room.uuid,
            slug: room.slug,
            userUuids: [] as string[],
            live: false,
          };
        }
      }),
    );
    return c.json(out);
  },
);

/** GET /roomUserRoles/{roomId}: the roles in force, as UserRoles; any signed-in or guest token (clients show moderators and bans). */
roomRoleRoutes.get(
  "/roomUserRoles/:roomId",
  requireAnyToken,
  valid("param", roomParam),
  async (c) => {
    const room = await roomOr404(c.env, c.req.valid("param").roomId);
    return c.json(activeRoles(await liveState(c.env, room)).map((r) => toUserRoleDto(room, r)));
  },
);

/** GET /roomUserRoles/{roomId}/{userId}: one user's roles in the room (the owner is the room's ownerUuid, not a row). */
roomRoleRoutes.get(
  "/roomUserRoles/:roomId/:userId",
  requireAnyToken,
  valid("param", roomParam.extend({ userId: fields.uuid })),
  async (c) => {
    const { roomId, userId } = c.req.valid("param");
    const room = await roomOr404(c.env, roomId);
    return c.json(
      activeRoles(await liveState(c.env, room))
        .filter((r) => r.userUuid === userId)
        .map((r) => toUserRoleDto(room, r)),
    );
  },
);

/** POST /roomUserRoles/{roomId} `{userUuid, role, expirationTime?}` → 201 UserRoles; the object enforces it at once. */
roomRoleRoutes.post(
  "/roomUserRoles/:roomId",
  requireUser,
  valid("param", roomParam),
  valid("json", grantBody),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("param").roomId);
    const { userUuid, role } = c.req.valid("json");
    if (!(await accountExists(c.env, userUuid))) throw notFound(MSG.userNotFound);
    const roles = activeRoles(await liveState(c.env, room));
    const refusal = moderationRefusal(room, roles, who, userUuid, role, true);
    if (refusal) throw forbidden(refusal);
    // A kick is temporary by nature: without an expiry it lasts 5 minutes, as the kick call's.
    const expirationTime =
      c.req.valid("json").expirationTime ?? (role === "kicked" ? Date.now() + KICK_MS : null);
    await onObject(c.env, room, "setRole", (s) => s.setRole(userUuid, role, expirationTime));
    await audit(c, "room.moderation", who.uuid, {
      actionType: actionOf(role, expirationTime),
      previousRole: previousRole(rolesOf(roles, userUuid), room.ownerUuid === userUuid),
      role,
      roomUuid: room.uuid,
      userUuid,
      expirationTime,
    });
    return c.json(toUserRoleDto(room, { userUuid, role, expirationTime }), 201);
  },
);

/** DELETE /roomUserRoles/{roomId} `{userUuid, role}`: the same permission table as granting; 404 when the role is not held. */
roomRoleRoutes.delete(
  "/roomUserRoles/:roomId",
  requireUser,
  valid("param", roomParam),
  valid("json", removeBody),
  async (c) => {
    const who = caller(c);
    const room = await roomOr404(c.env, c.req.valid("param").roomId);
    const { userUuid, role } = c.req.valid("json");
    const roles = activeRoles(await liveState(c.env, room));
    const refusal = moderationRefusal(room, roles, who, userUuid, role, false);
    if (refusal) throw forbidden(refusal);
    const removed = await onObject(c.env, room, "removeRole", (s) => s.removeRole(userUuid, role));
    if (removed === false) throw notFound(MSG.roleNotHeld);
    await audit(c, "room.moderation", who.uuid, {
      actionType: "removeRole",
      previousRole: role,
      role,
      roomUuid: room.uuid,
      userUuid,
    });
    return c.json({ roomId: room.id, roomUuid: room.uuid, userUuid, role, removed: true });
  },
);
