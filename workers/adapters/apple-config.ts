import { z } from "zod";
import type { Env } from "../env";

/**
 * Which App Store data this server accepts, read from the env (README, docs/DECISIONS.md
 * "Payments"). The same settings Apple's `SignedDataVerifier` is built with:
 * - APPLE_ROOT_CA_PEM: the trusted root (Apple Root CA - G3 in production).
 * - APPLE_BUNDLE_ID: our app's bundle id; another app's data is refused.
 * - APPLE_ENVIRONMENT: "Production" (the default) or "Sandbox"; data from the other
 *   environment is refused, so a Sandbox or TestFlight purchase never credits real tokens.
 * - APPLE_APP_APPLE_ID: our app's numeric App Store id; required in Production (Apple's
 *   library refuses to be built without it), unused in Sandbox, where Apple omits it.
 * Anything missing or malformed turns the webhook off (null: 503), never "accept anything".
 */

export const appleEnvironment = z.enum(["Production", "Sandbox"]);
export type AppleEnvironment = z.infer<typeof appleEnvironment>;

/** An empty value in .dev.vars or the dashboard means unset. */
const setting = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" || v === null ? undefined : v), schema);

const schema = z
  .object({
    APPLE_ROOT_CA_PEM: setting(z.string().includes("BEGIN CERTIFICATE")),
    APPLE_BUNDLE_ID: setting(z.string().trim().min(1).max(155)),
    // A wrangler [vars] number arrives as a number, a secret as a string.
    APPLE_APP_APPLE_ID: setting(
      z.coerce
        .string()
        .regex(/^[1-9]\d{0,15}$/)
        .transform(Number)
        .optional(),
    ),
    APPLE_ENVIRONMENT: setting(appleEnvironment.default("Production")),
  })
  .refine((c) => c.APPLE_ENVIRONMENT !== "Production" || c.APPLE_APP_APPLE_ID !== undefined);

export interface AppleConfig {
  rootPem: string;
  bundleId: string;
  /** Set whenever `environment` is Production. */
  appAppleId?: number;
  environment: AppleEnvironment;
}

export function appleConfig(env: Env): AppleConfig | null {
  const r = schema.safeParse(env);
  if (!r.success) return null;
  return {
    rootPem: r.data.APPLE_ROOT_CA_PEM,
    bundleId: r.data.APPLE_BUNDLE_ID,
    appAppleId: r.data.APPLE_APP_APPLE_ID,
    environment: r.data.APPLE_ENVIRONMENT,
  };
}
