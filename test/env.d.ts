import type { D1Migration } from "cloudflare:test";
import type { Env as WorkerEnv } from "../workers/env";

// `env` from cloudflare:test is typed as the Worker's bindings plus what tests add.
declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      /** test/fixtures/tone.flac and its MP3 rendition, base64 (vitest.config.ts). */
      TEST_FLAC_FIXTURE: string;
      TEST_MP3_RENDITION: string;
    }
  }
}
