/**
 * RateLimiter: the abuse limits (workers/lib/abuse-limits.ts RULES), kept in durable
 * objects instead of a D1 write per attempt.
 *
 * - One object per rule and key, named `<rule>:<key>` (workers/lib/rate-limit.ts): each
 *   object is tiny and serialises only the requests that share its budget, so a flood
 *   against one key never slows another, and there is no hot shard to outgrow.
 * - A rule allows `limit` hits in any sliding `periodMs`: the object keeps the times of the
 *   last hits (at most `limit` of them), so the limit is exact, never 2x at a window edge.
 * - Every change is written to the object's SQLite storage in the same synchronous call
 *   that makes it, so an eviction or a restart forgets nothing; the in-memory copy only
 *   saves reads. Every method body is synchronous, so concurrent calls never interleave:
 *   20 parallel takes against a limit of 5 give exactly 5 `ok`.
 * - An alarm at the moment the last hit expires deletes the stored row, so idle keys cost
 *   no storage.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../workers/env";
import { isRuleName, RULES } from "../workers/lib/abuse-limits";

export interface TakeResult {
  ok: boolean;
  /** Seconds until the hit would fit (0 when ok). */
  retryAfterSeconds: number;
  /** Hits left in the window after this call. */
  remaining: number;
}

const MAX_KEY_LENGTH = 300;

function check(rule: unknown, key: unknown) {
  if (!isRuleName(rule)) throw new Error(`Unknown rate-limit rule: ${String(rule)}`);
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH)
    throw new Error(`A rate-limit key is a string of 1 to ${MAX_KEY_LENGTH} characters.`);
  return RULES[rule];
}

export class RateLimiter extends DurableObject<Env> {
  /** Hit times by `<rule>:<key>`, oldest first; mirrors the `hits` table. */
  #hits = new Map<string, number[]>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS hits (name TEXT PRIMARY KEY, times TEXT NOT NULL)`,
    );
  }

  /** The live hits of `name` (those inside the period), read from storage once. */
  #live(name: string, periodMs: number, now: number): number[] {
    let times = this.#hits.get(name);
    if (!times) {
      const row = this.ctx.storage.sql
        .exec<{ times: string }>(`SELECT times FROM hits WHERE name = ?`, name)
        .toArray()[0];
      times = row ? (JSON.parse(row.times) as number[]) : [];
    }
    times = times.filter((t) => t > now - periodMs);
    this.#hits.set(name, times);
    return times;
  }

  #save(name: string, times: number[], periodMs: number) {
    this.#hits.set(name, times);
    if (times.length === 0) {
      this.ctx.storage.sql.exec(`DELETE FROM hits WHERE name = ?`, name);
      return;
    }
    this.ctx.storage.sql.exec(
      `INSERT INTO hits (name, times) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET times = excluded.times`,
      name,
      JSON.stringify(times),
    );
    // Clean-up once every hit has expired; a later hit moves the alarm later.
    void this.ctx.storage.setAlarm(times[times.length - 1] + periodMs);
  }

  /**
   * Takes `cost` hits of `rule` for `key` if they fit in the window, else takes nothing and
   * says how long until they would.
   */
  take(rule: string, key: string, cost = 1): TakeResult {
    const { limit, periodMs } = check(rule, key);
    if (!Number.isInteger(cost) || cost < 1 || cost > limit)
      throw new Error(`cost must be an integer from 1 to ${limit}.`);
    const now = Date.now();
    const name = `${rule}:${key}`;
    const times = this.#live(name, periodMs, now);
    if (times.length + cost > limit) {
      // The hit fits once enough of the oldest hits have left the window.
      const freeAt = times[times.length + cost - limit - 1] + periodMs;
      return {
        ok: false,
        retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now) / 1000)),
        remaining: limit - times.length,
      };
    }
    const next = [...times, ...Array<number>(cost).fill(now)];
    this.#save(name, next, periodMs);
    return { ok: true, retryAfterSeconds: 0, remaining: limit - next.length };
  }

  /** Gives back the newest `cost` hits: an attempt that turned out not to count. */
  give(rule: string, key: string, cost = 1): void {
    const { periodMs } = check(rule, key);
    const name = `${rule}:${key}`;
    const times = this.#live(name, periodMs, Date.now());
    this.#save(name, times.slice(0, Math.max(0, times.length - cost)), periodMs);
  }

  /** Forgets every hit of `rule` for `key` (a successful login clears its failures). */
  reset(rule: string, key: string): void {
    const { periodMs } = check(rule, key);
    this.#save(`${rule}:${key}`, [], periodMs);
  }

  /** Hits still inside their window, without taking any (for tests and admin views). */
  peek(rule: string, key: string): number {
    const { periodMs } = check(rule, key);
    return this.#live(`${rule}:${key}`, periodMs, Date.now()).length;
  }

  /** Drops every key whose hits have all expired. */
  alarm(): void {
    const now = Date.now();
    for (const { name } of this.ctx.storage.sql
      .exec<{ name: string }>(`SELECT name FROM hits`)
      .toArray()) {
      const rule = name.slice(0, name.indexOf(":"));
      if (!isRuleName(rule)) continue;
      const { periodMs } = RULES[rule];
      this.#save(name, this.#live(name, periodMs, now), periodMs);
    }
  }
}
