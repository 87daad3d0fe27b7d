import { sql } from "drizzle-orm";
import { batchOf, db } from "../db/client";
import { loginAttempts } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "./errors";

/**
 * Fixed-window counters in D1. Each hit is one atomic upsert (`count = count + 1
 * RETURNING count`), so concurrent failures never lose a count; no read-modify-write.
 */
export interface Window {
  key: string;
  limit: number;
  windowMs: number;
}

const windowStart = (w: Window, now: number) => now - (now % w.windowMs);

/** Adds `delta` to each window's counter in one batch; answers the counts after the change. */
async function bump(env: Env, windows: Window[], delta: 1 | -1, now: number): Promise<number[]> {
  const d = db(env);
  const results = await d.batch(
    batchOf(
      windows.map((w) =>
        d
          .insert(loginAttempts)
          .values({ key: w.key, windowStart: windowStart(w, now), count: Math.max(delta, 0) })
          .onConflictDoUpdate({
            target: [loginAttempts.key, loginAttempts.windowStart],
            set: { count: sql`max(${loginAttempts.count} + ${delta}, 0)` },
          })
          .returning({ count: loginAttempts.count }),
      ),
    ),
  );
  return results.map((r) => r[0]?.count ?? 0);
}

/**
 * Takes one attempt from every window before the guarded work runs, or throws 429 with
 * `message(minutes)` and `Retry-After` when a window is full. Taking the slot first (one
 * atomic upsert) is what makes the limit hold under concurrency: a "count, then check the
 * password, then record the failure" sequence let 20 parallel guesses all pass a limit
 * of 5. A refused attempt gives its slot back, so only attempts that ran are counted.
 * The caller calls `release` for the windows a success should not count against.
 */
export async function takeAttempt(
  env: Env,
  windows: Window[],
  message: (minutes: number) => string,
  now = Date.now(),
) {
  const counts = await bump(env, windows, 1, now);
  const full = windows.find((w, i) => counts[i] > w.limit);
  if (full) {
    await bump(env, windows, -1, now);
    const retryAfterMs = windowStart(full, now) + full.windowMs - now;
    throw new ApiError(429, message(Math.max(1, Math.ceil(retryAfterMs / 60_000))), {
      "Retry-After": String(Math.ceil(retryAfterMs / 1000)),
    });
  }
  return {
    release: (which: Window[] = windows) =>
      which.length ? bump(env, which, -1, now).then(() => undefined) : Promise.resolve(),
  };
}

export async function clearKey(env: Env, key: string) {
  await db(env)
    .delete(loginAttempts)
    .where(sql`${loginAttempts.key} = ${key}`)
    .run();
}
