import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { appleConfig } from "../adapters/apple-config";
import { verifyAppleNotification, type AppleRefusal } from "../adapters/apple-signed-data";
import { db } from "../db/client";
import { users } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { ApiError, badRequest } from "../lib/errors";
import { valid } from "../lib/validate";
import { APPLE_REFUND_TYPES, appleRefund, type AppleRefundType } from "./apple-refund";
import { appleSubscriptionState } from "./apple-subscription";
import { applySubscription, creditBundle, eventSeen, recordEvent } from "./fulfil";
import { MSG } from "./messages";
import { findProduct } from "./product-repo";

/**
 * POST /webhook/apple: App Store Server Notifications v2. Nothing is read from the payload
 * before it verifies as Apple's SignedDataVerifier would verify it (adapters/apple-signed-data.ts):
 * the chain to APPLE_ROOT_CA_PEM with Apple's marker OIDs, our bundle id and app id, our
 * environment (APPLE_ENVIRONMENT), and the same for the nested transaction and renewal info.
 * A notification failing any check is 400 and changes nothing.
 *
 * Mapping: the transaction's `appAccountToken` is our user uuid (the app sets it at
 * purchase); its `productId` is our product's id (admins give App Store products their
 * App Store identifier as id). Handled:
 * - subscriptions (keyed by originalTransactionId): the state the transaction says
 *   (apple-subscription.ts), written only if it is not older than the row's: a DID_RENEW
 *   replayed after EXPIRED changes nothing, a renewal with a later expiresDate does.
 * - ONE_TIME_CHARGE: the product's bundle is credited once (key `apple:<transactionId>`).
 * - REFUND, REVOKE (REFUND_REVERSED) of a product that is not a plan: the bundle's credit is
 *   taken back once, spent tokens becoming debt (given back once), in apple-refund.ts.
 * Each notification is acted on once (notificationUUID in payment_events).
 */
export const appleWebhookRoutes = new Hono<AppEnv>();

const body = z.object({
  signedPayload: z
    .string({ error: "signedPayload must be a string" })
    .min(1, "signedPayload is required")
    .max(64_000, "signedPayload is too long"),
});

const notification = z.object({
  notificationType: z.string(),
  subtype: z.string().optional(),
  notificationUUID: z.string().min(1).max(100),
  data: z
    .object({ signedTransactionInfo: z.string().max(64_000).optional() })
    .loose()
    .optional(),
});

const transaction = z.object({
  transactionId: z.string().min(1).max(100),
  originalTransactionId: z.string().min(1).max(100),
  productId: z.string().min(1).max(100),
  purchaseDate: z.number().optional(),
  originalPurchaseDate: z.number().optional(),
  expiresDate: z.number().optional(),
  revocationDate: z.number().optional(),
  appAccountToken: z.string().optional(),
  storefront: z.string().max(3).optional(),
});

/** The renewal info's fields we read (verified with the envelope). */
const renewalInfo = z.object({ gracePeriodExpiresDate: z.number().int().optional() });

type Outcome = { handled: boolean; effect: string };

async function apply(
  env: Env,
  type: string,
  subtype: string | undefined,
  tx: z.infer<typeof transaction>,
  renewal: z.infer<typeof renewalInfo>,
): Promise<Outcome> {
  const userUuid =
    tx.appAccountToken && z.uuid().safeParse(tx.appAccountToken).success
      ? tx.appAccountToken.toLowerCase()
      : null;
  const user = userUuid
    ? await db(env).select({ uuid: users.uuid }).from(users).where(eq(users.uuid, userUuid)).get()
    : undefined;
  if (!user) return { handled: false, effect: "no known user (appAccountToken)" };
  const product = await findProduct(env, tx.productId);
  // A refund of anything but a plan looks for the tokens it credited, even if the product
  // has been deleted since.
  if (APPLE_REFUND_TYPES.includes(type) && !product?.subscriptionLevel)
    return appleRefund(env, type as AppleRefundType, user.uuid, tx.productId, tx);
  if (!product) return { handled: false, effect: "unknown product" };

  if (type === "ONE_TIME_CHARGE") {
    const credit = await creditBundle(
      env,
      user.uuid,
      product.id,
      `apple:${tx.transactionId}`,
      `App Store ${tx.transactionId}`,
    );
    if (credit.kind === "failed") throw new ApiError(503, MSG.creditFailed);
    return { handled: credit.kind === "credited", effect: credit.kind };
  }
  const state = appleSubscriptionState(type, subtype, tx, renewal);
  if (!state) return { handled: false, effect: `notification type ${type} is not used` };
  if (!product.subscriptionLevel) return { handled: false, effect: "product is not a plan" };
  const row = await applySubscription(env, {
    source: "apple",
    externalId: tx.originalTransactionId,
    userUuid: user.uuid,
    productId: product.id,
    level: product.subscriptionLevel,
    status: state.status,
    region: tx.storefront?.toUpperCase() ?? null,
    startDate: tx.originalPurchaseDate ?? tx.purchaseDate ?? Date.now(),
    endDate: state.endDate,
    graceEndDate: state.graceEndDate,
  });
  return row
    ? { handled: true, effect: `subscription_${state.status}` }
    : { handled: false, effect: "older than the subscription's recorded state" };
}

const refusal: Record<AppleRefusal, string> = {
  signature: MSG.appleBadPayload,
  app: MSG.appleOtherApp,
  environment: MSG.appleWrongEnvironment,
};

appleWebhookRoutes.post("/webhook/apple", valid("json", body), async (c) => {
  const apple = appleConfig(c.env);
  if (!apple) throw new ApiError(503, MSG.appleNotConfigured);
  const signed = await verifyAppleNotification(apple, c.req.valid("json").signedPayload);
  if (!signed.ok) throw badRequest(refusal[signed.refused]);
  const payload = notification.safeParse(signed.notification);
  if (!payload.success) throw badRequest(MSG.appleBadPayload);
  const n = payload.data;
  if (await eventSeen(c.env, n.notificationUUID))
    return c.json({ received: true, duplicate: true });

  let outcome: Outcome = { handled: false, effect: "no transaction" };
  if (signed.transaction) {
    // Verified with the envelope (signature, app, environment) before any of it is used.
    const tx = transaction.safeParse(signed.transaction);
    const renewal = renewalInfo.safeParse(signed.renewalInfo ?? {});
    if (!tx.success || !renewal.success) throw badRequest(MSG.appleBadPayload);
    outcome = await apply(c.env, n.notificationType, n.subtype, tx.data, renewal.data);
  }
  await recordEvent(c.env, n.notificationUUID, "apple", n.notificationType);
  return c.json({ received: true, duplicate: false, outcome });
});
