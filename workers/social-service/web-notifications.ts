import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { NOTIFY_LIMITS } from "../../shared/notifications";
import { fromB64url } from "../adapters/push/types";
import { webPushOn } from "../adapters/push/web-push";
import { db } from "../db/client";
import { webPushSubscriptions } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireService, requireUser } from "../lib/auth";
import { badRequest } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { notifyUsers } from "../queues/user-notifications";
import { NOTIFY_MSG } from "./notify-messages";
import { bodyField, dataField, queued, titleField } from "./notify-fields";

/**
 * Web Push subscriptions (seed 001: /web-notifications). A browser's PushSubscription is
 * stored as sent; delivery is workers/adapters/push/web-push.ts. The endpoint is where
 * this Worker will POST, so it must be https on a public host name (no IP literals, no
 * local names, no port): a user cannot aim our requests at an internal address. An
 * endpoint another user had moves to the caller (one browser profile, one person at a
 * time); at most NOTIFY_LIMITS.webSubscriptionsPerUser per user, the oldest forgotten.
 */
export const webNotificationRoutes = new Hono<AppEnv>();

const LOCAL_HOST = /(^localhost$|\.localhost$|\.local$|\.internal$|\.lan$|\.home\.arpa$)/i;

const endpointField = z
  .string({ error: "endpoint must be a string" })
  .trim()
  .max(1024, "endpoint must be at most 1024 characters")
  .pipe(z.url({ error: NOTIFY_MSG.endpointNotHttps }))
  .refine((u) => new URL(u).protocol === "https:", NOTIFY_MSG.endpointNotHttps)
  .refine((u) => {
    const url = new URL(u);
    // "localhost." is localhost: the trailing dot of a fully qualified name is dropped first.
    const host = url.hostname.replace(/\.$/, "");
    return (
      !url.port &&
      !url.username &&
      !url.password &&
      host.includes(".") &&
      !LOCAL_HOST.test(host) &&
      !/^[\d.]+$/.test(host) &&
      !host.startsWith("[")
    );
  }, NOTIFY_MSG.endpointHost);

const b64Len = (n: number, message: string, first?: number) =>
  z
    .string({ error: message })
    .max(200, message)
    .refine((s) => {
      const bytes = fromB64url(s);
      return !!bytes && bytes.length === n && (first === undefined || bytes[0] === first);
    }, message);

const subscriptionBody = z.object({
  endpoint: endpointField,
  expirationTime: z.number().nullable().optional(),
  keys: z.object(
    { p256dh: b64Len(65, NOTIFY_MSG.badP256dh, 4), auth: b64Len(16, NOTIFY_MSG.badAuth) },
    { error: "keys must be an object with p256dh and auth" },
  ),
});

webNotificationRoutes.post(
  "/web-notifications/subscription",
  requireUser,
  valid("json", subscriptionBody),
  async (c) => {
    const me = caller(c).uuid;
    const { endpoint, keys } = c.req.valid("json");
    // The key must be a point on the curve, or every push to it would fail.
    const point = await crypto.subtle
      .importKey("raw", fromB64url(keys.p256dh)!, { name: "ECDH", namedCurve: "P-256" }, false, [])
      .then(
        () => true,
        () => false,
      );
    if (!point) throw badRequest(NOTIFY_MSG.badP256dh);
    const now = Date.now();
    await db(c.env)
      .insert(webPushSubscriptions)
      .values({ endpoint, userUuid: me, p256dh: keys.p256dh, auth: keys.auth, createdAt: now })
      .onConflictDoUpdate({
        target: webPushSubscriptions.endpoint,
        set: { userUuid: me, p256dh: keys.p256dh, auth: keys.auth, createdAt: now },
      })
      .run();
    await c.env.DB.prepare(
      `delete from web_push_subscriptions where user_uuid = ?1 and endpoint not in
       (select endpoint from web_push_subscriptions where user_uuid = ?1
        order by created_at desc, endpoint limit ?2)`,
    )
      .bind(me, NOTIFY_LIMITS.webSubscriptionsPerUser)
      .run();
    const count = await db(c.env)
      .select({ n: sql<number>`count(*)` })
      .from(webPushSubscriptions)
      .where(sql`${webPushSubscriptions.userUuid} = ${me}`)
      .get();
    return c.json({ subscribed: true, endpoint, subscriptions: count?.n ?? 0 }, 201);
  },
);

/**
 * GET /web-notifications/vapid-public-key: the key a page passes to pushManager.subscribe as
 * `applicationServerKey` (public by design: browsers hand it to the push service). Null when
 * web push is off here, so the page can say so instead of subscribing in vain.
 */
webNotificationRoutes.get("/web-notifications/vapid-public-key", (c) =>
  c.json({ publicKey: webPushOn(c.env) ? c.env.VAPID_PUBLIC_KEY! : null }),
);

/**
 * POST /web-notifications/push-notification `{userUuid, title, body, data?}`: admin or
 * service; a notification to that user's browsers only (and their in-app centre), queued.
 */
webNotificationRoutes.post(
  "/web-notifications/push-notification",
  requireService,
  valid(
    "json",
    z.object({
      userUuid: fields.uuid,
      title: titleField,
      body: bodyField(),
      data: dataField.optional(),
    }),
  ),
  async (c) => {
    const { userUuid, title, body, data } = c.req.valid("json");
    const r = await notifyUsers(c.env, [userUuid], {
      kind: "custom",
      title,
      body,
      data,
      channels: ["web"],
    });
    return c.json(queued(r), 202);
  },
);
