import { serviceApp } from "../lib/service";

/** The merch-service. Its resources arrive with their issues; for now it answers its health check. */
export const merchService = serviceApp("merch-service");
