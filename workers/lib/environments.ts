import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { onNotFound } from "./errors";

/**
 * Where dev-only features may run: `npm run dev` (.dev.vars sets development) and the test
 * pool (vitest.config.ts sets test). Never production, which is what wrangler.toml deploys.
 * The one list for every such feature: the token grant (merch-service), the room crowd
 * entry the bench drives (room-service/room-crowd.ts, and the Room refuses it too).
 */
export const DEV_ENVIRONMENTS: readonly string[] = ["development", "test"];

export const isDevEnvironment = (env: { ENVIRONMENT?: string }): boolean =>
  DEV_ENVIRONMENTS.includes(env.ENVIRONMENT ?? "");

/** Route guard: outside a dev environment the route does not exist (the 404 of an unknown path). */
export const devOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (!isDevEnvironment(c.env)) return onNotFound(c);
  await next();
});
