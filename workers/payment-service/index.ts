import { serviceApp } from "../lib/service";

/** The payment-service. Its resources arrive with their issues; for now it answers its health check. */
export const paymentService = serviceApp("payment-service");
