import { sql } from "drizzle-orm";
import { db } from "../db/client";
import { loginAttempts } from "../db/schema";
import type { Env } from "../env";

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

/** The window that is over its limit, with minutes until it resets; or null. */
export async function overLimit(env: Env, windows: Window[], now = Date.now()) {
  for (const w of windows) {
    const row = await db(env)
      .select({ count: loginAttempts.count })
      .from(loginAttempts)
      .where(sql`${loginAttempts.key} = ${w.key} and ${loginAttempts.windowStart} = ${windowStart(w, now)}`)
      .get();
    if (row && row.count >= w.limit) return { window: w, retryAfterMs: windowStart(w, now) + w.windowMs - now };
  }
  return null;
}

export async function recordHit(env: Env, windows: Window[], now = Date.now()) {
  await db(env).batch(
    windows.map((w) =>
      db(env)
        .insert(loginAttempts)
        .values({ key: w.key, windowStart: windowStart(w, now), count: 1 })
        .onConflictDoUpdate({ target: [loginAttempts.key, loginAttempts.windowStart], set: { count: sql`${loginAttempts.count} + 1` } }),
    ) as [never, ...never[]],
  );
}

export async function clearKey(env: Env, key: string) {
  await db(env).delete(loginAttempts).where(sql`${loginAttempts.key} = ${key}`);
}
