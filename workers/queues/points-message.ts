import { z } from "zod";

/**
 * A points event (seed 000, points): who earns, how many, when it happened, and an id that
 * makes a redelivery count once. Room votes, `POST /points/service` and the admin
 * adjustment all travel this way to the Leaderboard objects.
 */
/**
 * The most one event may move a balance, either way: the routes' own cap (points.ts), kept
 * here too so a message from any producer cannot push a balance past 2^53, where the boards'
 * arithmetic silently loses precision. An event over it is invalid (dead-lettered, never retried).
 */
export const MAX_EVENT_POINTS = 1_000_000;

export const pointsMessage = z.object({
  eventId: z.string().min(1).max(200),
  userUuid: z.string().min(1).max(200),
  points: z.number().int().min(-MAX_EVENT_POINTS).max(MAX_EVENT_POINTS),
  /** Epoch ms the points were earned: picks the season the event lands in. */
  occurredAt: z.number().int(),
  source: z.enum(["room", "service", "admin"]),
  data: z.record(z.string(), z.unknown()).default({}),
});
export type PointsMessage = z.input<typeof pointsMessage>;
