import { foldName } from "../../shared/songs";
import type { MusicAdapter, SearchPage, SearchParams } from "../adapters/music";
import type { Env } from "../env";
import { ApiError } from "../lib/errors";
import { takeAttempt } from "../lib/rate-limit";

/**
 * Search answers within a total budget (issue 18): every provider is asked at once and the
 * answer goes out when all have answered or the budget is spent, whichever is first. A
 * provider still busy then is "late": its results are dropped and the answer says so
 * (`partial: true`). Its request runs on until its own timeout and is ignored.
 */
export const SEARCH_BUDGET_MS = 2500;

export const searchBudgetMs = (env: Env) => {
  const n = Number(env.SEARCH_BUDGET_MS);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 10_000) : SEARCH_BUDGET_MS;
};

export const LATE = Symbol("late");

/** One budget for a whole search: every provider races the same deadline. */
export function deadline(ms: number): { late: Promise<typeof LATE>; clear(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms);
  });
  return { late, clear: () => clearTimeout(timer) };
}

/**
 * YouTube's search.list costs 100 of the default 10,000 daily quota units, so its answers
 * are cached per normalised query (NFKC, case and spacing folded) for CACHE_TTL_S in the
 * Workers cache (a short TTL: search results age), and calls that miss the cache spend
 * the service-wide `youtubeSearchPerDay` budget; past it, search answers without YouTube
 * ("off") instead of exhausting the quota video lookups need. The Cache API is per data
 * centre and a no-op on workers.dev, which only costs quota, never correctness.
 */
export const CACHE_TTL_S = 600;
/**
 * The providers cached and budgeted, with what names their configuration: the quota
 * belongs to the API key (its Google project), so the cache and the day's budget are per
 * key and URL (hashed: a secret never names a cache entry or a limiter).
 */
const CACHED: Partial<Record<string, (env: Env) => string>> = {
  youtube: (env) => `${env.YOUTUBE_API_URL}|${env.YOUTUBE_API_KEY}`,
};

export const normaliseQuery = (q: string) => foldName(q).replace(/\s+/g, " ");

async function configTag(config: string): Promise<string> {
  const h = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(config));
  return [...new Uint8Array(h).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function cacheKey(adapter: MusicAdapter, config: string, p: SearchParams): Request {
  const u = new URL(`https://search-cache.hangout.internal/${adapter.key}/${config}`);
  u.searchParams.set("q", normaliseQuery(p.q));
  for (const k of ["offset", "limit", "explicit", "country"] as const)
    u.searchParams.set(k, String(p[k]));
  return new Request(u);
}

/** Why a cached provider was not asked: its daily budget is spent. */
export class BudgetSpent extends Error {}

/** The provider's page, from the cache for the costly ones. */
export async function cachedSearch(
  env: Env,
  adapter: MusicAdapter,
  p: SearchParams,
): Promise<SearchPage> {
  const configOf = CACHED[adapter.key];
  if (!configOf) return adapter.search(env, p);
  const config = await configTag(configOf(env));
  const key = cacheKey(adapter, config, p);
  const cache = await caches.open("provider-search");
  const hit = await cache.match(key);
  if (hit) return (await hit.json()) as SearchPage;
  try {
    await takeAttempt(env, [{ rule: "youtubeSearchPerDay", key: config }], () => "budget spent");
  } catch (err) {
    if (err instanceof ApiError && err.status === 429)
      throw new BudgetSpent(`${adapter.name} search budget for today is spent`);
    throw err;
  }
  const page = await adapter.search(env, p);
  await cache.put(
    key,
    Response.json(page, { headers: { "Cache-Control": `public, max-age=${CACHE_TTL_S}` } }),
  );
  return page;
}
