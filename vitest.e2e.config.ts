import { defineConfig } from "vitest/config";

// Browser tests: a real `wrangler dev` (miniflare: D1, R2, Queues, DOs) started once by
// e2e/global-setup.ts, driven through Debian Chromium with playwright-core.
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.ts"],
    environment: "node",
    globalSetup: ["./e2e/global-setup.ts"],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
