// `npm test`: every test. Runs `npm run lint` first (ESLint and Prettier's check; a lint
// failure counts as one failed test, and the suites still run so the counts stay real),
// builds the web app (the Worker imports it), runs the Worker tests (vitest in workerd)
// and the browser tests (Debian Chromium), and ends with one line `N passed, N failed`.
// `node scripts/test.mjs worker|browser` runs one suite (no lint).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { buildWebApp } from "./build-web.mjs";
import { ensureDevVars } from "./setup.mjs";

const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};
mkdirSync(".cache", { recursive: true });
ensureDevVars();
buildWebApp(env);

const suites = [
  {
    name: "worker",
    args: [
      "vitest",
      "run",
      "--reporter=default",
      "--reporter=json",
      "--outputFile.json=.cache/worker.json",
    ],
    out: ".cache/worker.json",
  },
  {
    name: "browser",
    args: [
      "vitest",
      "run",
      "--config",
      "vitest.e2e.config.ts",
      "--reporter=default",
      "--reporter=json",
      "--outputFile.json=.cache/e2e.json",
    ],
    out: ".cache/e2e.json",
  },
];
const only = process.argv[2];
let passed = 0;
let failed = 0;
if (!only) {
  const lint = spawnSync("npm", ["run", "--silent", "lint"], { stdio: "inherit", env });
  if (lint.status === 0) passed += 1;
  else failed += 1;
}
for (const s of suites) {
  if (only && only !== s.name) continue;
  rmSync(s.out, { force: true });
  const r = spawnSync("npx", s.args, { stdio: "inherit", env });
  if (existsSync(s.out)) {
    const report = JSON.parse(readFileSync(s.out, "utf8"));
    passed += report.numPassedTests;
    // A file that failed to load has no tests; count it as a failure, never as nothing.
    failed +=
      report.numFailedTests +
      (report.testResults ?? []).filter(
        (f) => f.status === "failed" && f.assertionResults.length === 0,
      ).length;
  } else {
    console.error(`${s.name} tests did not report (exit ${r.status})`);
    failed += 1;
  }
  if (r.status !== 0 && failed === 0) failed += 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
