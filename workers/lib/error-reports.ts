import type { Context } from "hono";
import { db } from "../db/client";
import { errorReports } from "../db/schema";
import type { AppEnv } from "../env";

/**
 * The error-reporting path: an unexpected error (one that becomes a 500) is recorded in D1
 * (`error_reports`) after the response, through the execution context's `waitUntil`.
 * Recording must never change what the client gets: every step here swallows its own
 * failure (no execution context, D1 down, an error that cannot be stringified).
 */
const MAX_MESSAGE = 2000;
const MAX_STACK = 8000;

export function reportError(c: Context, err: unknown): void {
  try {
    const env = (c as Context<AppEnv>).env;
    if (!env?.DB) return;
    const url = new URL(c.req.url);
    const service = url.pathname.match(/^\/api\/([a-z-]+)\//)?.[1] ?? "worker";
    const e = err instanceof Error ? err : new Error(String(err));
    const who = (c as Context<AppEnv>).get("caller");
    const write = db(env)
      .insert(errorReports)
      .values({
        id: crypto.randomUUID(),
        service,
        message: `${e.name}: ${e.message}`.slice(0, MAX_MESSAGE),
        stack: e.stack?.slice(0, MAX_STACK) ?? null,
        path: `${c.req.method} ${url.pathname}`.slice(0, 500),
        userUuid: who?.uuid ?? null,
      })
      .run()
      .catch((failure) => console.error("error report not recorded", failure));
    c.executionCtx.waitUntil(write);
  } catch {
    // No execution context (a unit test calling app.request) or a malformed request: skip.
  }
}
