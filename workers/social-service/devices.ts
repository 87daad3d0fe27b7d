import { and, desc, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { DEVICE_PLATFORMS, NOTIFY_LIMITS } from "../../shared/notifications";
import { db } from "../db/client";
import { devices, type DeviceRow } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { notFound } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { NOTIFY_MSG } from "./notify-messages";
import { requireSelfOrService } from "./notify-guards";

/**
 * Push devices (seed 001 "Social service": /devices). A token belongs to one user at a
 * time: registering a token another user had moves it to the caller (the phone changed
 * hands, or one person signed out and another in), so a push never reaches the previous
 * owner's notifications. At most NOTIFY_LIMITS.devicesPerUser per user: registering one
 * more forgets the least recently registered.
 *
 * `{a}/{b}` in `DELETE /devices/{a}/{b}` and `GET /devices/single-device/{a}/{b}` is
 * `{userUuid}/{token}`: the owner, an admin or a service may call them.
 */
export const deviceRoutes = new Hono<AppEnv>();

/** FCM tokens are base64url with colons; APNs tokens are hex. Either fits this. */
export const deviceToken = z
  .string({ error: "token must be a string" })
  .trim()
  .min(8, "token must be at least 8 characters")
  .max(512, "token must be at most 512 characters")
  .regex(/^[A-Za-z0-9:_.-]+$/, "token must be a push token (letters, digits, : _ . -)");

const iso = (t: number) => new Date(t).toISOString();
export const toDevice = (d: DeviceRow) => ({
  token: d.token,
  platform: d.platform,
  userUuid: d.userUuid,
  createdAt: iso(d.createdAt),
  updatedAt: iso(d.updatedAt),
});

deviceRoutes.post(
  "/devices",
  requireUser,
  valid(
    "json",
    z.object({
      token: deviceToken,
      platform: z.enum(DEVICE_PLATFORMS, {
        error: `platform must be one of ${DEVICE_PLATFORMS.join(", ")}`,
      }),
    }),
  ),
  async (c) => {
    const me = caller(c).uuid;
    const { token, platform } = c.req.valid("json");
    const now = Date.now();
    // One statement: a token registered by two users at once ends with one of them.
    const row = await db(c.env)
      .insert(devices)
      .values({ token, userUuid: me, platform, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: devices.token,
        set: {
          platform,
          updatedAt: now,
          // Moved to another user: it is a new device for them.
          createdAt: sql`case when ${devices.userUuid} = ${me} then ${devices.createdAt} else ${now} end`,
          userUuid: me,
        },
      })
      .returning()
      .get();
    await c.env.DB.prepare(
      `delete from devices where user_uuid = ?1 and token not in
       (select token from devices where user_uuid = ?1 order by updated_at desc, token limit ?2)`,
    )
      .bind(me, NOTIFY_LIMITS.devicesPerUser)
      .run();
    return c.json(toDevice(row), 201);
  },
);

/** DELETE /devices/{token}: the caller's own device (another user's is "not found"). */
deviceRoutes.delete(
  "/devices/:token",
  requireUser,
  valid("param", z.object({ token: deviceToken })),
  async (c) => {
    const me = caller(c).uuid;
    const gone = await db(c.env)
      .delete(devices)
      .where(and(eq(devices.token, c.req.valid("param").token), eq(devices.userUuid, me)))
      .returning()
      .get();
    if (!gone) throw notFound(NOTIFY_MSG.deviceNotFound);
    return c.json({ deleted: true, token: gone.token });
  },
);

const ownedParam = z.object({ userUuid: fields.uuid, token: deviceToken });

async function ownedDevice(
  c: Parameters<typeof requireSelfOrService>[0],
  userUuid: string,
  token: string,
) {
  return db(c.env)
    .select()
    .from(devices)
    .where(and(eq(devices.token, token), eq(devices.userUuid, userUuid)))
    .get();
}

deviceRoutes.delete("/devices/:userUuid/:token", valid("param", ownedParam), async (c) => {
  const { userUuid, token } = c.req.valid("param");
  await requireSelfOrService(c, userUuid, NOTIFY_MSG.notYours);
  const gone = await db(c.env)
    .delete(devices)
    .where(and(eq(devices.token, token), eq(devices.userUuid, userUuid)))
    .returning()
    .get();
  if (!gone) throw notFound(NOTIFY_MSG.deviceNotFound);
  return c.json({ deleted: true, token: gone.token });
});

deviceRoutes.get(
  "/devices/single-device/:userUuid/:token",
  valid("param", ownedParam),
  async (c) => {
    const { userUuid, token } = c.req.valid("param");
    await requireSelfOrService(c, userUuid, NOTIFY_MSG.notYours);
    const row = await ownedDevice(c, userUuid, token);
    if (!row) throw notFound(NOTIFY_MSG.deviceNotFound);
    return c.json(toDevice(row));
  },
);

/** GET /devices/all-devices/{userId}: self, admin or service; at most devicesPerUser rows by construction. */
deviceRoutes.get(
  "/devices/all-devices/:userUuid",
  valid("param", z.object({ userUuid: fields.uuid })),
  async (c) => {
    const { userUuid } = c.req.valid("param");
    await requireSelfOrService(c, userUuid, NOTIFY_MSG.notYours);
    const rows = await db(c.env)
      .select()
      .from(devices)
      .where(eq(devices.userUuid, userUuid))
      .orderBy(desc(devices.updatedAt))
      .limit(NOTIFY_LIMITS.devicesPerUser)
      .all();
    return c.json(rows.map(toDevice));
  },
);
