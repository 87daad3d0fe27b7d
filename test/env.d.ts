import type { D1Migration } from "cloudflare:test";
import type { Env as WorkerEnv } from "../workers/env";

// `env` from cloudflare:test is typed as the Worker's bindings plus what tests add.
declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
