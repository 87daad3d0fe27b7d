import { bodyCap } from "./lib/body-cap";
import { Hono } from "hono";
import type { AppEnv } from "./env";
import { onError, onNotFound } from "./lib/errors";
import { auditService } from "./audit-service";
import { merchService } from "./merch-service";
import { paymentService } from "./payment-service";
import { playlistService } from "./playlist-service";
import { roomService } from "./room-service";
import { socialService } from "./social-service";
import { uploadService } from "./upload-service";
import { userService } from "./user-service";

/** The gateway: every service under `/api/<service>` (DESIGN.md, "Gateway paths"). */
export const api = new Hono<AppEnv>().basePath("/api");
api.onError(onError);
api.use("*", bodyCap);
api.notFound(onNotFound);
const services = {
  "user-service": userService,
  "room-service": roomService,
  "merch-service": merchService,
  "upload-service": uploadService,
  "audit-service": auditService,
  "social-service": socialService,
  "payment-service": paymentService,
  "playlist-service": playlistService,
} as const;
for (const [name, service] of Object.entries(services)) {
  // A service's root with or without the slash (the seeds write `GET /`): Hono's mount
  // drops the sub-app's trailing "/", so `/api/<service>/` is handed the bare root.
  api.get(`/${name}/`, (c) => {
    const url = new URL(c.req.url);
    url.pathname = url.pathname.slice(0, -1);
    return api.fetch(new Request(url, c.req.raw), c.env, c.executionCtx);
  });
  api.route(`/${name}`, service);
}
