// `npm run dev`: the whole product on http://localhost:8787 — build the web app, apply the
// D1 migrations, seed demo data, make dev keys if missing, then run `wrangler dev`
// (miniflare: D1, R2, Queues and the Durable Objects all local). Edits under app/ rebuild.
import { spawn } from "node:child_process";
import { watch } from "node:fs";
import { buildWebApp } from "./build-web.mjs";
import { ensureDevVars } from "./setup.mjs";
import { migrateAndSeed, SEED_USERS } from "./seed.mjs";
import { seedDemoSongs, waitForServer } from "./seed-songs.mjs";
import { seedDemoPoints, wakeDemoRooms } from "./seed-demo.mjs";
import { startDevTranscoder } from "./transcoder.mjs";

const port = process.env.PORT ?? "8787";
const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

ensureDevVars();
const build = () => buildWebApp(env);
console.log("building the web app...");
build();
console.log("applying migrations and seeding demo data...");
migrateAndSeed({ quiet: true });
// WAV, FLAC, Ogg and M4A uploads become MP3 here (ffmpeg); without ffmpeg it says so and the
// Worker refuses those uploads with 415. A port in use only warns: MP3 uploads still work.
await startDevTranscoder()
  .then((t) =>
    console.log(`local transcoder on ${t.url} (ffmpeg ${t.ffmpeg ? "found" : "missing"})`),
  )
  .catch((err) => console.warn(`warning: the local transcoder did not start: ${err.message}`));

const wrangler = spawn(
  "npx",
  ["wrangler", "dev", "--port", port, "--ip", "0.0.0.0", "--show-interactive-dev-session=false"],
  // Its own process group: `npx` does not pass signals on to wrangler, so a stop signals the
  // whole group (else `timeout npm run dev` or a closed terminal leaves wrangler serving).
  { stdio: "inherit", env, detached: true },
);

console.log(
  `\nHangout is starting on http://localhost:${port}\n\nSeeded logins (development only):`,
);
for (const u of SEED_USERS)
  console.log(
    `  ${u.roles.includes("admin") ? "admin    " : u.roles.includes("moderator") ? "moderator" : "user     "}  ${u.email.padEnd(24)} ${u.password}`,
  );
console.log(`\nE-mails land in the dev outbox: http://localhost:${port}/dev/outbox\n`);

// Demo songs go in through the upload API once the server answers (idempotent); a failure
// only warns, the server keeps running.
const base = `http://127.0.0.1:${port}`;
waitForServer(base, { timeoutMs: 180_000, alive: () => wrangler.exitCode === null })
  .then(() => seedDemoSongs(base))
  .then((r) => {
    console.log(
      `seeded ${r.uploaded} demo songs${r.existing ? ` (${r.existing} already there)` : ""}`,
    );
    for (const s of r.notVerified)
      console.warn(`warning: demo song "${s.trackName}" is ${s.status}, not VERIFIED`);
  })
  .catch((err) => console.warn(`warning: demo songs not seeded: ${err.message}`))
  // The demo season's standings, through the points route (the board is a Durable Object).
  .then(() =>
    seedDemoPoints(
      base,
      SEED_USERS.find((u) => u.roles.includes("admin")),
    ),
  )
  .then((n) => n && console.log(`seeded the demo season's points for ${n} people`))
  .catch((err) => console.warn(`warning: demo points not seeded: ${err.message}`))
  // The demo DJs start playing now (their rooms' objects get their settings), not at the first visit.
  .then(() =>
    wakeDemoRooms(
      base,
      SEED_USERS.find((u) => u.roles.includes("admin")),
    ),
  )
  .then((n) => n && console.log(`the demo DJs are playing in ${n} rooms`))
  .catch((err) => console.warn(`warning: demo rooms not woken: ${err.message}`));

let timer;
watch(new URL("../app", import.meta.url), { recursive: true }, () => {
  clearTimeout(timer);
  timer = setTimeout(() => {
    try {
      build();
      console.log("web app rebuilt");
    } catch {
      console.error("web app build failed; fix the error and save again");
    }
  }, 300);
});
const stop = () => {
  try {
    process.kill(-wrangler.pid, "SIGINT");
  } catch {
    wrangler.kill("SIGINT"); // the group is gone already
  }
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
wrangler.on("exit", (code) => process.exit(code ?? 0));
