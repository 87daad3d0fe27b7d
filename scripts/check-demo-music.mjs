// Checks the demo MP3s the way a listener's browser would meet them, without listening:
// 1. walks every MPEG frame header (count, bitrate, rate, mode) and reads the ID3 tag back;
// 2. in Debian Chromium: loads each file as a blob URL into <audio>, plays it and checks
//    currentTime advances and duration is right, then decodes it (decodeAudioData) and
//    measures the RMS level of every second, the peak and the clipped samples.
// `node scripts/check-demo-music.mjs` prints a table and exits non-zero on any failure.
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { ensureDemoMusic, parseMp3Frames, readId3 } from "./demo-music.mjs";

const tracks = await ensureDemoMusic({ log: console.log });
const problems = [];
const rows = [];

for (const t of tracks) {
  const buf = readFileSync(t.path);
  const f = parseMp3Frames(buf);
  const tag = readId3(buf).frames;
  const want = {
    TIT2: t.trackName,
    TPE1: t.artistName,
    TALB: t.albumName,
    TCON: t.genre,
    TYER: String(t.year),
  };
  for (const [k, v] of Object.entries(want))
    if (tag[k] !== v)
      problems.push(`${t.slug}: ${k} is ${JSON.stringify(tag[k])}, want ${JSON.stringify(v)}`);
  if (f.bitrates.join() !== "128" || f.sampleRates.join() !== "44100")
    problems.push(`${t.slug}: ${f.bitrates} kbps at ${f.sampleRates} Hz`);
  // lamejs adds its encoder delay and pads the last frame: up to ~0.06 s more than we rendered.
  if (Math.abs(f.seconds - t.seconds) > 0.1)
    problems.push(`${t.slug}: ${f.seconds.toFixed(2)} s of frames, rendered ${t.seconds} s`);
  rows.push({ t, f, bytes: buf.length });
}

// playwright-core gives the browser a fresh temporary profile of its own.
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--autoplay-policy=no-user-gesture-required",
  ],
});
try {
  const page = await browser.newPage();
  await page.setContent("<!doctype html><title>demo music check</title>");
  for (const row of rows) {
    const b64 = readFileSync(row.t.path).toString("base64");
    row.browser = await page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const url = URL.createObjectURL(new Blob([bytes], { type: "audio/mpeg" }));
      const audio = new Audio();
      audio.preload = "auto";
      audio.src = url;
      await new Promise((ok, fail) => {
        audio.onloadedmetadata = ok;
        audio.onerror = () =>
          fail(new Error(`audio error ${audio.error?.code}: ${audio.error?.message}`));
      });
      const duration = audio.duration;
      await audio.play();
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, 1200));
      const played = audio.currentTime;
      const wall = (performance.now() - t0) / 1000;
      audio.pause();
      URL.revokeObjectURL(url);

      // Decode at the file's own rate (no resampling) and measure each second.
      const ctx = new OfflineAudioContext(1, 1, 44100);
      const decoded = await ctx.decodeAudioData(bytes.buffer.slice(0));
      const x = decoded.getChannelData(0);
      const rms = [];
      let peak = 0;
      let clipped = 0;
      let sum = 0;
      for (let s = 0; s < x.length; s += 44100) {
        let sq = 0;
        const end = Math.min(x.length, s + 44100);
        for (let i = s; i < end; i++) {
          const v = x[i];
          sq += v * v;
          const a = Math.abs(v);
          if (a > peak) peak = a;
          if (a >= 0.999) clipped++;
        }
        sum += sq;
        rms.push(Math.sqrt(sq / (end - s)));
      }
      return {
        duration,
        played,
        wall,
        decodedSeconds: decoded.duration,
        channels: decoded.numberOfChannels,
        rms,
        overallRms: Math.sqrt(sum / x.length),
        peak,
        clipped,
      };
    }, b64);
  }
} finally {
  await browser.close();
}

const db = (v) => (v > 0 ? 20 * Math.log10(v) : -Infinity).toFixed(1);
console.log(
  "\ntrack               frames  mp3 s  <audio> s  played/wall  decoded s  RMS dBFS/s min / median / max  overall  peak   clipped",
);
for (const { t, f, browser: b } of rows) {
  // The first and last seconds are the fade in and the ring-out; the body is what must be loud.
  const body = b.rms.slice(1, -2);
  const sorted = [...body].sort((a, c) => a - c);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(
    `${t.slug.padEnd(18)} ${String(f.frames).padStart(7)} ${f.seconds.toFixed(2).padStart(6)} ${b.duration.toFixed(2).padStart(9)}  ${b.played.toFixed(2)}/${b.wall.toFixed(2)}  ${b.decodedSeconds.toFixed(2).padStart(9)}  ` +
      `${db(sorted[0]).padStart(6)} / ${db(median).padStart(6)} / ${db(sorted[sorted.length - 1]).padStart(6)}  ${db(b.overallRms).padStart(6)}  ${db(b.peak).padStart(5)}  ${String(b.clipped).padStart(7)}`,
  );
  if (Math.abs(b.duration - f.seconds) > 0.1)
    problems.push(`${t.slug}: <audio> says ${b.duration} s, the frames ${f.seconds.toFixed(2)} s`);
  if (!(b.played > 0.5))
    problems.push(
      `${t.slug}: currentTime only reached ${b.played} s after ${b.wall.toFixed(2)} s of play`,
    );
  if (Math.abs(b.decodedSeconds - f.seconds) > 0.1)
    problems.push(`${t.slug}: decoded ${b.decodedSeconds} s, the frames ${f.seconds.toFixed(2)} s`);
  if (sorted[0] < 10 ** (-40 / 20))
    problems.push(`${t.slug}: a second of the body is below -40 dBFS RMS (silent?)`);
  if (b.clipped > 0) problems.push(`${t.slug}: ${b.clipped} samples at full scale (clipping)`);
}
console.log("\nRMS dBFS of each second:");
for (const { t, browser: b } of rows)
  console.log(`  ${t.slug.padEnd(18)} ${b.rms.map((v) => db(v)).join(" ")}`);
if (problems.length) {
  console.error(`\n${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(
  `\nall ${rows.length} demo tracks are valid MP3s that play, are not silent and do not clip`,
);
