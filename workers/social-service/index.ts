import { serviceApp } from "../lib/service";

/** The social-service: no resources yet; it answers only the shared health check. */
export const socialService = serviceApp("social-service");
