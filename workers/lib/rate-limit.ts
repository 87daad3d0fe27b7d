import type { Env } from "../env";
import type { RuleName } from "./abuse-limits";
import { ApiError } from "./errors";

/**
 * The Worker's side of the abuse limits: each (rule, key) is one RateLimiter durable
 * object (durable/rate-limiter.ts), named `<rule>:<key>`. No D1 write per attempt.
 */
export interface Take {
  rule: RuleName;
  key: string;
  cost?: number;
}

const stub = (env: Env, t: Take) => env.RateLimiter.getByName(`${t.rule}:${t.key}`);

/** "N minutes" up to two hours, then "N hours": how long a refused caller waits. */
export function waitPhrase(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  if (minutes <= 120) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = Math.ceil(minutes / 60);
  return `${hours} hours`;
}

/** A 429 with `message`, and `Retry-After` in seconds. */
export const tooMany = (message: string, retryAfterSeconds: number) =>
  new ApiError(429, message, { "Retry-After": String(retryAfterSeconds) });

export interface Taken {
  /** Gives the hits of `which` (default: all) back: attempts that should not count. */
  release(which?: Take[]): Promise<void>;
  /** Forgets every hit of `which` (a success clears the failures before it). */
  reset(which: Take[]): Promise<void>;
}

/**
 * Takes a hit from every (rule, key) before the guarded work runs, or throws 429 with
 * `message(wait)` and `Retry-After` when any is full. Taking first (one atomic step in each
 * object) is what makes a limit hold under concurrency: "check, work, then record" let
 * parallel requests all pass. When one refuses, the hits the others took are given back,
 * so a refused request changes nothing. `message` gets a phrase like "3 minutes" and the
 * rule that refused.
 */
export async function takeAttempt(
  env: Env,
  takes: Take[],
  message: (wait: string, rule: RuleName) => string,
): Promise<Taken> {
  const results = await Promise.all(takes.map((t) => stub(env, t).take(t.rule, t.key, t.cost)));
  const refused = results.filter((r) => !r.ok);
  const taken = (which: Take[]) =>
    Promise.all(which.map((t) => stub(env, t).give(t.rule, t.key, t.cost))).then(() => undefined);
  if (refused.length) {
    await taken(takes.filter((_, i) => results[i].ok));
    // The longest wait names the message: the rule the caller is really waiting for.
    const i = results.reduce(
      (m, r, j) => (r.retryAfterSeconds > results[m].retryAfterSeconds ? j : m),
      0,
    );
    const wait = results[i].retryAfterSeconds;
    throw tooMany(message(waitPhrase(wait), takes[i].rule), wait);
  }
  return {
    release: (which = takes) => taken(which),
    reset: (which) =>
      Promise.all(which.map((t) => stub(env, t).reset(t.rule, t.key))).then(() => undefined),
  };
}
