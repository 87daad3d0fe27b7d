import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv, Env } from "../env";
import { requireAdmin, requireService } from "../lib/auth";
import { fields, valid } from "../lib/validate";
import { notifyUsers, type NotifyInput } from "../queues/user-notifications";
import {
  bodyField,
  dataField,
  kindField,
  queued,
  titleField,
  userUuidsField,
} from "./notify-fields";
import { budgetRoomMessage, roomAudience, roomSender } from "./room-notifications";

/**
 * The sending calls (seed 001: /mobileNotification and its sub-paths, /notifications/
 * custom-message(-from-room), /room-users-notification). Every one goes through the
 * queue (notifyUsers): the in-app row always, push to every device and browser the
 * recipient has, under their settings. Who may call each, and its body, is in
 * docs/NOTIFICATIONS.md; a send answers 202 `{queued, recipients, messages}`.
 */
export const mobileNotificationRoutes = new Hono<AppEnv>();

const room = z.object({
  roomId: z.string().trim().min(1, "roomId is required").max(64, "roomId is too long"),
});
const many = z.object({
  userUuids: userUuidsField,
  title: titleField,
  body: bodyField(),
  data: dataField.optional(),
});
const one = z.object({
  userUuid: fields.uuid,
  title: titleField,
  body: bodyField(),
  data: dataField.optional(),
});
const silentMany = z.object({ userUuids: userUuidsField, data: dataField });
const silentOne = z.object({ userUuid: fields.uuid, data: dataField });

const send = (env: Env, to: string[], n: NotifyInput) => notifyUsers(env, to, n);
const silent = (data: Record<string, unknown>): NotifyInput => ({
  kind: "custom",
  title: "",
  body: "",
  data,
  silent: true,
});

/** POST /mobileNotification (service): the general entry point other services use. */
mobileNotificationRoutes.post(
  "/mobileNotification",
  requireService,
  valid(
    "json",
    many.extend({
      kind: kindField.default("custom"),
      silent: z.boolean().optional(),
      throttleKey: z.string().trim().min(1).max(200).optional(),
      throttleSeconds: z.number().int().min(1).max(86_400).optional(),
    }),
  ),
  async (c) => {
    const { userUuids, ...n } = c.req.valid("json");
    return c.json(queued(await send(c.env, userUuids, n)), 202);
  },
);

/** POST /mobileNotification/admin and /custom-message (admin): a message to listed users. */
for (const path of [
  "/mobileNotification/admin",
  "/mobileNotification/custom-message",
  "/notifications/custom-message",
]) {
  mobileNotificationRoutes.post(path, requireAdmin, valid("json", many), async (c) => {
    const { userUuids, ...n } = c.req.valid("json");
    return c.json(queued(await send(c.env, userUuids, { kind: "custom", ...n })), 202);
  });
}

/** POST /mobileNotification/silent-notification (service): a data-only push to listed users. */
mobileNotificationRoutes.post(
  "/mobileNotification/silent-notification",
  requireService,
  valid("json", silentMany),
  async (c) => {
    const { userUuids, data } = c.req.valid("json");
    return c.json(queued(await send(c.env, userUuids, silent(data))), 202);
  },
);

/**
 * POST /mobileNotification/all-devices (admin): everyone with a device or a browser
 * subscription, read a page at a time by uuid so memory stays bounded.
 */
mobileNotificationRoutes.post(
  "/mobileNotification/all-devices",
  requireAdmin,
  valid("json", many.omit({ userUuids: true })),
  async (c) => {
    const n = c.req.valid("json");
    const total = { recipients: 0, messages: 0 };
    const page = c.env.DB.prepare(
      `select user_uuid from (select user_uuid from devices union select user_uuid from web_push_subscriptions)
       where user_uuid > ?1 order by user_uuid limit 5000`,
    );
    for (let after = ""; ;) {
      const { results } = await page.bind(after).all<{ user_uuid: string }>();
      if (results.length === 0) break;
      const r = await send(
        c.env,
        results.map((u) => u.user_uuid),
        { kind: "custom", ...n },
      );
      total.recipients += r.recipients;
      total.messages += r.messages;
      after = results[results.length - 1].user_uuid;
      if (results.length < 5000) break;
    }
    return c.json(queued(total), 202);
  },
);

/** POST /mobileNotification/user (service): one user, any kind. */
mobileNotificationRoutes.post(
  "/mobileNotification/user",
  requireService,
  valid("json", one.extend({ kind: kindField.default("custom") })),
  async (c) => {
    const { userUuid, ...n } = c.req.valid("json");
    return c.json(queued(await send(c.env, [userUuid], n)), 202);
  },
);

/** POST /mobileNotification/user/admin (admin): one user. */
mobileNotificationRoutes.post(
  "/mobileNotification/user/admin",
  requireAdmin,
  valid("json", one),
  async (c) => {
    const { userUuid, ...n } = c.req.valid("json");
    return c.json(queued(await send(c.env, [userUuid], { kind: "custom", ...n })), 202);
  },
);

/** POST /mobileNotification/user/admin/silent-nofitication (admin; the spec's spelling): one user, data only. */
mobileNotificationRoutes.post(
  "/mobileNotification/user/admin/silent-nofitication",
  requireAdmin,
  valid("json", silentOne),
  async (c) => {
    const { userUuid, data } = c.req.valid("json");
    return c.json(queued(await send(c.env, [userUuid], silent(data))), 202);
  },
);

/**
 * POST /mobileNotification/room-users `{roomId, title, body, data?}` and
 * /notifications/custom-message-from-room `{roomId, message}` (titled with the room's
 * name): the room's owner, a co-owner or moderator, an admin, or a service; to the
 * signed-in people in the room now, not the sender.
 */
mobileNotificationRoutes.post(
  "/mobileNotification/room-users",
  valid("json", room.extend({ title: titleField, body: bodyField(), data: dataField.optional() })),
  async (c) => {
    const { roomId, title, body, data } = c.req.valid("json");
    const { room: r, sender } = await roomSender(c, roomId);
    const to = await roomAudience(c.env, r, sender);
    await budgetRoomMessage(c.env, r, sender);
    const n: NotifyInput = {
      kind: "room_message",
      title,
      body,
      data: { ...data, roomUuid: r.uuid, roomSlug: r.slug },
    };
    return c.json(queued(await send(c.env, to, n)), 202);
  },
);

mobileNotificationRoutes.post(
  "/notifications/custom-message-from-room",
  valid("json", room.extend({ message: bodyField("message") })),
  async (c) => {
    const { roomId, message } = c.req.valid("json");
    const { room: r, sender } = await roomSender(c, roomId);
    const to = await roomAudience(c.env, r, sender);
    await budgetRoomMessage(c.env, r, sender);
    const title = r.name.slice(0, 100);
    const n: NotifyInput = {
      kind: "room_message",
      title,
      body: message,
      data: { roomUuid: r.uuid, roomSlug: r.slug, from: sender },
    };
    return c.json(queued(await send(c.env, to, n)), 202);
  },
);

/**
 * GET /room-users-notification?roomId=: who a room message would reach now (a count);
 * same callers as room-users. A GET never sends anything (a prefetch or a link must not
 * notify a room), so the spec's GET is this preview.
 */
mobileNotificationRoutes.get("/room-users-notification", valid("query", room), async (c) => {
  const { room: r, sender } = await roomSender(c, c.req.valid("query").roomId);
  const to = await roomAudience(c.env, r, sender);
  return c.json({ roomUuid: r.uuid, recipients: to.length });
});
