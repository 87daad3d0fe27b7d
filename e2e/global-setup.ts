import { spawn, execSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import type { TestProject } from "vitest/node";
import { ensureDevVars } from "../scripts/setup.mjs";
import { migrateAndSeed } from "../scripts/seed.mjs";
import { seedDemoSongs } from "../scripts/seed-songs.mjs";
import type { Server } from "node:http";
import { startOAuthStub, stubVars } from "./oauth-stub";
import { randomBytes } from "node:crypto";
import { hasFfmpeg, startTranscoder } from "../scripts/transcoder.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    baseURL: string;
    /** The OAuth stand-in's base URL (e2e/oauth-stub.ts). */
    oauthStubURL: string;
  }
}

/** Debian's Chromium is the browser (never a downloaded one); install it if missing. */
function ensureChromium() {
  if (existsSync("/usr/bin/chromium")) return;
  console.log("installing Debian chromium for the browser tests...");
  execSync("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium", {
    stdio: "inherit",
  });
}

/** Debian's ffmpeg is the local transcoder's engine (e2e/upload-formats.e2e.ts); install it if missing. */
function ensureFfmpeg() {
  if (hasFfmpeg()) return;
  console.log("installing Debian ffmpeg for the local transcoder...");
  execSync(
    "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg",
    {
      stdio: "inherit",
    },
  );
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });

let server: ChildProcess | undefined;
let oauthStub: Server | undefined;
let transcoder: { close: () => Promise<void> } | undefined;

export default async function setup(project: TestProject) {
  ensureChromium();
  ensureFfmpeg();
  ensureDevVars();
  const state = `.e2e/state-${process.pid}`;
  rmSync(state, { recursive: true, force: true });
  mkdirSync(state, { recursive: true });
  migrateAndSeed({ persistTo: state, quiet: true });
  const port = await freePort();
  // Discord's OAuth endpoints, stood in for (e2e/oauth-stub.ts): the dev server is pointed at
  // them with --var, so the Connected accounts page links Discord for real in Chromium.
  const stubPort = await freePort();
  oauthStub = await startOAuthStub(stubPort);
  // The local transcoder (ffmpeg), as `npm run dev` runs it, with this run's own secret.
  const transcoderSecret = randomBytes(24).toString("hex");
  const local = await startTranscoder({ port: await freePort(), secret: transcoderSecret });
  transcoder = local;
  server = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
      "--var",
      ...stubVars(stubPort),
      `TRANSCODER_URL:${local.url}`,
      `TRANSCODER_SECRET:${transcoderSecret}`,
    ],
    {
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  let log = "";
  server.stdout?.on("data", (d) => (log += d));
  server.stderr?.on("data", (d) => (log += d));
  const baseURL = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      const res = await fetch(`${baseURL}/api/user-service/info-admin/user-service-status`);
      if (res.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline || server.exitCode !== null)
      throw new Error(`wrangler dev did not start:\n${log.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  // The demo songs, through the real upload API: the browser tests play and search them.
  try {
    const seeded = await seedDemoSongs(baseURL);
    const bad = seeded.notVerified.map((s) => `"${s.trackName}" is ${s.status}`);
    if (bad.length) throw new Error(`demo songs are not VERIFIED: ${bad.join(", ")}`);
  } catch (err) {
    try {
      if (server?.pid) process.kill(-server.pid, "SIGTERM");
    } catch {
      /* already gone */
    }
    rmSync(state, { recursive: true, force: true });
    throw new Error(
      `e2e setup: seeding the demo songs failed: ${(err as Error).message}\nwrangler dev log (tail):\n${log.slice(-2000)}`,
    );
  }
  project.provide("baseURL", baseURL);
  project.provide("oauthStubURL", `http://127.0.0.1:${stubPort}`);
  return async () => {
    if (server?.pid) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {
        /* already gone */
      }
    }
    oauthStub?.close();
    await transcoder?.close();
    rmSync(state, { recursive: true, force: true });
  };
}
