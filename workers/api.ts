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
// Not strict: a trailing slash names the same route (`/api/social-service/` is the service's
// root, the seeds' `social GET /`), as in the NestJS services the seeds describe.
export const api = new Hono<AppEnv>({ strict: false }).basePath("/api");
api.onError(onError);
api.use("*", bodyCap);
api.notFound(onNotFound);
api.route("/user-service", userService);
api.route("/room-service", roomService);
api.route("/merch-service", merchService);
api.route("/upload-service", uploadService);
api.route("/audit-service", auditService);
api.route("/social-service", socialService);
api.route("/payment-service", paymentService);
api.route("/playlist-service", playlistService);
