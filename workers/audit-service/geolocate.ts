import { Hono } from "hono";
import type { AppEnv } from "../env";
import { caller } from "../lib/auth";
import { audit, requestOrigin } from "../queues/audit";

/**
 * `GET /geolocate` and `POST /geolocate` (seed 001, Audit service): the caller's own
 * country, region and city, as Cloudflare saw the request (`request.cf`); each is null when
 * absent (locally, or a field Cloudflare could not tell). Nothing else is answered: no IP,
 * no coordinates, never another person's.
 *
 * GET needs no token. POST (any token, guests too) also records the place as a
 * `user.geolocate` event, at most one per caller per hour: the event id names the hour, so a
 * client calling in a loop stores one row.
 */
export const geolocateRoutes = new Hono<AppEnv>();

const HOUR = 3_600_000;

const place = (req: Request) => {
  const { country, region, city } = requestOrigin(req);
  return { country, region, city };
};

geolocateRoutes.get("/geolocate", (c) => c.json(place(c.req.raw)));

geolocateRoutes.post("/geolocate", async (c) => {
  const who = caller(c, ["user", "bot", "guest", "ghost"]);
  const where = place(c.req.raw);
  const hour = Math.floor(Date.now() / HOUR);
  await audit(c, "user.geolocate", who.uuid, where, `geolocate:${who.uuid}:${hour}`);
  return c.json({ ...where, recorded: true }, 201);
});
