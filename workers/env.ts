import type { Room } from "../durable/room";
import type { TokenAccount } from "../durable/token-account";
import type { Leaderboard } from "../durable/leaderboard";
import type { NotificationMessage } from "./queues/notifications";
import type { AuditMessage } from "./queues/audit";

/**
 * Every binding and variable the Worker sees. The names match wrangler.toml; the secrets
 * come from `.dev.vars` locally (made by scripts/setup.mjs) and `wrangler secret put` in
 * production (README.md lists them).
 */
export interface Env {
  DB: D1Database;
  UPLOADS: R2Bucket;
  NOTIFICATIONS: Queue<NotificationMessage>;
  AUDIT: Queue<AuditMessage>;
  Room: DurableObjectNamespace<Room>;
  TokenAccount: DurableObjectNamespace<TokenAccount>;
  Leaderboard: DurableObjectNamespace<Leaderboard>;
  /** "development" turns on the dev outbox and dev-only pages. */
  ENVIRONMENT: string;
  /** Where links in e-mails point (the web app's origin); unset: the request's origin. */
  PUBLIC_HOST?: string;
  /** RS256 key pair for JWTs, PEM (PKCS#8 private, SPKI public). */
  JWT_PRIVATE_KEY: string;
  JWT_PUBLIC_KEY: string;
  /** Shared secret for service-to-service calls (`X-Service-Key`). */
  SERVICE_KEY?: string;
  /** E-mail provider (an HTTP API taking JSON); unset means the dev outbox. */
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
  EMAIL_FROM?: string;
}

/** The Hono environment every service app shares. */
export type AppEnv = {
  Bindings: Env;
  Variables: { caller?: import("./lib/auth").Caller };
};
