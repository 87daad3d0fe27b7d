import { and, asc, eq, gt } from "drizzle-orm";
import { z } from "zod";
import { db } from "../db/client";
import { djFans } from "../db/schema";
import type { Env } from "../env";
import { takeThrottle } from "./notify-rules";
import { notifyInput, notifyUsers, type NotifyInput } from "./user-notifications";

/**
 * One notification to every fan of a DJ ("X is DJing in Y", an announcement), through the
 * notifications queue (channel "fans"). The producer sends ONE message whatever the crowd;
 * the consumer reads the fans a page at a time (FANOUT_PAGE, in uuid order on the
 * (dj_uuid, user_uuid) index) and hands each page to notifyUsers (100 recipients a message),
 * then queues the next page. So no request or consumer ever holds 100,000 uuids, and a DJ
 * with a huge following costs the room one queue send.
 *
 * Exactly once: a page's user messages get ids `<fan-out id>:<cursor>:<n>`, so a redelivered
 * page makes the same messages and the in-app row (unique per message id and recipient)
 * is written once; its push is claimed once (user-notifications.ts). A fan who follows
 * during the fan-out is reached if their uuid sorts after the cursor; one who unfollows
 * before their page is not.
 */
export const FANOUT_PAGE = 2000;

export const fansMessage = z.object({
  channel: z.literal("fans"),
  /** Room for `<id>:<cursor uuid>:<n>` within a users message id's 100 characters. */
  id: z.string().min(1).max(56),
  djUuid: z.string().min(1).max(64),
  /** The last fan uuid of the previous page; null for the first page. */
  after: z.string().max(64).nullable(),
  /**
   * Holds the whole fan-out for the notification's throttle window under this key (a DJ
   * hopping on and off one room's stage); unset: `fanout:<throttleKey>`. Each fan is still
   * held by the notification's own throttle key.
   */
  fanoutKey: z.string().min(1).max(200).optional(),
  notification: notifyInput,
});
export type FansMessage = z.output<typeof fansMessage>;

/** The message that starts a fan-out (for an outbox to keep and send later, or notifyFans). */
export function fansMessageFor(
  djUuid: string,
  n: NotifyInput,
  id: string = crypto.randomUUID(),
  fanoutKey?: string,
): FansMessage {
  // Parsed here, so a bad producer fails loudly instead of the consumer dropping the message.
  return fansMessage.parse({
    channel: "fans",
    id,
    djUuid,
    after: null,
    notification: n,
    fanoutKey,
  });
}

/** Queues `n` for every fan of `djUuid`. */
export async function notifyFans(env: Env, djUuid: string, n: NotifyInput, id?: string) {
  await env.NOTIFICATIONS.send(fansMessageFor(djUuid, n, id));
}

/** One page of a fan-out: notify it, and queue the next page if this one was full. */
export async function consumeFansMessage(env: Env, msg: FansMessage) {
  const { throttleKey, throttleSeconds } = msg.notification;
  const whole = msg.fanoutKey ?? (throttleKey ? `fanout:${throttleKey}` : undefined);
  // A throttled notification (a DJ taking a seat again within the hour) is skipped as a
  // whole before any fan is read: the per-fan throttle would hold it too, but only after
  // touching every fan's row. The first page takes the key for the whole fan-out; its own
  // redelivery (same id) takes it again.
  if (whole && msg.after === null) {
    const taken = await takeThrottle(env, whole, throttleSeconds, msg.id, [msg.djUuid]);
    if (!taken.size) return;
  }
  const rows = await db(env)
    .select({ uuid: djFans.userUuid })
    .from(djFans)
    .where(
      msg.after === null
        ? eq(djFans.djUuid, msg.djUuid)
        : and(eq(djFans.djUuid, msg.djUuid), gt(djFans.userUuid, msg.after)),
    )
    .orderBy(asc(djFans.userUuid))
    .limit(FANOUT_PAGE)
    .all();
  if (!rows.length) return;
  await notifyUsers(
    env,
    rows.map((r) => r.uuid),
    msg.notification,
    `${msg.id}:${msg.after ?? ""}`,
  );
  if (rows.length === FANOUT_PAGE)
    await env.NOTIFICATIONS.send({ ...msg, after: rows[rows.length - 1].uuid });
}
