/**
 * The one way music adapters talk to providers (DESIGN.md, "Plumbing written once":
 * base URL and key from the environment, one retry after a token refresh).
 *
 * - Every request carries `AbortSignal.timeout(5000)`: a slow provider must not hold a
 *   search (which waits on all of them) for longer than that.
 * - A 404 is "no such track" (null), not a failure.
 * - Any other non-ok answer, a network error or a timeout is a `ProviderError`; routes turn
 *   it into "error" in a search or a 502 elsewhere, never a 500.
 */

/** Per-request time limit (ms). */
export const PROVIDER_TIMEOUT_MS = 5000;

export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    /** The provider's HTTP status; 0 for a network failure or a timeout. */
    readonly status: number,
    message: string,
  ) {
    super(`${provider}: ${message}`);
  }
}

export interface ProviderRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | URLSearchParams;
}

/**
 * A bearer-style credential that can be fetched again. `get(true)` must bypass any cache;
 * `retryOn` lists the statuses that mean "this token is stale" (Spotify: 401; SoundCloud:
 * 401 and 403, per the spec).
 */
export interface TokenSource {
  /**
   * `stale`: with `fresh`, the token the provider just refused. A source that refreshed
   * meanwhile (another request got the same refusal) answers its newer token instead of
   * fetching yet another: one refresh at a time.
   */
  get(fresh: boolean, stale?: string): Promise<string>;
  header(token: string): Record<string, string>;
  retryOn: readonly number[];
}

/** Joins a base URL from the environment and a path, tolerating a slash on either side. */
export function joinUrl(
  base: string,
  path: string,
  query?: Record<string, string | number | boolean | undefined | null>,
): string {
  const url = new URL(`${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`);
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
  return url.toString();
}

async function send(
  provider: string,
  url: string,
  init: ProviderRequest,
  extra: Record<string, string>,
): Promise<Response> {
  try {
    return await fetch(url, {
      method: init.method ?? "GET",
      headers: { Accept: "application/json", ...init.headers, ...extra },
      body: init.body,
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
  } catch (err) {
    const timedOut =
      (err as Error)?.name === "TimeoutError" || (err as Error)?.name === "AbortError";
    throw new ProviderError(
      provider,
      0,
      timedOut ? "timed out" : `unreachable (${(err as Error)?.message ?? err})`,
    );
  }
}

async function json(provider: string, res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(provider, res.status, "answered with something that is not JSON");
  }
}

/**
 * GET (or `init.method`) `url` and parse JSON. With `auth`, the token goes in the headers;
 * if the provider answers one of `auth.retryOn`, the token is fetched afresh and the call is
 * retried exactly once (a second refusal is an error, never a loop).
 * Returns null for a 404.
 */
export async function providerJson(
  provider: string,
  url: string,
  init: ProviderRequest = {},
  auth?: TokenSource,
): Promise<unknown | null> {
  const used = auth ? await auth.get(false) : "";
  let res = await send(provider, url, init, auth ? auth.header(used) : {});
  if (auth && auth.retryOn.includes(res.status)) {
    await res.body?.cancel();
    res = await send(provider, url, init, auth.header(await auth.get(true, used)));
  }
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new ProviderError(provider, res.status, `answered ${res.status}`);
  }
  return json(provider, res);
}

/**
 * Client-credentials tokens, cached per isolate in module scope (a Worker isolate serves
 * many requests; asking for a token on each would double every provider call). The key
 * includes the token URL and client id, so two configurations never share a token.
 * Concurrent callers share one in-flight request. A token is dropped a minute before it
 * expires, so a request never starts with one about to lapse.
 *
 * One refresh at a time (issue 18): when several requests get a 401 for the same token at
 * once, each asks for a fresh one naming the token refused (`stale`); the first starts the
 * refresh, the others share it, and one arriving after it finished gets its result. Only a
 * refusal of the current token starts another.
 */
interface CachedToken {
  value: Promise<string>;
  expiresAt: number;
  /** Set once the request answered. */
  token?: string;
}
const tokens = new Map<string, CachedToken>();

export function clientCredentials(
  provider: string,
  cacheKey: string,
  fetchToken: () => Promise<{ token: string; expiresIn: number }>,
) {
  return async (fresh: boolean, stale?: string): Promise<string> => {
    const hit = tokens.get(cacheKey);
    if (hit && hit.expiresAt > Date.now()) {
      if (!fresh) return hit.value;
      // Refreshing already (no token yet), or refreshed since `stale` was handed out.
      if (hit.token === undefined || (stale !== undefined && hit.token !== stale)) return hit.value;
    }
    const entry: CachedToken = { value: Promise.resolve(""), expiresAt: Number.MAX_SAFE_INTEGER };
    entry.value = fetchToken().then(
      ({ token, expiresIn }) => {
        entry.expiresAt = Date.now() + Math.max(0, expiresIn - 60) * 1000;
        entry.token = token;
        return token;
      },
      (err) => {
        // A failed token request is not cached: the next call tries again.
        if (tokens.get(cacheKey) === entry) tokens.delete(cacheKey);
        throw err instanceof ProviderError
          ? err
          : new ProviderError(
              provider,
              0,
              `token request failed (${(err as Error)?.message ?? err})`,
            );
      },
    );
    tokens.set(cacheKey, entry);
    return entry.value;
  };
}

/** Reads an OAuth token answer `{ access_token, expires_in }`, or fails as the provider's error. */
export function readToken(provider: string, body: unknown): { token: string; expiresIn: number } {
  const b = body as { access_token?: unknown; expires_in?: unknown } | null;
  if (!b || typeof b.access_token !== "string" || !b.access_token)
    throw new ProviderError(provider, 0, "token answer had no access_token");
  return {
    token: b.access_token,
    expiresIn: typeof b.expires_in === "number" ? b.expires_in : 3600,
  };
}

/** Forgets every cached token (tests, and a deploy that rotates secrets mid-isolate). */
export function clearTokenCache() {
  tokens.clear();
}
