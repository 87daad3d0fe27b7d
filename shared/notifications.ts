/**
 * Notification kinds and bounds, shared by the Worker and (later) the web pages. A user can
 * turn each kind off (notification_settings); the producers name one of these.
 */
export const NOTIFICATION_KINDS = [
  /** "X is DJing in Y" to X's fans (at most once per DJ per hour per fan: a throttle key). */
  "dj_live",
  "friend_invitation",
  "friend_accepted",
  /** "You're up next" when the DJ is not looking at the room. */
  "up_next",
  /** `@nickname` in a room's chat. */
  "mention",
  /** A scheduled event the user follows is starting. */
  "event_starting",
  /** A room's owner or moderator writing to the people in the room. */
  "room_message",
  /** An admin or a service writing to users (the /mobileNotification family). */
  "custom",
  /** A direct message arrived (social-service direct-messages.ts). */
  "direct_message",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const DEVICE_PLATFORMS = ["ios", "android", "web"] as const;
export type DevicePlatform = (typeof DEVICE_PLATFORMS)[number];

export const NOTIFY_LIMITS = {
  title: 100,
  body: 500,
  /** The `data` object as JSON: a web push record must stay under 4 KB after encryption. */
  dataBytes: 2048,
  /** In-app rows kept per user (the newest). */
  keepPerUser: 200,
  devicesPerUser: 20,
  webSubscriptionsPerUser: 10,
  /** Recipients per queue message: one "DJ is live" to 100,000 fans is 1,000 messages. */
  recipientsPerMessage: 100,
} as const;
