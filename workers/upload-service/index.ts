import { serviceApp } from "../lib/service";

/** The upload-service. Its resources arrive with their issues; for now it answers its health check. */
export const uploadService = serviceApp("upload-service");
