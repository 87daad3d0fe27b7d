import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../db/client";
import {
  AVATAR_ASSIGNMENT_TYPES,
  avatarAssignments,
  avatars,
  seasons,
  users,
  type AvatarAssignmentRow,
} from "../../db/schema";
import type { AppEnv } from "../../env";
import { requireAdmin, requireService } from "../../lib/auth";
import { notFound } from "../../lib/errors";
import { valid } from "../../lib/validate";
import { tellUserRooms } from "../../room-service/user-rooms";
import { clearLostWearers } from "./avatar-rules";
import { findAvatarOr404, slugParam } from "./avatars";
import { MSG } from "../messages";

/**
 * Assignments: an avatar given to one user (MANUAL by the team, SEASON_AWARD by a season's
 * board, PURCHASED from the store). One row per (avatar, user), so giving twice is a no-op:
 * the first row stands and is answered again (200 instead of 201).
 */
export const avatarAssignmentRoutes = new Hono<AppEnv>();

export const toAssignmentDto = (a: AvatarAssignmentRow) => ({
  id: a.id,
  avatarSlug: a.avatarSlug,
  userUuid: a.userUuid,
  type: a.type,
  seasonId: a.seasonId,
  createdAt: new Date(a.createdAt).toISOString(),
});

const assignBody = z.strictObject({
  userUuid: z.uuid({ error: "userUuid must be a UUID" }),
  type: z
    .enum(AVATAR_ASSIGNMENT_TYPES, {
      error: `type must be one of ${AVATAR_ASSIGNMENT_TYPES.join(", ")}`,
    })
    .default("MANUAL"),
  seasonId: z
    .number({ error: "seasonId must be a number or null" })
    .int("seasonId must be a whole number")
    .positive("seasonId must be positive")
    .nullable()
    .optional(),
});

/** POST /avatar-assignment/{slug} (admin token or X-Service-Key): `{ userUuid, type, seasonId? }`. */
avatarAssignmentRoutes.post(
  "/avatar-assignment/:slug",
  requireService,
  valid("param", slugParam),
  valid("json", assignBody),
  async (c) => {
    const { slug } = c.req.valid("param");
    const body = c.req.valid("json");
    const avatar = await findAvatarOr404(c.env, slug);
    const d = db(c.env);
    const user = await d
      .select({ uuid: users.uuid })
      .from(users)
      .where(eq(users.uuid, body.userUuid))
      .get();
    if (!user) throw notFound(MSG.userNotFound);
    // A season award names its season; by default the avatar's own.
    const seasonId = body.seasonId ?? (body.type === "SEASON_AWARD" ? avatar.seasonId : null);
    if (
      seasonId !== null &&
      !(await d.select({ id: seasons.id }).from(seasons).where(eq(seasons.id, seasonId)).get())
    )
      throw notFound(MSG.seasonIdNotFound(seasonId));
    const inserted = await d
      .insert(avatarAssignments)
      .values({
        id: crypto.randomUUID(),
        avatarSlug: slug,
        userUuid: body.userUuid,
        type: body.type,
        seasonId,
      })
      .onConflictDoNothing({ target: [avatarAssignments.avatarSlug, avatarAssignments.userUuid] })
      .returning()
      .get();
    if (inserted) return c.json(toAssignmentDto(inserted), 201);
    const existing = await d
      .select()
      .from(avatarAssignments)
      .where(
        and(eq(avatarAssignments.avatarSlug, slug), eq(avatarAssignments.userUuid, body.userUuid)),
      )
      .get();
    // Removed between the insert and this read: a retry will make it again.
    if (!existing) throw notFound(MSG.assignmentNotFound);
    return c.json(toAssignmentDto(existing), 200);
  },
);

/**
 * DELETE /avatar-assignment/{avatarAssignmentId} (admin). In the same batch, the user stops
 * wearing the avatar if nothing else lets them use it (a PUBLIC one they may keep).
 */
avatarAssignmentRoutes.delete(
  "/avatar-assignment/:avatarAssignmentId",
  requireAdmin,
  valid(
    "param",
    z.object({ avatarAssignmentId: z.uuid({ error: "avatarAssignmentId must be a UUID" }) }),
  ),
  async (c) => {
    const { avatarAssignmentId } = c.req.valid("param");
    const d = db(c.env);
    const row = await d
      .select()
      .from(avatarAssignments)
      .where(eq(avatarAssignments.id, avatarAssignmentId))
      .get();
    if (!row) throw notFound(MSG.assignmentNotFound);
    const avatar =
      (await d.select().from(avatars).where(eq(avatars.slug, row.avatarSlug)).get()) ?? null;
    const [, cleared] = await d.batch([
      d.delete(avatarAssignments).where(eq(avatarAssignments.id, avatarAssignmentId)),
      clearLostWearers(c.env, row.avatarSlug, avatar, row.userUuid),
    ]);
    // They no longer wear it: the rooms they are in draw their default avatar now.
    if (cleared.meta.changes) await tellUserRooms(c.env, row.userUuid);
    return c.json({ ...toAssignmentDto(row), deleted: true });
  },
);
