import { serviceApp } from "../lib/service";
import { kinesisRoutes } from "./kinesis";

/** The audit-service: its health check and play tracking (`POST /kinesis`). */
export const auditService = serviceApp("audit-service");
auditService.route("/", kinesisRoutes);
