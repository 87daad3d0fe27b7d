import { z } from "zod";

/**
 * A points event (seed 000, points): who earns, how many, when it happened, and an id that
 * makes a redelivery count once. Room votes, `POST /points/service` and the admin
 * adjustment all travel this way to the Leaderboard objects.
 */
export const pointsMessage = z.object({
  eventId: z.string().min(1).max(200),
  userUuid: z.string().min(1).max(200),
  points: z.number().int(),
  /** Epoch ms the points were earned: picks the season the event lands in. */
  occurredAt: z.number().int(),
  source: z.enum(["room", "service", "admin"]),
  data: z.record(z.string(), z.unknown()).default({}),
});
export type PointsMessage = z.input<typeof pointsMessage>;
