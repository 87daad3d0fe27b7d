import { Hono } from "hono";
import type { AppEnv } from "../env";
import { requireAdmin } from "../lib/auth";

/**
 * POST /sentry-testing (admin): raises an unexpected error on purpose, so an admin can see
 * the error-reporting path record it (`error_reports`) and the client get the usual 500
 * body. The one route that answers 500 by design; a plain user gets 403, no token 401.
 */
export const sentryTestingRoutes = new Hono<AppEnv>();

export class SentryTestError extends Error {
  override name = "SentryTestError";
}

sentryTestingRoutes.post("/sentry-testing", requireAdmin, () => {
  throw new SentryTestError("Sentry test error raised on purpose.");
});
