import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { NOTIFICATION_KINDS } from "../../shared/notifications";
import { db } from "../db/client";
import { notificationSettings, type NotificationSettingsRow } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { valid } from "../lib/validate";
import { disabledKinds } from "../queues/notify-rules";
import { NOTIFY_MSG } from "./notify-messages";
import { kindField } from "./notify-fields";

/**
 * GET/PUT /notification-settings: which kinds the caller turned off (nothing is written
 * or pushed for them) and quiet hours (push held back, the in-app row still written).
 * Quiet hours are minutes of the local day [start, end), wrapping past midnight when
 * start > end, local by an IANA zone (follows daylight saving) or a fixed UTC offset.
 */
export const notificationSettingsRoutes = new Hono<AppEnv>();

export function toSettings(row: NotificationSettingsRow | undefined) {
  const quiet =
    row && row.quietStart != null && row.quietEnd != null
      ? {
          start: row.quietStart,
          end: row.quietEnd,
          timeZone: row.timeZone,
          utcOffsetMinutes: row.utcOffsetMinutes,
        }
      : null;
  return { kinds: NOTIFICATION_KINDS, disabledKinds: disabledKinds(row), quietHours: quiet };
}

const minute = (name: string) =>
  z
    .number({ error: `${name} must be a minute of the day (0-1439)` })
    .int(`${name} must be a whole minute`)
    .min(0, `${name} must be a minute of the day (0-1439)`)
    .max(1439, `${name} must be a minute of the day (0-1439)`);

const zoneField = z
  .string()
  .max(64, NOTIFY_MSG.badTimeZone)
  .refine((z) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: z });
      return true;
    } catch {
      return false;
    }
  }, NOTIFY_MSG.badTimeZone);

const settingsBody = z
  .object({
    disabledKinds: z
      .array(kindField)
      .max(NOTIFICATION_KINDS.length)
      .transform((l) => [...new Set(l)])
      .optional(),
    quietHours: z
      .object({
        start: minute("quietHours.start"),
        end: minute("quietHours.end"),
        timeZone: zoneField.optional(),
        utcOffsetMinutes: z
          .number()
          .int()
          .min(-840, "utcOffsetMinutes must be between -840 and 840")
          .max(840, "utcOffsetMinutes must be between -840 and 840")
          .optional(),
      })
      .refine((q) => !(q.timeZone && q.utcOffsetMinutes !== undefined), NOTIFY_MSG.zoneOrOffset)
      .nullable()
      .optional(),
  })
  .refine(
    (b) => b.disabledKinds !== undefined || b.quietHours !== undefined,
    NOTIFY_MSG.settingsEmpty,
  );

notificationSettingsRoutes.get("/notification-settings", requireUser, async (c) => {
  const me = caller(c).uuid;
  const row = await db(c.env)
    .select()
    .from(notificationSettings)
    .where(eq(notificationSettings.userUuid, me))
    .get();
  return c.json(toSettings(row));
});

notificationSettingsRoutes.put(
  "/notification-settings",
  requireUser,
  valid("json", settingsBody),
  async (c) => {
    const me = caller(c).uuid;
    const b = c.req.valid("json");
    const set: Partial<NotificationSettingsRow> = { updatedAt: Date.now() };
    if (b.disabledKinds) set.disabledKinds = JSON.stringify(b.disabledKinds);
    if (b.quietHours !== undefined) {
      set.quietStart = b.quietHours?.start ?? null;
      set.quietEnd = b.quietHours?.end ?? null;
      set.timeZone = b.quietHours?.timeZone ?? null;
      set.utcOffsetMinutes = b.quietHours?.utcOffsetMinutes ?? null;
    }
    const row = await db(c.env)
      .insert(notificationSettings)
      .values({ userUuid: me, ...set })
      .onConflictDoUpdate({ target: notificationSettings.userUuid, set })
      .returning()
      .get();
    return c.json(toSettings(row));
  },
);
