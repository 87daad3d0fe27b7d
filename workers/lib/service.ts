import { mailMode } from "../adapters/email";
import { sql } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { db } from "../db/client";
import type { AppEnv, Env } from "../env";
import { authenticate, ghostReadOnly } from "./auth";
import { onError, onNotFound } from "./errors";

/** Name and version of each service behind the gateway (DESIGN.md, "Gateway paths"). */
export const SERVICES = {
  "user-service": "1.8.1",
  "room-service": "1.4.2",
  "merch-service": "1.0.0",
  "upload-service": "1.0.0",
  "audit-service": "1.0.0",
  "social-service": "1.0.0",
  "payment-service": "1.0.0",
  "playlist-service": "1.0.0",
} as const;
export type ServiceName = keyof typeof SERVICES;

/**
 * A service's Hono app with the plumbing every service shares: the error body, the JSON
 * 404 for unknown paths, bearer-token authentication, ghosts kept to reading, and the public health check
 * `GET /info-admin/<service>-status` (`extra` adds a service's own fields to it, e.g. which
 * push channels are on; they never make it unhealthy), also served at the service's root `GET /`.
 */
export function serviceApp(name: ServiceName, extra?: (env: Env) => Record<string, unknown>) {
  const app = new Hono<AppEnv>();
  app.onError(onError);
  app.notFound(onNotFound);
  app.use(authenticate);
  app.use(ghostReadOnly);
  // The service's root answers the same health check (the seeds name `GET /` for the
  // social-service; every service keeps one shape for it).
  const status = async (c: Context<AppEnv>) => {
    // A cheap read proves the database answers; a failure is a 503, not a 500.
    const dbOk = await db(c.env)
      .run(sql`select 1`)
      .then(
        () => true,
        () => false,
      );
    // No mail provider outside development: codes and reset links cannot reach anyone, so
    // the deploy is not healthy (adapters/email.ts `mailMode`); it says why.
    const mail = mailMode(c.env);
    const ok = dbOk && mail !== "off";
    return c.json(
      {
        service: name,
        version: SERVICES[name],
        status: ok ? "ok" : "degraded",
        database: dbOk ? "ok" : "unavailable",
        mail: mail === "off" ? "not configured: set EMAIL_API_URL" : mail,
        ...extra?.(c.env),
      },
      ok ? 200 : 503,
    );
  };
  app.get(`/info-admin/${name}-status`, status);
  app.get("/", status);
  return app;
}
