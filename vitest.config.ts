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
 * A VAPID key pair for web push, in the form scripts/setup.mjs writes: the public key as
 * the base64url uncompressed P-256 point, the private key as its base64url scalar.
 */
function vapidKeys() {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const pub = publicKey.export({ format: "jwk" });
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(pub.x!, "base64url"),
    Buffer.from(pub.y!, "base64url"),
  ]);
  return {
    VAPID_PUBLIC_KEY: point.toString("base64url"),
    VAPID_PRIVATE_KEY: privateKey.export({ format: "jwk" }).d!,
    VAPID_SUBJECT: "mailto:push@hangout.test",
  };
}

/**
 * App Store certificate chains for the payment tests, made fresh per run with the openssl
 * CLI (never committed): a trusted root (P-384) -> intermediate (P-384) -> leaf (P-256),
 * and a rogue chain of the same shape under another root. Like Apple's, each intermediate
 * carries the WWDR marker extension and each leaf the App Store marker (APPLE_*_OID in
 * workers/adapters/apple-store.ts). Two more trusted chains lack one marker each: the same
 * leaf key certified without its marker, and the same intermediate key certified without
 * its marker (so the marked leaf still verifies under it). The tests get the trusted root
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
  const CA = "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n";
  const LEAF = "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n";
  try {
    writeFileSync(join(dir, "int.ext"), `${CA}1.2.840.113635.100.6.2.1=ASN1:NULL\n`);
    writeFileSync(join(dir, "int-plain.ext"), CA);
    writeFileSync(join(dir, "leaf.ext"), `${LEAF}1.2.840.113635.100.6.11.1=ASN1:NULL\n`);
    writeFileSync(join(dir, "leaf-plain.ext"), LEAF);
    const key = (name: string, curve: string) =>
      ssl("ecparam", "-name", curve, "-genkey", "-noout", "-out", `${name}.key`);
    const csr = (name: string, cn: string) =>
      ssl("req", "-new", "-key", `${name}.key`, "-subj", `/CN=${cn}`, "-out", `${name}.csr`);
    let serial = 1;
    const issue = (csrName: string, ca: string, ext: string, out: string, sha: string) =>
      ssl(
        "x509",
        "-req",
        "-in",
        `${csrName}.csr`,
        "-CA",
        `${ca}.pem`,
        "-CAkey",
        `${ca}.key`,
        "-set_serial",
        String(++serial),
        sha,
        "-days",
        ext.startsWith("leaf") ? "365" : "3650",
        "-extfile",
        ext,
        "-out",
        `${out}.pem`,
      );
    const chain = (tag: string) => {
      key(`${tag}-root`, "secp384r1");
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
      key(`${tag}-int`, "secp384r1");
      csr(`${tag}-int`, `${tag} Apple WWDR - Test`);
      issue(`${tag}-int`, `${tag}-root`, "int.ext", `${tag}-int`, "-sha384");
      key(`${tag}-leaf`, "prime256v1");
      csr(`${tag}-leaf`, `${tag} App Store Notifications - Test`);
      issue(`${tag}-leaf`, `${tag}-int`, "leaf.ext", `${tag}-leaf`, "-sha256");
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
    issue("Trusted-leaf", "Trusted-int", "leaf-plain.ext", "plain-leaf", "-sha256");
    issue("Trusted-int", "Trusted-root", "int-plain.ext", "plain-int", "-sha384");
    const [leaf, int, root] = JSON.parse(good.chain) as string[];
    return {
      APPLE_ROOT_CA_PEM: good.root,
      TEST_APPLE_CHAIN: good.chain,
      TEST_APPLE_LEAF_KEY: good.key,
      TEST_APPLE_ROGUE_CHAIN: rogue.chain,
      TEST_APPLE_ROGUE_KEY: rogue.key,
      TEST_APPLE_CHAIN_NO_LEAF_OID: JSON.stringify([der64("plain-leaf.pem"), int, root]),
      TEST_APPLE_CHAIN_NO_INT_OID: JSON.stringify([leaf, der64("plain-int.pem"), root]),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Libraries pre-bundled once per run (vite's optimizer; cached under node_modules/.vite),
 * so each test file's isolate loads one module per library instead of hundreds of files
 * through the module runner. @remix-run/cloudflare must be here (STACK.md). Measured per
 * file on this 2-core machine (docs/DECISIONS.md, "Lazy libraries"): zod, drizzle, hono
 * and jose together about 0.3 s faster; a page-rendering file about 2 s faster (lucide-react
 * alone is ~3,900 icon files). Every entry point the code imports is listed, so no library is
 * loaded twice (pre-bundled and as files). partyserver cannot be: it imports
 * cloudflare:workers, which the optimizer cannot resolve.
 */
const PREBUNDLED = [
  "@remix-run/cloudflare",
  "zod",
  "drizzle-orm",
  "drizzle-orm/batch",
  "drizzle-orm/d1",
  "drizzle-orm/sqlite-core",
  "hono",
  "hono/body-limit",
  "hono/factory",
  "hono/http-exception",
  "hono/utils/http-status",
  "hono/validator",
  "jose",
  // Loaded on first use by the Worker (lib/lazy-module.ts); the files that do use them load faster.
  "stripe",
  "libphonenumber-js/max",
  // The Remix server build's imports, for the files that render pages.
  "react",
  "react/jsx-runtime",
  "react-dom/server",
  "@remix-run/react",
  "lucide-react",
  "isbot",
  "@dnd-kit/core",
  "@dnd-kit/sortable",
  "@dnd-kit/utilities",
];

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
            // One secret per purpose: the service key authenticates services and signs
            // nothing; tickets, HLS and the room-password index use keys derived from
            // ROOT_SECRET (workers/lib/purpose-keys.ts).
            SERVICE_KEY: "test-service-key",
            ROOT_SECRET: "test-root-secret-0123456789abcdef0123456789abcdef",
            // The transcoder is on; tests stub it at the fetch boundary (test/transcode.test.ts).
            TRANSCODER_URL: "https://transcoder.test",
            TRANSCODER_SECRET: "test-transcoder-secret",
            // Audio made with ffmpeg (test/fixtures/README.md): a FLAC, and the MP3 the local
            // transcoder makes of it, for the stubbed transcoder to hand back.
            TEST_FLAC_FIXTURE: readFileSync("test/fixtures/tone.flac").toString("base64"),
            TEST_MP3_RENDITION: readFileSync("test/fixtures/tone.mp3").toString("base64"),
            ENVIRONMENT: "test",
            PUBLIC_HOST: "http://hangout.test",
            // Payments: no STRIPE_SECRET_KEY, so the suite runs in local test mode; tests of
            // real-Stripe mode pass a key and STRIPE_API_URL per request (test/payment-helpers.ts).
            STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString("hex")}`,
            ...appleTestChains(),
            // Web push is on in the suite (FCM and APNs are off unless a test passes keys).
            ...vapidKeys(),
            // The app the suite's App Store notifications are for (workers/adapters/apple-config.ts);
            // APPLE_ENVIRONMENT is unset, so Production, the default.
            APPLE_BUNDLE_ID: "com.hangout",
            APPLE_APP_APPLE_ID: "1234567890",
            // Demo DJs (durable/room/demo-dj.ts) in the rooms test/room-demo-dj.test.ts names.
            DEMO_DJS: [
              "demo-room-a:00000000-0000-4000-8000-00000000d0d1",
              "demo-room-b:00000000-0000-4000-8000-00000000d0d1",
              "demo-room-c:00000000-0000-4000-8000-00000000d0d2",
            ].join(","),
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
      deps: { optimizer: { ssr: { enabled: true, include: PREBUNDLED } } },
    },
  };
});
