import { serviceApp } from "../lib/service";

/** The audit-service. Its resources arrive with their issues; for now it answers its health check. */
export const auditService = serviceApp("audit-service");
