import { sql } from "drizzle-orm";
import { NOTIFICATION_KINDS, type NotificationKind } from "../../shared/notifications";
import { db } from "../db/client";
import { notificationSettings, type NotificationSettingsRow } from "../db/schema";
import type { Env } from "../env";

/**
 * The per-recipient rules the consumer applies before anything is written or pushed:
 * kinds a user turned off, quiet hours, and the throttle. Kept apart from the consumer so
 * the settings routes and the consumer read one definition.
 */

/** `user_uuid in (...)` for a list of any length as ONE bound parameter (D1 binds at most 100). */
export const inJson = (column: unknown, list: readonly string[]) =>
  sql`${column} in (select value from json_each(${JSON.stringify(list)}))`;

export function disabledKinds(row: Pick<NotificationSettingsRow, "disabledKinds"> | undefined) {
  if (!row) return [] as NotificationKind[];
  try {
    const list = JSON.parse(row.disabledKinds);
    return Array.isArray(list)
      ? (list.filter((k) =>
          (NOTIFICATION_KINDS as readonly string[]).includes(k),
        ) as NotificationKind[])
      : [];
  } catch {
    return [];
  }
}

/** The minute of the user's local day at `now`: by IANA zone, else by fixed offset, else UTC. */
export function localMinute(
  s: Pick<NotificationSettingsRow, "timeZone" | "utcOffsetMinutes">,
  now: number,
): number {
  if (s.timeZone) {
    try {
      const parts = new Intl.DateTimeFormat("en-US", {
        timeZone: s.timeZone,
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      }).formatToParts(new Date(now));
      const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
      return (get("hour") % 24) * 60 + get("minute");
    } catch {
      /* an unknown zone (refused on write; a runtime without it): fall through */
    }
  }
  const utc = Math.floor(now / 60_000) % 1440;
  return (((utc + (s.utcOffsetMinutes ?? 0)) % 1440) + 1440) % 1440;
}

/** Whether `now` falls in the user's quiet hours [start, end), wrapping past midnight. */
export function inQuietHours(s: NotificationSettingsRow | undefined, now: number): boolean {
  if (!s || s.quietStart == null || s.quietEnd == null || s.quietStart === s.quietEnd) return false;
  const m = localMinute(s, now);
  return s.quietStart < s.quietEnd
    ? m >= s.quietStart && m < s.quietEnd
    : m >= s.quietStart || m < s.quietEnd;
}

/** The settings rows of `users` (absent: everything on, no quiet hours), by user. */
export async function settingsOf(env: Env, users: readonly string[]) {
  const rows = await db(env)
    .select()
    .from(notificationSettings)
    .where(inJson(notificationSettings.userUuid, users))
    .all();
  return new Map(rows.map((r) => [r.userUuid, r]));
}

/**
 * Takes the throttle `key|user` for each user for `seconds`, for message `owner`; answers
 * the users who got it. One statement per key, each atomic in D1: of two messages racing
 * for a key (two isolates, a retry beside a new message), exactly one takes it; the owner's
 * own redelivery takes it again (it is the same notification, deduplicated later).
 */
export async function takeThrottle(
  env: Env,
  key: string,
  seconds: number,
  owner: string,
  users: readonly string[],
  now = Date.now(),
): Promise<Set<string>> {
  if (users.length === 0) return new Set();
  const stmt = env.DB.prepare(
    `insert into notify_throttle (key, until, owner) values (?1, ?2, ?3)
     on conflict(key) do update set until = excluded.until, owner = excluded.owner
     where notify_throttle.until <= ?4 or notify_throttle.owner = excluded.owner
     returning key`,
  );
  const results = await env.DB.batch<{ key: string }>(
    users.map((u) => stmt.bind(`${key}|${u}`, now + seconds * 1000, owner, now)),
  );
  return new Set(users.filter((_, i) => (results[i].results?.length ?? 0) > 0));
}

/** Forgets expired throttle keys, a bounded number at a time (called once per batch). */
export async function sweepThrottle(env: Env, now = Date.now()) {
  await env.DB.prepare(
    "delete from notify_throttle where key in (select key from notify_throttle where until < ?1 limit 500)",
  )
    .bind(now)
    .run();
}
