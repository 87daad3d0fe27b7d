import type { NotificationKind } from "../../shared/notifications";
import type { Locale } from "~/i18n";
import type { PublicProfile } from "./types";

export { NOTIFICATION_KINDS, type NotificationKind } from "../../shared/notifications";

/** Where the social-service answers (DESIGN.md, "Gateway paths"). */
export const SOCIAL = "/api/social-service";
/** Seed 001, constants: "Fans and following page size: 12". */
export const PEOPLE_PAGE = 12;
/** The friends page reads this many invitations and friends at a time. */
export const FRIENDS_PAGE = 24;
/** What the contacts box accepts at once (the API takes at most 1,000 a call). */
export const MAX_CONTACTS = 200;

/** The paged shape of every social list (docs/DECISIONS.md, "Social graph"). */
export interface PeoplePage<T = PublicProfile> {
  data: T[];
  total: number;
  skip: number;
  take: number;
}

export interface InvitationDto {
  uuid: string;
  fromUuid: string;
  toUuid: string;
  status: "pending" | "accepted" | "rejected";
  createdAt: string;
  from?: PublicProfile | null;
  to?: PublicProfile | null;
}

export interface NotificationDto {
  uuid: string;
  kind: NotificationKind;
  title: string;
  body: string;
  data: Record<string, unknown>;
  createdAt: string;
  readAt: string | null;
}

export interface NotificationList {
  items: NotificationDto[];
  total: number;
  unreadCount: number;
  take: number;
  skip: number;
}

export interface QuietHours {
  start: number;
  end: number;
  timeZone?: string | null;
  utcOffsetMinutes?: number | null;
}

export interface NotificationSettings {
  kinds: NotificationKind[];
  disabledKinds: NotificationKind[];
  quietHours: QuietHours | null;
}

/** Where the relationship between me and a profile stands. */
export type FriendState =
  | { kind: "none" }
  | { kind: "sent"; invitationUuid: string }
  | { kind: "received"; invitationUuid: string }
  | { kind: "friends" };

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

/**
 * Where clicking a notification goes: its room, the friends page for invitations, a person's
 * profile; the notifications page when it names nothing (the same rule as public/sw.js).
 */
export function notificationHref(n: Pick<NotificationDto, "kind" | "data">): string {
  const d = n.data ?? {};
  const room = str(d.roomSlug);
  if (room) return `/rooms/${encodeURIComponent(room)}`;
  if (n.kind === "friend_invitation") return "/friends";
  const who = str(d.profileUuid) ?? str(d.userUuid) ?? str(d.fromUuid);
  if (who) return `/profile/${encodeURIComponent(who)}`;
  if (n.kind === "friend_accepted") return "/friends";
  const url = str(d.url);
  if (url && url.startsWith("/") && !url.startsWith("//")) return url;
  return "/notifications";
}

/** "3 min ago", "hace 2 h": the coarsest unit that fits. */
export function timeAgo(iso: string, locale: Locale, now = Date.now()): string {
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: "auto", style: "short" });
  const abs = Math.abs(s);
  if (abs < 60) return rtf.format(s, "second");
  if (abs < 3600) return rtf.format(Math.round(s / 60), "minute");
  if (abs < 86400) return rtf.format(Math.round(s / 3600), "hour");
  if (abs < 86400 * 30) return rtf.format(Math.round(s / 86400), "day");
  return new Date(iso).toLocaleDateString(locale);
}

/**
 * E-mail addresses pasted one per line or separated by commas or semicolons: trimmed,
 * lower-cased, de-duplicated, at most `max`. Anything without an @ is left out.
 */
export function parseEmails(text: string, max = MAX_CONTACTS): { emails: string[]; over: boolean } {
  const all = [
    ...new Set(
      text
        .split(/[\n,;]+/)
        .map((s) => s.trim().toLowerCase())
        .filter((s) => /^[^\s@]+@[^\s@]+$/.test(s)),
    ),
  ];
  return { emails: all.slice(0, max), over: all.length > max };
}

/** "22:30" for minute 1350 of the day. */
export const minuteToTime = (m: number) =>
  `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
/** Minute of the day from "HH:MM", or null. */
export function timeToMinute(v: string): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(v);
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  return h < 24 && min < 60 ? h * 60 + min : null;
}
