import { and, asc, count, eq } from "drizzle-orm";
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { ADMIN_ROLES } from "../../shared/roles";
import { db } from "../db/client";
import { devices, djFans } from "../db/schema";
import type { AppEnv } from "../env";
import { caller, requireService } from "../lib/auth";
import { ApiError, forbidden } from "../lib/errors";
import { takeSkip } from "../lib/paging";
import { takeAttempt } from "../lib/rate-limit";
import { fields, valid } from "../lib/validate";
import { notifyFans } from "../queues/fan-notifications";
import { fanCounts } from "./dj-fans";
import { bodyField, dataField, titleField } from "./notify-fields";
import { requireSelfOrService, isServiceCall } from "./notify-guards";
import { activeUserOr404 } from "./people";

/**
 * Notifications to a DJ's fans (seed 001, Social service): the fan-out itself is one queue
 * message whatever the following (workers/queues/fan-notifications.ts). The room sends
 * "X is DJing in Y" on its own when a DJ takes a seat (durable/room/actions.ts).
 *
 * - `GET /dj-fans/devices/list?djUuid` (service only): the push devices of a DJ's fans, paged
 *   (for a sender outside this Worker).
 * - `GET /dj-fans-notification?djUuid` (the DJ, an admin or a service): how many fans an
 *   announcement would reach. A GET sends nothing.
 * - `POST /notifications/dj-fans {djUuid?, title, body, data?}`: an announcement to the fans.
 *   A DJ announces as themselves (djUuid omitted or their own), once an hour
 *   (RULES.fanAnnouncement); an admin or a service for any DJ, unlimited.
 */
export const fanNotificationRoutes = new Hono<AppEnv>();

const djQuery = z.object({ djUuid: fields.uuid });
const devicesQuery = djQuery.extend(takeSkip(500, 100, 1_000_000).shape);

fanNotificationRoutes.get(
  "/dj-fans/devices/list",
  requireService,
  valid("query", devicesQuery),
  async (c) => {
    const { djUuid, skip, take } = c.req.valid("query");
    const d = db(c.env);
    const fansDevices = and(eq(djFans.djUuid, djUuid), eq(devices.userUuid, djFans.userUuid));
    const [rows, [total]] = await d.batch([
      d
        .select({ userUuid: devices.userUuid, token: devices.token, platform: devices.platform })
        .from(djFans)
        .innerJoin(devices, fansDevices)
        .orderBy(asc(devices.token))
        .limit(take)
        .offset(skip),
      d.select({ n: count() }).from(djFans).innerJoin(devices, fansDevices),
    ]);
    return c.json({ data: rows, total: total.n, skip, take });
  },
);

fanNotificationRoutes.get("/dj-fans-notification", valid("query", djQuery), async (c) => {
  const { djUuid } = c.req.valid("query");
  await requireSelfOrService(c, djUuid);
  await activeUserOr404(c.env, djUuid);
  const { fans } = await fanCounts(c.env, djUuid);
  return c.json({ djUuid, fans });
});

const announcement = z.object({
  djUuid: fields.uuid.optional(),
  title: titleField,
  body: bodyField(),
  data: dataField.optional(),
});

/** Who may announce, checked before the body: a service (by its key) or an account. */
const serviceOrAccount = createMiddleware<AppEnv>(async (c, next) => {
  if (!(await isServiceCall(c))) caller(c);
  await next();
});

fanNotificationRoutes.post(
  "/notifications/dj-fans",
  serviceOrAccount,
  valid("json", announcement),
  async (c) => {
    const input = c.req.valid("json");
    // serviceOrAccount has checked the key already: its presence is enough here.
    const service = c.req.header("X-Service-Key") !== undefined;
    let djUuid = input.djUuid;
    if (!service) {
      const who = caller(c);
      const staff = who.roles.some((r) => ADMIN_ROLES.includes(r));
      djUuid ??= who.uuid;
      if (djUuid !== who.uuid && !staff) throw forbidden("Only the DJ can announce to their fans.");
      if (!staff)
        await takeAttempt(
          c.env,
          [{ rule: "fanAnnouncement", key: djUuid }],
          (wait) => `You can announce to your fans once an hour; try again in ${wait}.`,
        );
    }
    if (!djUuid) throw new ApiError(400, "djUuid is required for a service call");
    await activeUserOr404(c.env, djUuid);
    await notifyFans(c.env, djUuid, {
      kind: "dj_live",
      title: input.title,
      body: input.body,
      data: { ...input.data, djUuid },
    });
    return c.json({ queued: true, djUuid }, 202);
  },
);
