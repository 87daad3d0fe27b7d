// The segment cache (issue 18, workers/upload-service/segment-cache.ts): 1,000 listeners
// of one room fetching the same song's HLS segments, with the cache off (every segment
// costs a D1 read, an R2 range read and AES) and on, in the same run. Each mode gets its
// own Miniflare (its own workerd process, a cold cache) running the app's own HLS routes
// over a real D1, R2 and Cache API; the modes alternate (off, on, off, on) so whatever else
// the machine is doing hits both alike. Measured: R2 reads (counted at the binding), cache
// misses (the x-segment-cache header), and the workerd process's CPU time from /proc.
// BENCH_LISTENERS, BENCH_SEGMENTS (segments of the song each listener fetches), BENCH_ROUNDS
// and BENCH_CONCURRENCY override the defaults.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LISTENERS = Number(process.env.BENCH_LISTENERS ?? 1000);
const SEGMENTS = Number(process.env.BENCH_SEGMENTS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SONG_SECONDS = 240;
// A room plays segments of ~6 s: 1,000 listeners ask for ~167 segments a second between them.
const SEGMENT_SECONDS = 6;
const HZ = 100; // /proc/<pid>/stat clock ticks (USER_HZ)

const FRAME = 417; // MPEG-1 Layer III, 128 kbps, 44.1 kHz
const FRAME_SECONDS = 1152 / 44100;

async function bundle() {
  const out = await build({
    entryPoints: [`${ROOT}bench/segment-cache/worker.ts`],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0].text;
}

/** The song: its frames and the segment index the upload route would store (~6 s each). */
function song() {
  const frames = Math.ceil(SONG_SECONDS / FRAME_SECONDS);
  const bytes = Buffer.alloc(frames * FRAME);
  for (let i = 0; i < frames; i++) bytes.writeUInt32BE(0xfffb9064, i * FRAME);
  const perSegment = Math.round(SEGMENT_SECONDS / FRAME_SECONDS);
  const segments = [];
  for (let f = 0; f < frames; f += perSegment) {
    const n = Math.min(perSegment, frames - f);
    segments.push({ offset: f * FRAME, length: n * FRAME, duration: n * FRAME_SECONDS });
  }
  return { bytes, segments };
}

/** utime + stime of the workerd processes under this one, in seconds. */
function workerdCpu() {
  let pids = [];
  try {
    pids = execFileSync("pgrep", ["-f", "workerd"], { encoding: "utf8" }).trim().split("\n");
  } catch {
    return 0;
  }
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Only ours: a workerd whose parent chain reaches this process.
      if (!isOurs(Number(pid))) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      /* gone */
    }
  }
  return ticks / HZ;
}

function isOurs(pid) {
  for (let p = pid, i = 0; p > 1 && i < 10; i++) {
    if (p === process.pid) return true;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      p = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return false;
    }
  }
  return false;
}

async function runMode(script, cache, migrations, tune) {
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2025-04-01",
    compatibilityFlags: ["nodejs_compat"],
    d1Databases: { DB: `bench-segments-${cache}` },
    r2Buckets: { UPLOADS: `bench-segments-${cache}` },
    cache: true,
    bindings: {
      ROOT_SECRET: "bench-root-secret-0123456789abcdef0123456789abcdef",
      PUBLIC_HOST: "http://hangout.bench",
      HLS_SEGMENT_CACHE: cache,
      ENVIRONMENT: "test",
    },
  });
  try {
    const call = (path, body, raw) =>
      mf.dispatchFetch(`http://hangout.bench${path}`, {
        method: "POST",
        body: raw ?? JSON.stringify(body),
      });
    for (const m of migrations) {
      const res = await call("/__bench/sql", { queries: m.queries });
      if (!res.ok) throw new Error(`migration ${m.name}: ${await res.text()}`);
    }
    const songId = "00000000-0000-4000-8000-00000000beef";
    const epoch = 1_700_000_000_000;
    await call(`/__bench/put?key=songs/${songId}/original`, null, tune.bytes);
    const now = Date.now();
    const q = (s) => `'${String(s).replace(/'/g, "''")}'`;
    await call("/__bench/sql", {
      queries: [
        `insert into songs (song_id, song_short_id, track_name, artist_name, owner_uuid, status, is_public, created_at, updated_at) values (${q(songId)}, 'bbench0001', 'Bench', 'Bench', '00000000-0000-4000-8000-000000000001', 'VERIFIED', 1, ${now}, ${now})`,
        `insert into song_files (song_id, r2_key, content_type, size, segments, created_at, updated_at) values ((select id from songs where song_id = ${q(songId)}), ${q(`songs/${songId}/original`)}, 'audio/mpeg', ${tune.bytes.length}, ${q(JSON.stringify(tune.segments))}, ${now}, ${epoch})`,
      ],
    });
    // Each listener fetched its own playlist: own signatures, same segments.
    const playlist = await (
      await call("/__bench/playlist", { songId, segments: tune.segments, epoch })
    ).text();
    const uris = playlist.split("\n").filter((l) => l.includes("/segments/"));
    const wanted = uris.slice(0, SEGMENTS);

    // The room's order: segment by segment, every listener asking for each within moments.
    const jobs = [];
    for (const uri of wanted) for (let l = 0; l < LISTENERS; l++) jobs.push(uri);
    const cpu0 = workerdCpu();
    const t0 = performance.now();
    let misses = 0;
    let failures = 0;
    let bytes = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < jobs.length) {
          const uri = jobs[next++];
          const res = await mf.dispatchFetch(`http://hangout.bench${uri}`);
          const body = await res.arrayBuffer();
          if (res.status !== 200) failures++;
          if (res.headers.get("x-segment-cache") !== "hit") misses++;
          bytes += body.byteLength;
        }
      }),
    );
    const wall = (performance.now() - t0) / 1000;
    const cpu = workerdCpu() - cpu0;
    const { r2Reads } = await (await call("/__bench/stats", {})).json();
    return { cache, requests: jobs.length, failures, misses, r2Reads, wall, cpu, bytes };
  } finally {
    await mf.dispose();
  }
}

export default async function run({ log }) {
  const script = await bundle();
  const migrations = await readD1Migrations(`${ROOT}migrations`);
  const tune = song();
  const runs = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const cache of ["off", "on"]) {
      const r = await runMode(script, cache, migrations, tune);
      runs.push(r);
      log(
        `round ${round + 1} cache ${cache.padEnd(3)}: ${r.requests} segment fetches, ${r.misses} misses, ${r.r2Reads} R2 reads, ${r.cpu.toFixed(2)} s workerd CPU in ${r.wall.toFixed(2)} s${r.failures ? `, ${r.failures} FAILED` : ""}`,
      );
    }
  const sum = (cache, k) => runs.filter((r) => r.cache === cache).reduce((t, r) => t + r[k], 0);
  // What a 1,000-listener room asks per second, and what each mode spends to answer it.
  const fetchesPerSecond = LISTENERS / SEGMENT_SECONDS;
  const per = (cache) => {
    const requests = sum(cache, "requests");
    return {
      requests,
      r2ReadsPerFetch: sum(cache, "r2Reads") / requests,
      missesPerFetch: sum(cache, "misses") / requests,
      cpuMsPerFetch: (sum(cache, "cpu") * 1000) / requests,
      // At the room's rate: R2 reads and workerd CPU-seconds per second of playback.
      r2ReadsPerSecond: (sum(cache, "r2Reads") / requests) * fetchesPerSecond,
      cpuSecondsPerSecond: (sum(cache, "cpu") / requests) * fetchesPerSecond,
      fetchesPerWallSecond: requests / sum(cache, "wall"),
    };
  };
  const off = per("off");
  const on = per("on");
  const ratio = (a, b) => (b === 0 ? Infinity : Math.round((a / b) * 10) / 10);
  const ratios = {
    r2Reads: ratio(off.r2ReadsPerFetch, on.r2ReadsPerFetch),
    cpu: ratio(off.cpuMsPerFetch, on.cpuMsPerFetch),
    throughput: ratio(on.fetchesPerWallSecond, off.fetchesPerWallSecond),
  };
  const f = (n, d = 3) => (Number.isFinite(n) ? n.toFixed(d) : String(n));
  log(
    `\n${LISTENERS} listeners x ${SEGMENTS} segments (${fetchesPerSecond.toFixed(0)} segment fetches/s in the room)`,
  );
  log(
    "cache | R2 reads/fetch | R2 reads/s (room) | CPU ms/fetch | CPU s/s (room) | fetches/s here",
  );
  for (const [name, m] of [
    ["off", off],
    ["on", on],
  ])
    log(
      `${name.padEnd(5)} | ${f(m.r2ReadsPerFetch, 4).padStart(14)} | ${f(m.r2ReadsPerSecond, 1).padStart(17)} | ${f(m.cpuMsPerFetch).padStart(12)} | ${f(m.cpuSecondsPerSecond).padStart(14)} | ${f(m.fetchesPerWallSecond, 0).padStart(14)}`,
    );
  log(
    `off/on: ${ratios.r2Reads}x fewer R2 (and D1) reads, ${ratios.cpu}x less workerd CPU per fetch, ${ratios.throughput}x the fetches per wall second`,
  );
  return {
    listeners: LISTENERS,
    segments: SEGMENTS,
    rounds: ROUNDS,
    concurrency: CONCURRENCY,
    runs,
    off,
    on,
    ratios,
  };
}
