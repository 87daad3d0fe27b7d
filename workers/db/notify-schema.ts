import { nowMs } from "./now";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { DevicePlatform, NotificationKind } from "../../shared/notifications";

/**
 * Devices, web push subscriptions, the in-app notification centre, per-user settings and
 * the throttle (issue 14, "Notifications"). Re-exported by schema.ts (drizzle-kit reads it).
 * The queue consumer (workers/queues/user-notifications.ts) is the only writer of
 * `notifications` and `notify_throttle`.
 */
const now = nowMs;

/**
 * A mobile (or FCM web) push token. `token` is unique: a token belongs to one user at a
 * time, so registering a token another user had moves it (the phone changed hands, or
 * someone signed out and another in).
 */
export const devices = sqliteTable(
  "devices",
  {
    token: text("token").primaryKey(),
    userUuid: text("user_uuid").notNull(),
    platform: text("platform").$type<DevicePlatform>().notNull(),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
  },
  (t) => [index("devices_user_idx").on(t.userUuid, t.updatedAt)],
);
export type DeviceRow = typeof devices.$inferSelect;

/** A browser's PushSubscription (endpoint plus its ECDH public key and auth secret, base64url). */
export const webPushSubscriptions = sqliteTable(
  "web_push_subscriptions",
  {
    endpoint: text("endpoint").primaryKey(),
    userUuid: text("user_uuid").notNull(),
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [index("web_push_user_idx").on(t.userUuid, t.createdAt)],
);
export type WebPushSubscriptionRow = typeof webPushSubscriptions.$inferSelect;

/**
 * The in-app notification centre: every notification is here, push or not. One row per
 * (queue message, recipient): the unique key is what makes a redelivered message write
 * nothing twice, and `push_claimed_at`/`pushed_at` what makes it push nothing twice. Silent
 * (data-only) pushes keep a row for that bookkeeping but never show in the centre.
 */
export const notifications = sqliteTable(
  "notifications",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    uuid: text("uuid").notNull().unique(),
    userUuid: text("user_uuid").notNull(),
    messageId: text("message_id").notNull(),
    kind: text("kind").$type<NotificationKind>().notNull(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    /** JSON object, at most NOTIFY_LIMITS.dataBytes. */
    data: text("data").notNull().default("{}"),
    silent: integer("silent", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    readAt: integer("read_at"),
    /** A consumer took on the push for this row (stale after a while: a crashed consumer). */
    pushClaimedAt: integer("push_claimed_at"),
    /** The push is done (sent, held back by quiet hours, or handed to a retry message). */
    pushedAt: integer("pushed_at"),
  },
  (t) => [
    uniqueIndex("notifications_message_user").on(t.messageId, t.userUuid),
    index("notifications_user_created").on(t.userUuid, t.createdAt),
  ],
);
export type NotificationRow = typeof notifications.$inferSelect;

/**
 * What a user turned off. Quiet hours are minutes of the user's local day [start, end)
 * (wrapping past midnight when start > end), local by an IANA zone or else a fixed UTC
 * offset; during them push is held back but the in-app row is still written.
 */
export const notificationSettings = sqliteTable("notification_settings", {
  userUuid: text("user_uuid").primaryKey(),
  /** JSON array of NotificationKind. */
  disabledKinds: text("disabled_kinds").notNull().default("[]"),
  quietStart: integer("quiet_start"),
  quietEnd: integer("quiet_end"),
  timeZone: text("time_zone"),
  utcOffsetMinutes: integer("utc_offset_minutes"),
  updatedAt: integer("updated_at").notNull().default(now),
});
export type NotificationSettingsRow = typeof notificationSettings.$inferSelect;

/**
 * "At most once per X per window" rules: a key is held until `until` by the message that
 * took it (`owner`), so the rule holds across isolates and concurrent deliveries, and a
 * redelivery of the owning message is not throttled by itself.
 */
export const notifyThrottle = sqliteTable(
  "notify_throttle",
  {
    key: text("key").primaryKey(),
    until: integer("until").notNull(),
    owner: text("owner").notNull(),
  },
  (t) => [index("notify_throttle_until").on(t.until)],
);
