import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { generateKeyPairSync } from "node:crypto";
import { defineConfig } from "vitest/config";

// A fresh RS256 key pair per run: tests never depend on .dev.vars.
const keys = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
});

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            JWT_PRIVATE_KEY: keys.privateKey,
            JWT_PUBLIC_KEY: keys.publicKey,
            SERVICE_KEY: "test-service-key",
            TRANSCODER_SECRET: "test-transcoder-secret",
            HLS_SIGNING_KEY: "test-hls-signing-key",
            ENVIRONMENT: "test",
            PUBLIC_HOST: "http://hangout.test",
          },
        },
      }),
    ],
    resolve: { alias: { "~": new URL("./app", import.meta.url).pathname } },
    test: {
      include: ["test/**/*.test.ts", "workers/**/*.test.ts", "durable/**/*.test.ts", "shared/**/*.test.ts"],
      setupFiles: ["./test/setup.ts"],
      deps: { optimizer: { ssr: { enabled: true, include: ["@remix-run/cloudflare"] } } },
    },
  };
});
