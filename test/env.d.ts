import type { D1Migration } from "cloudflare:test";
import type { Env } from "../workers/env";

declare global {
  namespace Cloudflare {
    interface Env extends import("../workers/env").Env {
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
declare module "cloudflare:test" {
  interface ProvidedEnv extends Env {
    TEST_MIGRATIONS: D1Migration[];
  }
}
