import { and, eq, gt, lte } from "drizzle-orm";
import { db } from "../db/client";
import { communityMembers, events, rooms } from "../db/schema";
import type { Env } from "../env";
import { notifyFans } from "../queues/fan-notifications";
import { notifyUsers } from "../queues/user-notifications";

/**
 * "An event you follow is starting" (issue 14), from the Worker's cron (every minute,
 * wrangler.toml): for each event whose start passed in the last START_WINDOW_MS, the host's
 * fans (one fan-out, workers/queues/fan-notifications.ts) and the members of its community
 * (at most MAX_MEMBERS, newest first) are told. The window is wider than the cron's period so
 * a missed run is caught by the next; throttle keys on the event make the repeats of the
 * following runs reach nobody twice.
 */
export const START_WINDOW_MS = 5 * 60_000;
export const MAX_MEMBERS = 10_000;

export async function announceStartingEvents(env: Env, now = Date.now()) {
  const d = db(env);
  const starting = await d
    .select({ event: events, roomSlug: rooms.slug })
    .from(events)
    .leftJoin(rooms, eq(rooms.id, events.roomId))
    .where(and(lte(events.startsAt, now), gt(events.startsAt, now - START_WINDOW_MS)))
    .limit(100)
    .all();
  for (const { event, roomSlug } of starting) {
    const n = {
      kind: "event_starting" as const,
      title: `${event.name} is starting`.slice(0, 100),
      body: (event.description ?? "Join now.").slice(0, 500),
      data: { eventSlug: event.slug, ...(roomSlug ? { roomSlug } : {}) },
      throttleKey: `event_starting:${event.uuid}`,
      throttleSeconds: 86_400,
    };
    try {
      await notifyFans(env, event.hostUuid, n, `event-${event.uuid}`);
      if (event.communityId !== null) {
        const members = await d
          .select({ uuid: communityMembers.userUuid })
          .from(communityMembers)
          .where(eq(communityMembers.communityId, event.communityId))
          .limit(MAX_MEMBERS)
          .all();
        await notifyUsers(
          env,
          members.map((m) => m.uuid).filter((u) => u !== event.hostUuid),
          n,
          `event-${event.uuid}`,
        );
      }
    } catch (err) {
      console.error(`events: could not announce ${event.slug}`, err);
    }
  }
}
