import { nowMs } from "./now";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { ConsumableDisplayType } from "../../shared/shop";

/**
 * The token shop and payments (seed 000: token accounts, bundles, consumables, purchases;
 * seed 001: products, subscriptions). Balances are NOT here: each account's ledger lives in
 * its TokenAccount durable object (DESIGN.md "Money and points"); D1 keeps what is listed.
 * Times are epoch milliseconds.
 */
const now = nowMs;
const timestamps = {
  createdAt: integer("created_at").notNull().default(now),
  updatedAt: integer("updated_at").notNull().default(now),
};

export const PAYMENT_TYPES = ["one_time", "recurring"] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];
export const PURCHASE_STATUSES = ["held", "committed", "voided"] as const;
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number];
export const CHECKOUT_STATUSES = ["open", "complete", "expired"] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];
/**
 * A subscription's state as its source has it. `unpaid` and `paused` are Stripe's: no perks, but
 * not ended (paying or resuming makes it active again). `canceled` and `expired` are ended.
 * What grants a level is payment-service/level-rule.ts. (A plain text column: no migration.)
 */
export const SUBSCRIPTION_STATUSES = [
  "active",
  "trialing",
  "past_due",
  "unpaid",
  "paused",
  "canceled",
  "expired",
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/**
 * One token account per user. `id` (a uuid) names the TokenAccount object
 * (`env.TokenAccount.getByName(id)`); the unique user makes "one per user" race-safe.
 * `debt` is a copy of the object's (tokens a refund took back that the balance could not
 * cover), for the admin list of accounts in debt; the object writes it through an outbox
 * with its version (`debtVersion`), so an older value never replaces a newer one.
 */
export const tokenAccounts = sqliteTable(
  "token_accounts",
  {
    id: text("id").primaryKey(),
    userUuid: text("user_uuid").notNull().unique(),
    debt: integer("debt").notNull().default(0),
    debtVersion: integer("debt_version").notNull().default(0),
    ...timestamps,
  },
  (t) => [index("token_accounts_debt_idx").on(t.debt)],
);

/** A product sold for money (payment-service). A recurring product is a subscription plan. */
export const products = sqliteTable(
  "products",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description"),
    paymentType: text("payment_type").$type<PaymentType>().notNull().default("one_time"),
    /** Smallest currency unit (cents). */
    price: integer("price").notNull(),
    currency: text("currency").notNull().default("usd"),
    /** For a recurring product: the subscriptionLevel it grants (e.g. "pro"). */
    subscriptionLevel: text("subscription_level"),
    /** Stripe's price id when the product is sold through Stripe; null in local test mode. */
    stripePriceId: text("stripe_price_id"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    ...timestamps,
  },
  (t) => [index("products_type_idx").on(t.paymentType, t.createdAt)],
);

/**
 * Tokens sold as a product: completing the product's checkout credits `tokenAmount`.
 * One bundle per product (unique `product_id`): a payment names a product, so a second
 * bundle on it would make what a buyer gets ambiguous (migration 0010 kept the oldest).
 */
export const tokenBundles = sqliteTable(
  "token_bundles",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    productId: text("product_id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    tokenAmount: integer("token_amount").notNull(),
    /** R2 key of the thumbnail, if one was uploaded. */
    thumbnailKey: text("thumbnail_key"),
    ...timestamps,
  },
  (t) => [uniqueIndex("token_bundles_product_unique").on(t.productId)],
);

/** A file (image or animation) a consumable shows; stored in R2 under `consumables/<id>`. */
export const consumableFiles = sqliteTable("consumable_files", {
  id: text("id").primaryKey(),
  contentType: text("content_type").notNull(),
  size: integer("size").notNull(),
  ownerUuid: text("owner_uuid").notNull(),
  createdAt: timestamps.createdAt,
});

/** Something bought with tokens and delivered into a room (seed 000, Consumable). */
export const consumables = sqliteTable(
  "consumables",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    description: text("description"),
    tokenCost: integer("token_cost").notNull(),
    displayType: text("display_type").$type<ConsumableDisplayType>().notNull().default("small"),
    fileId: text("file_id"),
    ...timestamps,
  },
  (t) => [index("consumables_created_idx").on(t.createdAt)],
);

/**
 * One consumable purchase. `idempotencyKey` (from the client, or derived from the request)
 * is unique, so a retried request finds its first row instead of charging again. The row
 * follows the ledger: held -> committed (delivered) or voided (delivery failed).
 */
export const consumablePurchases = sqliteTable(
  "consumable_purchases",
  {
    id: text("id").primaryKey(),
    idempotencyKey: text("idempotency_key").notNull().unique(),
    accountId: text("account_id").notNull(),
    userUuid: text("user_uuid").notNull(),
    roomUuid: text("room_uuid").notNull(),
    consumableId: integer("consumable_id").notNull(),
    tokenCost: integer("token_cost").notNull(),
    status: text("status").$type<PurchaseStatus>().notNull().default("held"),
    holdId: text("hold_id"),
    ...timestamps,
  },
  (t) => [
    index("consumable_purchases_account_idx").on(t.accountId, t.createdAt),
    index("consumable_purchases_room_idx").on(t.roomUuid, t.createdAt),
  ],
);

/** A checkout started by a user (Stripe session id, or `cs_local_<uuid>` in local test mode). */
export const checkoutSessions = sqliteTable(
  "checkout_sessions",
  {
    id: text("id").primaryKey(),
    userUuid: text("user_uuid").notNull(),
    productId: text("product_id").notNull(),
    mode: text("mode").$type<"payment" | "subscription">().notNull(),
    status: text("status").$type<CheckoutStatus>().notNull().default("open"),
    /** The URL the browser is sent to (Stripe's hosted page, or the local test page). */
    url: text("url").notNull(),
    /**
     * For a bundle (mode payment): the tokens the buyer was sold, fixed when checkout
     * started. The webhook credits this, never the bundle's amount at payment time (an
     * admin may have edited it since). Null for plans, and for rows made before 0010.
     */
    tokenAmount: integer("token_amount"),
    /**
     * Stripe's payment intent of a paid bundle session, recorded when it is credited: a
     * refund or dispute names the charge's payment intent, and this finds the credit.
     */
    paymentIntentId: text("payment_intent_id"),
    completedAt: integer("completed_at"),
    ...timestamps,
  },
  (t) => [
    index("checkout_sessions_user_idx").on(t.userUuid, t.createdAt),
    uniqueIndex("checkout_sessions_payment_intent").on(t.paymentIntentId),
  ],
);

/** Webhook events already handled (Stripe event id, Apple notificationUUID): each is acted on once. */
export const paymentEvents = sqliteTable("payment_events", {
  id: text("id").primaryKey(),
  source: text("source").$type<"stripe" | "apple">().notNull(),
  type: text("type").notNull(),
  receivedAt: integer("received_at").notNull().default(now),
});

/** A user's subscription (seed 001: queried by startDate, endDate, region, level). */
export const subscriptions = sqliteTable(
  "subscriptions",
  {
    id: text("id").primaryKey(),
    userUuid: text("user_uuid").notNull(),
    productId: text("product_id"),
    level: text("level").notNull(),
    status: text("status").$type<SubscriptionStatus>().notNull(),
    region: text("region"),
    source: text("source").$type<"stripe" | "apple" | "local">().notNull(),
    /** Stripe subscription id or Apple originalTransactionId: unique per source. */
    externalId: text("external_id").notNull(),
    customerId: text("customer_id"),
    startDate: integer("start_date").notNull(),
    endDate: integer("end_date"),
    /**
     * App Store billing grace: while `past_due`, the level lasts until this (the renewal
     * info's gracePeriodExpiresDate), past endDate (the expiresDate of the period whose renewal
     * failed). endDate stays the period, which orders notifications (subscription-state.ts).
     */
    graceEndDate: integer("grace_end_date"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("subscriptions_source_external").on(t.source, t.externalId),
    index("subscriptions_user_idx").on(t.userUuid, t.startDate),
    index("subscriptions_start_idx").on(t.startDate),
  ],
);

export type TokenAccountRow = typeof tokenAccounts.$inferSelect;
export type ProductRow = typeof products.$inferSelect;
export type TokenBundleRow = typeof tokenBundles.$inferSelect;
export type ConsumableRow = typeof consumables.$inferSelect;
export type ConsumablePurchaseRow = typeof consumablePurchases.$inferSelect;
export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;
