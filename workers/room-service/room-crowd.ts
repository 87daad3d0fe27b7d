import { Hono } from "hono";
import { z } from "zod";
import { crowdArgs } from "../../durable/room/crowd";
import type { AppEnv } from "../env";
import { requireService } from "../lib/auth";
import { devOnly } from "../lib/environments";
import { fields, valid } from "../lib/validate";
import { roomStub } from "./room-dto";

/**
 * POST /dev/rooms/{uuid}/crowd `{ fill?, votes?: { from, count }, state? }`: the Room's
 * synthetic crowd (durable/room/crowd.ts), for bench/rooms.bench.mjs, which can reach a
 * room under `wrangler dev` only over HTTP. Only where dev-only features run (development,
 * test): anywhere else the route does not exist (404); then an admin's token or the service
 * key (requireService: 401 without either, 403 for anyone else's token; the bench sends the
 * key, so a timed call reads no account from D1). Answers the Room's CrowdResult (counts,
 * never a time).
 */
export const roomCrowdRoutes = new Hono<AppEnv>();

roomCrowdRoutes.post(
  "/dev/rooms/:uuid/crowd",
  devOnly,
  requireService,
  valid("param", z.object({ uuid: fields.uuid })),
  valid("json", crowdArgs),
  async (c) => {
    const room = await roomStub(c.env, c.req.valid("param").uuid);
    return c.json(await room.crowd(c.req.valid("json")));
  },
);
