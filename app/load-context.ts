import type { Env } from "../workers/env";

/** What every Remix loader and action receives (typed once here). */
declare module "@remix-run/cloudflare" {
  interface AppLoadContext {
    env: Env;
    ctx: ExecutionContext;
    /** This response's Content-Security-Policy nonce (workers/security-headers.ts). */
    cspNonce: string;
    /** Call the gateway in-process: same routes, same validation, no network hop. */
    api: (path: string, init?: RequestInit) => Promise<Response>;
  }
}
export {};
