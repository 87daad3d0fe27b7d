import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { execFileSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

// A fresh RS256 key pair per run: tests never depend on .dev.vars.
const keys = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
});

/**
 * App Store certificate chains for the payment tests, made fresh per run with the openssl
 * CLI (never committed): a trusted root (P-384) -> intermediate (P-384) -> leaf (P-256),
 * and a rogue chain of the same shape under another root. The tests get the trusted root
 * as APPLE_ROOT_CA_PEM, each chain as base64 DER (leaf first, like x5c) and each leaf's
 * PKCS#8 key to sign notifications with. Without openssl the Apple tests are skipped.
 */
function appleTestChains(): Record<string, string> {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
  } catch {
    return {};
  }
  const dir = mkdtempSync(join(tmpdir(), "apple-chain-"));
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const der64 = (pem: string) =>
    readFileSync(join(dir, pem), "utf8")
      .replace(/-----[^-]+-----/g, "")
      .replace(/\s+/g, "");
  try {
    writeFileSync(
      join(dir, "ca.ext"),
      "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n",
    );
    writeFileSync(
      join(dir, "leaf.ext"),
      "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n",
    );
    const chain = (tag: string) => {
      ssl("ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", `${tag}-root.key`);
      ssl(
        "req",
        "-x509",
        "-new",
        "-key",
        `${tag}-root.key`,
        "-sha384",
        "-days",
        "3650",
        "-subj",
        `/CN=${tag} Apple Root CA - Test`,
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
        "-out",
        `${tag}-root.pem`,
      );
      ssl("ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", `${tag}-int.key`);
      ssl(
        "req",
        "-new",
        "-key",
        `${tag}-int.key`,
        "-subj",
        `/CN=${tag} Apple WWDR - Test`,
        "-out",
        `${tag}-int.csr`,
      );
      ssl(
        "x509",
        "-req",
        "-in",
        `${tag}-int.csr`,
        "-CA",
        `${tag}-root.pem`,
        "-CAkey",
        `${tag}-root.key`,
        "-set_serial",
        "2",
        "-sha384",
        "-days",
        "3650",
        "-extfile",
        "ca.ext",
        "-out",
        `${tag}-int.pem`,
      );
      ssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${tag}-leaf.key`);
      ssl(
        "req",
        "-new",
        "-key",
        `${tag}-leaf.key`,
        "-subj",
        `/CN=${tag} App Store Notifications - Test`,
        "-out",
        `${tag}-leaf.csr`,
      );
      ssl(
        "x509",
        "-req",
        "-in",
        `${tag}-leaf.csr`,
        "-CA",
        `${tag}-int.pem`,
        "-CAkey",
        `${tag}-int.key`,
        "-set_serial",
        "3",
        "-sha256",
        "-days",
        "365",
        "-extfile",
        "leaf.ext",
        "-out",
        `${tag}-leaf.pem`,
      );
      ssl("pkcs8", "-topk8", "-nocrypt", "-in", `${tag}-leaf.key`, "-out", `${tag}-leaf.p8`);
      return {
        root: readFileSync(join(dir, `${tag}-root.pem`), "utf8"),
        chain: JSON.stringify([
          der64(`${tag}-leaf.pem`),
          der64(`${tag}-int.pem`),
          der64(`${tag}-root.pem`),
        ]),
        key: readFileSync(join(dir, `${tag}-leaf.p8`), "utf8"),
      };
    };
    const good = chain("Trusted");
    const rogue = chain("Rogue");
    return {
      APPLE_ROOT_CA_PEM: good.root,
      TEST_APPLE_CHAIN: good.chain,
      TEST_APPLE_LEAF_KEY: good.key,
      TEST_APPLE_ROGUE_CHAIN: rogue.chain,
      TEST_APPLE_ROGUE_KEY: rogue.key,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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
            // Payments: no STRIPE_SECRET_KEY, so the suite runs in local test mode; tests of
            // real-Stripe mode pass a key and STRIPE_API_URL per request (test/payment-helpers.ts).
            STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString("hex")}`,
            ...appleTestChains(),
          },
        },
      }),
    ],
    resolve: { alias: { "~": new URL("./app", import.meta.url).pathname } },
    test: {
      include: [
        "test/**/*.test.ts",
        "workers/**/*.test.ts",
        "durable/**/*.test.ts",
        "shared/**/*.test.ts",
      ],
      setupFiles: ["./test/setup.ts"],
      // The concurrency proofs (20 racing crate moves, 1,000 purchases) take about a second
      // alone; on a shared 2-core machine they can pass vitest's 5 s default. A hang still
      // fails, just later.
      testTimeout: 30_000,
      deps: { optimizer: { ssr: { enabled: true, include: ["@remix-run/cloudflare"] } } },
    },
  };
});
