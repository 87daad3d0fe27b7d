import { Hono } from "hono";
import { z } from "zod";
import { relayName } from "../../durable/room/relay-link";
import { relayConfig } from "../../durable/room/rpc";
import type { AppEnv } from "../env";
import { requireService } from "../lib/auth";
import { devOnly } from "../lib/environments";
import { fields, valid } from "../lib/validate";

/**
 * GET and POST /dev/rooms/{uuid}/relays: a stadium room's fan-out figures (the room's: sockets
 * it holds, sockets on relays, frames and probed tick costs; each relay's: sockets, batches,
 * sends), and (POST `{ threshold, perRelay }`) its relay threshold and size, for
 * bench/stadium.bench.mjs, which reaches rooms under `wrangler dev` only over HTTP. As the
 * crowd route (room-crowd.ts): only in development and test (404 elsewhere), and only for an
 * admin or the service key (401 without, 403 for anyone else).
 */
export const roomRelayRoutes = new Hono<AppEnv>();

const param = valid("param", z.object({ uuid: fields.uuid }));

async function figures(
  env: AppEnv["Bindings"],
  room: string,
  config?: z.infer<typeof relayConfig>,
) {
  const stats = await env.Room.getByName(room).relayStats(config);
  const relays = [];
  for (let i = 0; i < Math.max(stats.links, stats.assigned); i++)
    relays.push(await env.Relay.getByName(relayName(room, i)).stats());
  return { room: stats, relays };
}

roomRelayRoutes.get("/dev/rooms/:uuid/relays", devOnly, requireService, param, async (c) =>
  c.json(await figures(c.env, c.req.valid("param").uuid)),
);

roomRelayRoutes.post(
  "/dev/rooms/:uuid/relays",
  devOnly,
  requireService,
  param,
  valid("json", relayConfig),
  async (c) => c.json(await figures(c.env, c.req.valid("param").uuid, c.req.valid("json"))),
);
