import { PLAY_TOPICS } from "../../shared/play-tracking";
import { MODERATION_ACTION_TYPES } from "../user-service/moderation-rules";

/**
 * Every audit topic the product records: `audit()` accepts only these (a typo'd topic is a
 * type error, not an event no filter finds), and `GET /info-admin/user-events-names` answers
 * this list. Grouped by the prefix the audit page filters on (`moderation.` and so on).
 */
const MODERATION_TOPICS = [
  ...MODERATION_ACTION_TYPES.map((t) => `moderation.${t}` as const),
  "moderation.comment",
  /** An admin corrected an action's reason (the old text is in the event). */
  "moderation.reasonEdited",
] as const;

export const AUDIT_TOPICS = [
  // Sign-in and account (the spec's "login events").
  "user.login",
  "user.logout-everywhere",
  "user.sign-up",
  "user.admin-sign-up",
  "user.bot-sign-up",
  "user.email-added",
  "user.email-deleted",
  "user.email-verified",
  "user.capability-added",
  "user.capability-removed",
  "user.password-changed",
  "user.password-changed-by-admin",
  "user.password-reset-requested",
  "user.password-reset",
  "user.password-set",
  "user.geolocate",
  "user.phone-code-sent",
  "user.phone-verified",
  "user.phone-removed",
  "phone.whitelisted",
  "phone.unwhitelisted",
  // A provider account linked or unlinked (issue 16; the provider is in the event).
  "user.link",
  "user.unlink",
  "voucher.minted",
  "voucher.revoked",
  "voucher.redeemed",
  // Rooms, their chat (sent by the Room object's outbox) and their moderation.
  "chat.message",
  "chat.edited",
  "chat.deleted",
  "room.create",
  "room.delete",
  "room.admin-update",
  "room.moderation",
  "playlist.create",
  "playlist.delete",
  "playlist.export",
  "purchase",
  ...MODERATION_TOPICS,
  ...PLAY_TOPICS,
] as const;
export type AuditTopic = (typeof AUDIT_TOPICS)[number];
