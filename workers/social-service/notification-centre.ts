import { and, desc, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { NOTIFY_LIMITS } from "../../shared/notifications";
import { db } from "../db/client";
import { notifications, type NotificationRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireUser } from "../lib/auth";
import { takeSkip } from "../lib/paging";
import { fields, valid } from "../lib/validate";
import { inJson } from "../queues/notify-rules";
import { NOTIFY_MSG } from "./notify-messages";

/**
 * The in-app notification centre (issue 14: "every notification is visible even without
 * push"): the caller's own notifications, newest first, with the unread count the bell
 * shows. Rows are written only by the queue consumer; silent (data-only) pushes have a row
 * for their bookkeeping but never show here.
 */
export const notificationCentreRoutes = new Hono<AppEnv>();

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
export function toNotification(n: NotificationRow) {
  let data: unknown = {};
  try {
    data = JSON.parse(n.data);
  } catch {
    /* written by us as JSON; an unreadable one shows as empty */
  }
  return {
    uuid: n.uuid,
    kind: n.kind,
    title: n.title,
    body: n.body,
    data,
    createdAt: iso(n.createdAt)!,
    readAt: iso(n.readAt),
  };
}

const visible = (me: string) =>
  and(eq(notifications.userUuid, me), eq(notifications.silent, false));

async function unreadCount(env: Env, me: string) {
  const row = await db(env)
    .select({ n: sql<number>`count(*)` })
    .from(notifications)
    .where(and(visible(me), sql`${notifications.readAt} is null`))
    .get();
  return row?.n ?? 0;
}

/** GET /notifications?take=&skip=: at most 50 a page; the centre keeps 200, so skip is bounded too. */
notificationCentreRoutes.get(
  "/notifications",
  requireUser,
  valid("query", takeSkip(50, 20, NOTIFY_LIMITS.keepPerUser)),
  async (c) => {
    const me = caller(c).uuid;
    const { take, skip } = c.req.valid("query");
    const d = db(c.env);
    const [rows, total, unread] = await Promise.all([
      d
        .select()
        .from(notifications)
        .where(visible(me))
        .orderBy(desc(notifications.createdAt), desc(notifications.id))
        .limit(take)
        .offset(skip)
        .all(),
      d
        .select({ n: sql<number>`count(*)` })
        .from(notifications)
        .where(visible(me))
        .get(),
      unreadCount(c.env, me),
    ]);
    return c.json({
      items: rows.map(toNotification),
      total: total?.n ?? 0,
      unreadCount: unread,
      take,
      skip,
    });
  },
);

const readBody = z
  .object({
    uuids: z
      .array(fields.uuid, { error: "uuids must be a list of notification uuids" })
      .min(1, "uuids should not be empty")
      .max(NOTIFY_LIMITS.keepPerUser, `uuids must hold at most ${NOTIFY_LIMITS.keepPerUser}`)
      .optional(),
    all: z.literal(true, { error: "all must be true" }).optional(),
  })
  .refine((b) => (b.uuids === undefined) !== (b.all === undefined), NOTIFY_MSG.readOneOf);

/** POST /notifications/read `{uuids}` or `{all: true}`: only the caller's rows change. */
notificationCentreRoutes.post(
  "/notifications/read",
  requireUser,
  valid("json", readBody),
  async (c) => {
    const me = caller(c).uuid;
    const { uuids } = c.req.valid("json");
    const changed = await db(c.env)
      .update(notifications)
      .set({ readAt: Date.now() })
      .where(
        and(
          visible(me),
          sql`${notifications.readAt} is null`,
          uuids ? inJson(notifications.uuid, uuids) : undefined,
        ),
      )
      .returning({ uuid: notifications.uuid })
      .all();
    return c.json({ updated: changed.length, unreadCount: await unreadCount(c.env, me) });
  },
);
