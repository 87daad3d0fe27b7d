import { serviceApp } from "../lib/service";

/** The room-service. Its resources arrive with their issues; for now it answers its health check. */
export const roomService = serviceApp("room-service");
