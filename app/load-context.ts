import type { Env } from "../workers/env";

/** What every Remix loader and action receives (typed once here). */
declare module "@remix-run/cloudflare" {
  interface AppLoadContext {
    env: Env;
    ctx: ExecutionContext;
    /** Call the gateway in-process: same routes, same validation, no network hop. */
    api: (path: string, init?: RequestInit) => Promise<Response>;
  }
}
export {};
