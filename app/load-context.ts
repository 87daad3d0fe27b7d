import type { Env } from "../workers/env";

/** What every Remix loader and action receives (typed once here). */
declare module "@remix-run/cloudflare" {
  interface AppLoadContext {
    env: Env;
    ctx: ExecutionContext;
    /** This response's Content-Security-Policy nonce (workers/security-headers.ts). */
    cspNonce: string;
    /**
     * A minutes-long token standing for this request's session cookie, null when signed out
     * (workers/lib/web-sessions.ts). For the API calls loaders and actions make; never put
     * it in what a page returns.
     */
    webToken: string | null;
    /** Call the gateway in-process: same routes, same validation, no network hop. */
    api: (path: string, init?: RequestInit) => Promise<Response>;
  }
}
export {};
