/**
 * Texts the notification routes answer with (devices, web push, the centre, settings and
 * the /mobileNotification family). Routes and tests import them from here. Kept apart
 * from the graph's messages so the two halves of issue 14 each own their file.
 */
export const NOTIFY_MSG = {
  deviceNotFound: "Device not found.",
  subscriptionNotFound: "Push subscription not found.",
  notYours: "You can only see or change your own devices.",
  endpointNotHttps: "endpoint must be an https URL",
  endpointHost: "endpoint must be a push service's public host name",
  badP256dh: "keys.p256dh must be a P-256 public key (65 bytes, base64url)",
  badAuth: "keys.auth must be 16 bytes, base64url",
  readOneOf: "Send either uuids (a list) or all: true.",
  settingsEmpty: "Nothing to update: send disabledKinds or quietHours.",
  badTimeZone: "quietHours.timeZone must be an IANA time zone, e.g. Europe/Madrid",
  zoneOrOffset: "quietHours takes timeZone or utcOffsetMinutes, not both",
  roomRefused: "Only the room's owner, a co-owner, a moderator or an admin can notify this room.",
  roomNotFound: "Room not found.",
  roomTooMany: (wait: string) => `This room has sent too many notifications; try again in ${wait}.`,
  roomDown: "The live room is not reachable right now; please try again.",
} as const;
