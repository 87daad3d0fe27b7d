/**
 * Every message the payment-service answers with (the seeds name none for payments, so
 * these are ours). Routes and tests import them, so each text is written once.
 */
export const MSG = {
  productNotFound: "Product not found.",
  userNotFound: "User not found.",
  notOneTime: "This product is a subscription plan; start it from /subscription/checkout/{id}.",
  notRecurring:
    "This product is not a subscription plan; buy it from /api/v1/products/{id}/checkout.",
  notForSale: "This product is not for sale.",
  noBundle: "This product has no token bundle, so there is nothing to buy yet.",
  levelRequired: "subscriptionLevel is required for a recurring product.",
  levelOnlyRecurring: "subscriptionLevel is only for recurring products.",
  productHasBundle: "A token bundle sells this product; delete or move the bundle first.",
  productIdTaken: "A product with this id already exists.",
  alreadySubscribed:
    "You already have an active subscription; change it from the subscription portal.",
  noSubscription: "You have no subscription to manage yet.",
  subscriptionNotFound: "Subscription not found.",
  subscriptionEnded: "This subscription has already ended.",
  webhookNotConfigured: "Stripe webhooks are not configured (STRIPE_WEBHOOK_SECRET is unset).",
  badSignature: "Invalid Stripe signature.",
  bodyTooLarge: "Webhook body is too large.",
  appleNotConfigured:
    "App Store notifications are not configured: set APPLE_ROOT_CA_PEM, APPLE_BUNDLE_ID and APPLE_ENVIRONMENT (Production, the default, also needs APPLE_APP_APPLE_ID).",
  appleBadPayload: "Invalid App Store notification: the signed payload did not verify.",
  paymentsOff: "Payments are not available right now (no payment provider is configured).",
  appleOtherApp:
    "Invalid App Store notification: it is for another app (bundleId or appAppleId is not ours).",
  appleWrongEnvironment:
    "Invalid App Store notification: it comes from another App Store environment than APPLE_ENVIRONMENT.",
  localOnly:
    "Local test checkout is off: a Stripe key is configured, so payments go through Stripe.",
  sessionNotFound: "Checkout session not found.",
  sessionClosed: "This checkout session is already closed.",
  creditFailed: "Could not credit the token account yet; the event will be retried.",
  refundNotCredited:
    "The refunded purchase has not been credited yet; the notification will be retried.",
} as const;
