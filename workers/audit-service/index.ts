import { sentryTestingRoutes } from "../merch-service/sentry-testing";
import { serviceApp } from "../lib/service";
import { auditEventRoutes } from "./audit-events";
import { geolocateRoutes } from "./geolocate";
import { infoAdminRoutes } from "./info-admin";
import { kinesisRoutes } from "./kinesis";
import { moderationActionRoutes } from "./moderation-actions";
import { userActionRoutes } from "./user-actions";

/**
 * The audit-service (seed 001, Audit service; issue 15): play tracking (`POST /kinesis`),
 * the audit trail for admins (`/audit-events`), the moderation action log
 * (`/moderation-actions`, `/user-actions/{id}`), the reference names (`/info-admin/*`), the
 * caller's own place (`/geolocate`) and the error-reporting test (`/sentry-testing`, the
 * merch-service's route: it records under this service's name). Retention: retention.ts,
 * run by the cron.
 */
export const auditService = serviceApp("audit-service");
auditService.route("/", kinesisRoutes);
auditService.route("/", auditEventRoutes);
auditService.route("/", moderationActionRoutes);
auditService.route("/", userActionRoutes);
auditService.route("/", infoAdminRoutes);
auditService.route("/", geolocateRoutes);
auditService.route("/", sentryTestingRoutes);
