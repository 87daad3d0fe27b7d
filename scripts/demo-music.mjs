// Demo music for `npm run dev` and the browser tests: eight short original instrumentals,
// synthesised here (no recordings, nothing copyrighted in the repo, no network), encoded to
// 128 kbps MP3 with lamejs and cached in .cache/demo-music/<slug>.mp3 (git-ignored).
// `node scripts/demo-music.mjs` makes them (if missing) and prints what it did;
// `--force` remakes them. Import `ensureDemoMusic()` to get the list with file paths.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

import { DEMO_TRACKS } from "./demo-music/tracks.mjs";
import { renderTrack, trackSeconds } from "./demo-music/render.mjs";
import { encodeMp3, id3v23, readId3, parseMp3Frames } from "./demo-music/mp3.mjs";
/** Written into each file's TSSE frame; a cached file with another value is remade, so bump it when the sound changes. */
export const GENERATOR = "hangout demo-music v1 (lamejs 128 kbps mono)";
export const CACHE_DIR = fileURLToPath(new URL("../.cache/demo-music/", import.meta.url));

// What other scripts import from here.
export { DEMO_TRACKS } from "./demo-music/tracks.mjs";
export { parseMp3Frames, readId3, encodeMp3, id3v23 } from "./demo-music/mp3.mjs";
export { renderTrack, trackSeconds } from "./demo-music/render.mjs";

function makeFile(track) {
  const t0 = performance.now();
  const samples = renderTrack(track);
  const t1 = performance.now();
  const mp3 = encodeMp3(samples);
  const t2 = performance.now();
  const tag = id3v23({
    TIT2: track.trackName,
    TPE1: track.artistName,
    TALB: track.albumName,
    TCON: track.genre,
    TYER: track.year,
    TSSE: GENERATOR,
  });
  const file = Buffer.concat([tag, mp3]);
  // Write then rename: another process starting at the same time never reads half a file.
  const tmp = `${CACHE_DIR}${track.slug}.mp3.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, file);
  renameSync(tmp, `${CACHE_DIR}${track.slug}.mp3`);
  return { slug: track.slug, bytes: file.length, synthMs: t1 - t0, encodeMs: t2 - t1 };
}

/** Whether a cached file is complete and made by this version of the generator. */
function cachedOk(path) {
  if (!existsSync(path)) return false;
  try {
    const buf = readFileSync(path);
    if (readId3(buf).frames.TSSE !== GENERATOR) return false;
    parseMp3Frames(buf);
    return true;
  } catch {
    return false;
  }
}

// Worker threads: encoding is the slow part (~50x real time per core), so the missing
// tracks are spread over the cores.
function runWorkers(tracks) {
  const n = Math.max(1, Math.min(availableParallelism(), tracks.length));
  const lanes = Array.from({ length: n }, () => ({ tracks: [], secs: 0 }));
  for (const t of [...tracks].sort((a, b) => trackSeconds(b) - trackSeconds(a))) {
    const lane = lanes.reduce((a, b) => (a.secs <= b.secs ? a : b));
    lane.tracks.push(t);
    lane.secs += trackSeconds(t);
  }
  return Promise.all(
    lanes.map(
      (lane) =>
        new Promise((resolve, reject) => {
          const w = new Worker(new URL(import.meta.url), {
            workerData: { demoMusicJob: lane.tracks },
          });
          w.once("message", resolve);
          w.once("error", reject);
          w.once(
            "exit",
            (code) => code && reject(new Error(`demo-music worker exited with ${code}`)),
          );
        }),
    ),
  ).then((r) => r.flat());
}

/**
 * The demo tracks with their metadata and MP3 paths, making any that are missing (or
 * stale or broken) first. Returns `[{ ...track, seconds, path }]` and `generated` stats.
 * @param {{ force?: boolean, log?: (msg: string) => void }} [opts]
 */
export async function ensureDemoMusic({ force = false, log = () => {} } = {}) {
  mkdirSync(CACHE_DIR, { recursive: true });
  const list = DEMO_TRACKS.map((t) => ({
    ...t,
    seconds: Math.round(trackSeconds(t) * 100) / 100,
    path: `${CACHE_DIR}${t.slug}.mp3`,
  }));
  const missing = list.filter((t) => force || !cachedOk(t.path));
  let generated = [];
  if (missing.length) {
    const t0 = performance.now();
    log(
      `generating ${missing.length} demo track${missing.length > 1 ? "s" : ""} into .cache/demo-music/ ...`,
    );
    generated = await runWorkers(missing);
    log(
      `generated ${missing.length} demo tracks in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  return Object.assign(list, { generated });
}

if (!isMainThread && workerData?.demoMusicJob) {
  parentPort.postMessage(workerData.demoMusicJob.map(makeFile));
} else if (isMainThread && import.meta.url === `file://${process.argv[1]}`) {
  const t0 = performance.now();
  const list = await ensureDemoMusic({ force: process.argv.includes("--force"), log: console.log });
  const wall = performance.now() - t0;
  for (const t of list) {
    const g = list.generated.find((x) => x.slug === t.slug);
    const f = parseMp3Frames(readFileSync(t.path));
    console.log(
      `${t.slug.padEnd(18)} ${t.genre.padEnd(12)} ${String(t.bpm).padStart(3)} bpm ${t.key.padEnd(2)} ${t.scale.padEnd(13)} ${f.seconds.toFixed(1).padStart(5)} s ${(f.frames + " frames").padStart(12)}` +
        (g
          ? `  synth ${g.synthMs.toFixed(0).padStart(4)} ms, encode ${g.encodeMs.toFixed(0).padStart(5)} ms, ${(g.bytes / 1024).toFixed(0)} KiB`
          : "  (cached)"),
    );
  }
  console.log(`total ${(wall / 1000).toFixed(2)} s wall clock`);
}
