import { serviceApp } from "../lib/service";
import { localCheckoutRoutes } from "./local-checkout";
import { productRoutes } from "./products";
import { subscriptionRoutes } from "./subscriptions";
import { appleWebhookRoutes } from "./webhook-apple";
import { stripeWebhookRoutes } from "./webhook-stripe";

/**
 * The payment-service (seed 001): products and their checkout, subscriptions, the Stripe
 * and App Store webhooks, and local test mode's checkout when no Stripe key is set.
 */
export const paymentService = serviceApp("payment-service");
paymentService.route("/", productRoutes);
paymentService.route("/", subscriptionRoutes);
paymentService.route("/", stripeWebhookRoutes);
paymentService.route("/", appleWebhookRoutes);
paymentService.route("/", localCheckoutRoutes);
