// Our hand-written parsers against the libraries issue 18 names, in workerd (Miniflare), on
// a 50 MB upload made inside the Worker as a stream of ~64 KB chunks (bench/parsers/):
// multipart (workers/lib/multipart-stream.ts vs @remix-run/multipart-parser), MPEG frames
// (workers/songs/mp3.ts's indexer vs codec-parser) and tags (the same indexer vs
// music-metadata, asked for the duration too, which is what an upload needs). Each task runs
// in a fresh Miniflare (its own workerd process), so its CPU time (from /proc) and peak
// resident memory (VmHWM) are its own; the "baseline" task (make and read the body only) is
// subtracted. BENCH_MB and BENCH_ROUNDS override the size and the rounds.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MB = Number(process.env.BENCH_MB ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const TASKS = [
  "baseline",
  "multipart-ours",
  "multipart-remix",
  "frames-ours",
  "frames-codec-parser",
  "tags-music-metadata",
];
const HZ = 100;

/**
 * music-metadata's file-type dependency keeps a Node-only `import(specifier)` with a
 * variable specifier, which Miniflare (so `wrangler dev` and the test pool) refuses to load.
 * The bench turns it into a throw; the app would have to do the same to adopt it.
 */
const noRuntimeImport = {
  name: "no-runtime-import",
  setup(b) {
    b.onLoad({ filter: /file-type[\\/]source[\\/]index\.js$/ }, (args) => ({
      contents: readFileSync(args.path, "utf8").replace(
        /return import\(\s*(\/\*[^*]*\*\/\s*)*specifier\s*\)/,
        'throw new Error("no runtime import in workerd: " + specifier)',
      ),
      loader: "js",
    }));
  },
};

/** music-metadata logs through `debug`, whose Node build requires "tty": a silent one instead. */
const quietDebug = {
  name: "quiet-debug",
  setup(b) {
    b.onResolve({ filter: /^debug$/ }, () => ({ path: "debug", namespace: "quiet-debug" }));
    b.onLoad({ filter: /.*/, namespace: "quiet-debug" }, () => ({
      contents:
        "const make = () => { const d = () => {}; d.enabled = false; d.extend = make; return d; }; export default make;",
      loader: "js",
    }));
  },
};

async function bundle() {
  const out = await build({
    entryPoints: [`${ROOT}bench/parsers/worker.ts`],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    plugins: [noRuntimeImport, quietDebug],
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0].text;
}

const statOf = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
};
function isOurs(pid) {
  for (let p = pid, i = 0; p > 1 && i < 10; i++) {
    if (p === process.pid) return true;
    try {
      p = Number(statOf(p)[1]);
    } catch {
      return false;
    }
  }
  return false;
}
/** Our workerd processes: CPU seconds and the largest peak RSS (MB). */
function workerd() {
  let pids = [];
  try {
    pids = execFileSync("pgrep", ["-f", "workerd"], { encoding: "utf8" }).trim().split("\n");
  } catch {
    return { cpu: 0, peakMb: 0 };
  }
  let cpu = 0;
  let peakMb = 0;
  for (const pid of pids.map(Number)) {
    try {
      if (!isOurs(pid)) continue;
      const f = statOf(pid);
      cpu += (Number(f[11]) + Number(f[12])) / HZ;
      const hwm = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmHWM:\s+(\d+) kB/);
      if (hwm) peakMb = Math.max(peakMb, Number(hwm[1]) / 1024);
    } catch {
      /* gone */
    }
  }
  return { cpu, peakMb };
}

async function runTask(script, task) {
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2025-04-01",
    compatibilityFlags: ["nodejs_compat"],
  });
  try {
    await mf.ready;
    const before = workerd();
    const res = await mf.dispatchFetch(`http://bench/?task=${task}&bytes=${MB * 1024 * 1024}`);
    const found = await res.json();
    const after = workerd();
    return { task, ok: res.ok, found, cpu: after.cpu - before.cpu, peakMb: after.peakMb };
  } finally {
    await mf.dispose();
  }
}

export default async function run({ log }) {
  const script = await bundle();
  const runs = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const task of TASKS) {
      const r = await runTask(script, task);
      runs.push(r);
      log(
        `round ${round + 1} ${task.padEnd(20)} ${r.cpu.toFixed(2)} s CPU, peak RSS ${r.peakMb.toFixed(0)} MB ${JSON.stringify(r.found)}`,
      );
    }
  const mean = (task, k) => {
    const rs = runs.filter((r) => r.task === task);
    return rs.reduce((t, r) => t + r[k], 0) / rs.length;
  };
  const base = { cpu: mean("baseline", "cpu"), peakMb: mean("baseline", "peakMb") };
  const table = Object.fromEntries(
    TASKS.filter((t) => t !== "baseline").map((t) => [
      t,
      {
        cpuSeconds: Math.max(0, mean(t, "cpu") - base.cpu),
        extraPeakMb: Math.max(0, mean(t, "peakMb") - base.peakMb),
        found: runs.find((r) => r.task === t).found,
      },
    ]),
  );
  log(
    `\n${MB} MB upload, ${ROUNDS} rounds; baseline ${base.cpu.toFixed(2)} s CPU, ${base.peakMb.toFixed(0)} MB`,
  );
  log("task                 | CPU s over baseline | peak RSS over baseline (MB)");
  for (const [t, m] of Object.entries(table))
    log(
      `${t.padEnd(20)} | ${m.cpuSeconds.toFixed(2).padStart(19)} | ${m.extraPeakMb.toFixed(0).padStart(27)}`,
    );
  const ratio = (a, b) =>
    Math.round((table[a].cpuSeconds / Math.max(table[b].cpuSeconds, 0.01)) * 10) / 10;
  const ratios = {
    multipartRemixOverOurs: ratio("multipart-remix", "multipart-ours"),
    codecParserOverOurs: ratio("frames-codec-parser", "frames-ours"),
    musicMetadataOverOurs: ratio("tags-music-metadata", "frames-ours"),
  };
  log(`CPU ratios (library / ours): ${JSON.stringify(ratios)}`);
  return { mb: MB, rounds: ROUNDS, baseline: base, table, ratios, runs };
}
