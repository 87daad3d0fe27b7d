import type { AppleConfig } from "./apple-config";
import { verifyAppleJws } from "./apple-store";

/**
 * An App Store Server Notification v2, verified the way Apple's `SignedDataVerifier`
 * (`verifyAndDecodeNotification`, `verifyAndDecodeTransaction`, `verifyAndDecodeRenewalInfo`)
 * does, with online (OCSP) checks off:
 * - every JWS (the envelope and the nested signedTransactionInfo / signedRenewalInfo) passes
 *   verifyAppleJws: chain to our root, Apple's marker OIDs, the leaf's signature;
 * - the envelope's app (from `data`, or `summary`, `externalPurchaseToken`, `appData` for the
 *   notification types that carry those instead) has our bundleId and, in Production, our
 *   appAppleId; its environment is ours;
 * - the transaction has our bundleId and environment; the renewal info our environment.
 * All or nothing: a notification is used only when every signed part of it verified, so a
 * caller cannot act on a part that was never checked.
 */

export type AppleRefusal = "signature" | "app" | "environment";

export type VerifiedNotification =
  | {
      ok: true;
      notification: Record<string, unknown>;
      /** The decoded signedTransactionInfo, when the notification has one. */
      transaction?: Record<string, unknown>;
      /** The decoded signedRenewalInfo, when the notification has one. */
      renewalInfo?: Record<string, unknown>;
    }
  | { ok: false; refused: AppleRefusal };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

interface AppIdentity {
  bundleId: unknown;
  appAppleId: unknown;
  environment: unknown;
}

/** Where each notification type says which app and environment it is about (Apple's order). */
function identityOf(n: Obj): AppIdentity | null {
  for (const key of ["data", "summary", "externalPurchaseToken", "appData"]) {
    const part = n[key];
    if (!isObj(part)) continue;
    const { bundleId, appAppleId } = part;
    if (key !== "externalPurchaseToken")
      return { bundleId, appAppleId, environment: part.environment };
    // External purchase tokens carry no environment; Apple's ids for Sandbox ones say so.
    const sandbox =
      typeof part.externalPurchaseId === "string" && part.externalPurchaseId.startsWith("SANDBOX");
    return { bundleId, appAppleId, environment: sandbox ? "Sandbox" : "Production" };
  }
  return null;
}

function checkApp(config: AppleConfig, id: AppIdentity): AppleRefusal | null {
  // Environment first (Apple checks the app first): both refuse, but a Sandbox notification
  // sent to Production, which has no appAppleId, should say it is the wrong environment.
  if (id.environment !== config.environment) return "environment";
  if (id.bundleId !== config.bundleId) return "app";
  // Apple omits appAppleId in Sandbox, so it is compared only in Production.
  if (config.environment === "Production" && id.appAppleId !== config.appAppleId) return "app";
  return null;
}

/** A nested JWS field: absent is fine; present, it must be a string that verifies. */
async function nested(
  config: AppleConfig,
  value: unknown,
  now: number,
): Promise<Obj | undefined | null> {
  if (value === undefined) return undefined;
  if (typeof value !== "string") return null;
  return verifyAppleJws(config.rootPem, value, now);
}

export async function verifyAppleNotification(
  config: AppleConfig,
  signedPayload: string,
  now = Date.now(),
): Promise<VerifiedNotification> {
  const notification = await verifyAppleJws(config.rootPem, signedPayload, now);
  if (!notification) return { ok: false, refused: "signature" };
  const id = identityOf(notification);
  if (!id) return { ok: false, refused: "app" };
  const appRefusal = checkApp(config, id);
  if (appRefusal) return { ok: false, refused: appRefusal };

  const data = isObj(notification.data) ? notification.data : {};
  const transaction = await nested(config, data.signedTransactionInfo, now);
  if (transaction === null) return { ok: false, refused: "signature" };
  if (transaction) {
    if (transaction.environment !== config.environment)
      return { ok: false, refused: "environment" };
    if (transaction.bundleId !== config.bundleId) return { ok: false, refused: "app" };
  }
  const renewalInfo = await nested(config, data.signedRenewalInfo, now);
  if (renewalInfo === null) return { ok: false, refused: "signature" };
  if (renewalInfo && renewalInfo.environment !== config.environment)
    return { ok: false, refused: "environment" };

  return { ok: true, notification, transaction, renewalInfo };
}
