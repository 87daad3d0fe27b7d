import type { Locale } from "~/i18n";
// Shapes come from the payment-service's own DTO builders (type-only imports: no server
// code reaches the browser bundle).
import type { ProductDto } from "../../workers/payment-service/product-repo";
import type { subscriptionDto } from "../../workers/payment-service/subscriptions";

export const PAYMENT_SERVICE = "/api/payment-service";
export const MERCH_SERVICE = "/api/merch-service";

export type Product = ProductDto;
export type Subscription = ReturnType<typeof subscriptionDto>;
export interface MySubscriptions {
  subscriptionLevel: string | null;
  data: Subscription[];
}
export interface CheckoutStarted {
  sessionId: string;
  url: string;
}

/** A price in the smallest unit (cents) shown in the reader's locale: 499 usd -> "$4.99". */
export function formatPrice(cents: number, currency: string, locale: Locale): string {
  try {
    return new Intl.NumberFormat(locale, {
      style: "currency",
      currency: currency.toUpperCase(),
    }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

/**
 * How a checkout came back to the page that started it: `session_id` (paid) or `canceled`;
 * null when the page was opened some other way.
 */
export function checkoutReturn(params: URLSearchParams): "paid" | "canceled" | null {
  return params.get("session_id") ? "paid" : params.get("canceled") ? "canceled" : null;
}
