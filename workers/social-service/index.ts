import { serviceApp } from "../lib/service";

/** The social-service. Its resources arrive with their issues; for now it answers its health check. */
export const socialService = serviceApp("social-service");
