import { MAX_EVENT_POINTS } from "../../queues/points-message";
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../../db/client";
import { users } from "../../db/schema";
import type { AppEnv } from "../../env";
import { caller, requireAdmin, requireService } from "../../lib/auth";
import { conflict, badRequest, notFound } from "../../lib/errors";
import { cleanText, valid } from "../../lib/validate";
import { sendPoints, type PointsMessage } from "../../queues/points";
import { instant, seasonAt } from "./season-repo";
import { MSG } from "../messages";

/**
 * Points granted outside rooms (seed 000): `POST /points/service` (another service, with
 * X-Service-Key) and `POST /points/season/admin/handle-points` (an admin adjustment, may be
 * negative). Both answer 202: the event is queued and the consumer applies it to the
 * season current at `occurredAt` and to the lifetime board.
 *
 * Rules:
 * - Every event has an id and counts once however often it is sent. The service must send
 *   one; for the admin it is optional and generated when absent (the answer returns it, so
 *   a retry can reuse it). Ids are namespaced by source (`service:<id>`, `admin:<id>`), so
 *   no caller can collide with, or pre-empt, a room vote's `vote:...` id.
 * - `occurredAt` (default now) may not lie in the future (beyond 5 minutes of clock skew),
 *   nor over 14 days back, nor inside a season that has ended: an ended season's ranking
 *   is frozen. The 14 days keep every event well inside the boards' dedupe window (30
 *   days): it may wait up to 14 more days in the queue and still be counted exactly once.
 * - The user must have an account (404 otherwise).
 */
export const pointsRoutes = new Hono<AppEnv>();

const MAX_POINTS = MAX_EVENT_POINTS;
const SKEW_MS = 5 * 60_000;
const MAX_AGE_DAYS = 14;

const eventId = z
  .string({ error: "eventId must be a string" })
  .trim()
  .min(1, "eventId must not be empty")
  .max(150, "eventId must be at most 150 characters")
  .refine((s) => cleanText(s), "eventId must not contain control characters");
const points = z
  .number({ error: "points must be a number" })
  .int("points must be a whole number")
  .min(-MAX_POINTS, `points must be at least -${MAX_POINTS}`)
  .max(MAX_POINTS, `points must be at most ${MAX_POINTS}`)
  .refine((n) => n !== 0, "points must not be 0");
const shape = {
  userUuid: z.uuid({ error: "userUuid must be a UUID" }),
  points,
  occurredAt: instant("occurredAt").optional(),
  reason: z.string().trim().max(500, "reason must be at most 500 characters").optional(),
};
const serviceBody = z.object({ eventId, ...shape });
const adminBody = z.object({ eventId: eventId.optional(), ...shape });

async function queue(
  c: Context<AppEnv>,
  source: "service" | "admin",
  body: z.output<typeof adminBody>,
  id: string,
) {
  const now = Date.now();
  const occurredAt = body.occurredAt ?? now;
  if (occurredAt > now + SKEW_MS) throw badRequest(MSG.occurredInFuture);
  if (occurredAt < now - MAX_AGE_DAYS * 86_400_000)
    throw badRequest(MSG.occurredTooLongAgo(MAX_AGE_DAYS));
  if (occurredAt < now) {
    const then = await seasonAt(c.env, occurredAt);
    if (then && then.endDate <= now) throw conflict(MSG.occurredInEndedSeason(then.name));
  }
  const user = await db(c.env)
    .select({ uuid: users.uuid })
    .from(users)
    .where(eq(users.uuid, body.userUuid))
    .get();
  if (!user) throw notFound(MSG.userNotFound);
  const data: Record<string, unknown> = {};
  if (body.reason) data.reason = body.reason;
  if (source === "admin") data.adminUuid = caller(c).uuid;
  const message: PointsMessage = {
    eventId: `${source}:${id}`,
    userUuid: body.userUuid,
    points: body.points,
    occurredAt,
    source,
    data,
  };
  await sendPoints(c.env, message);
  return c.json(
    {
      eventId: id,
      userUuid: body.userUuid,
      points: body.points,
      occurredAt: new Date(occurredAt).toISOString(),
      queued: true,
    },
    202,
  );
}

pointsRoutes.post("/points/service", requireService, valid("json", serviceBody), (c) => {
  const body = c.req.valid("json");
  return queue(c, "service", body, body.eventId);
});

pointsRoutes.post(
  "/points/season/admin/handle-points",
  requireAdmin,
  valid("json", adminBody),
  (c) => {
    const body = c.req.valid("json");
    return queue(c, "admin", body, body.eventId ?? crypto.randomUUID());
  },
);
