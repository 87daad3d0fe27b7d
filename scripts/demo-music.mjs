// Demo music for `npm run dev` and the browser tests: eight short original instrumentals,
// synthesised here (no recordings, nothing copyrighted in the repo, no network), encoded to
// 128 kbps MP3 with lamejs and cached in .cache/demo-music/<slug>.mp3 (git-ignored).
// `node scripts/demo-music.mjs` makes them (if missing) and prints what it did;
// `--force` remakes them. Import `ensureDemoMusic()` to get the list with file paths.
import { Mp3Encoder } from "@breezystack/lamejs";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { rng } from "./rng.mjs";

const SR = 44100;
const KBPS = 128;
/** Written into each file's TSSE frame; a cached file with another value is remade, so bump it when the sound changes. */
export const GENERATOR = "hangout demo-music v1 (lamejs 128 kbps mono)";
export const CACHE_DIR = fileURLToPath(new URL("../.cache/demo-music/", import.meta.url));

/**
 * The tracks. Names are made up; tempo, key and scale differ per track so they sound
 * distinct, and the seed picks the chord progression, the bassline and the melody.
 * `melodyScale` lets a lead use a subset (funk: pentatonic over dorian chords).
 */
export const DEMO_TRACKS = [
  { slug: "neon-harbor", trackName: "Neon Harbor", artistName: "The Night Shift", albumName: "Harbor Lights", genre: "House", year: 2024, bpm: 124, key: "A", scale: "dorian", bars: 14, seed: 11 },
  { slug: "chrome-sunset", trackName: "Chrome Sunset", artistName: "Vector Palms", albumName: "Outrun Tapes", genre: "Synthwave", year: 2023, bpm: 100, key: "D", scale: "minor", bars: 12, seed: 23 },
  { slug: "rainy-window", trackName: "Rainy Window", artistName: "Paper Lanterns", albumName: "Late Study", genre: "Lo-fi", year: 2024, bpm: 80, key: "Eb", scale: "major", bars: 10, seed: 37 },
  { slug: "concrete-pulse", trackName: "Concrete Pulse", artistName: "Unit 47", albumName: "Warehouse Hours", genre: "Techno", year: 2022, bpm: 132, key: "F", scale: "phrygian", bars: 16, seed: 41 },
  { slug: "velvet-mirrorball", trackName: "Velvet Mirrorball", artistName: "The Glitter Union", albumName: "Saturday Suite", genre: "Disco", year: 2021, bpm: 116, key: "Bb", scale: "mixolydian", bars: 14, seed: 53 },
  { slug: "tidal-drift", trackName: "Tidal Drift", artistName: "Ocean Lumen", albumName: "Slow Currents", genre: "Ambient", year: 2023, bpm: 68, key: "E", scale: "lydian", bars: 8, seed: 67 },
  { slug: "afterburner", trackName: "Afterburner", artistName: "Kinetic Theory", albumName: "Velocity Lines", genre: "Drum & Bass", year: 2024, bpm: 172, key: "C#", scale: "harmonicMinor", bars: 20, seed: 79 },
  { slug: "brass-pocket", trackName: "Brass Pocket", artistName: "The Loose Change Band", albumName: "Sunday Strut", genre: "Funk", year: 2022, bpm: 104, key: "G", scale: "dorian", melodyScale: "minorPentatonic", bars: 12, seed: 97 },
];

const SCALES = {
  major: [0, 2, 4, 5, 7, 9, 11],
  minor: [0, 2, 3, 5, 7, 8, 10],
  dorian: [0, 2, 3, 5, 7, 9, 10],
  phrygian: [0, 1, 3, 5, 7, 8, 10],
  lydian: [0, 2, 4, 6, 7, 9, 11],
  mixolydian: [0, 2, 4, 5, 7, 9, 10],
  harmonicMinor: [0, 2, 3, 5, 7, 8, 11],
  minorPentatonic: [0, 3, 5, 7, 10],
};
const KEYS = { C: 0, "C#": 1, D: 2, Eb: 3, E: 4, F: 5, "F#": 6, G: 7, Ab: 8, A: 9, Bb: 10, B: 11 };
const MINORISH = new Set(["minor", "dorian", "phrygian", "harmonicMinor"]);
// Chord progressions as scale degrees (0 = tonic), one chord per `chordBars` bars.
const PROGRESSIONS = {
  minor: [[0, 5, 2, 6], [0, 3, 5, 4], [0, 6, 5, 6], [0, 5, 3, 4], [0, 3, 6, 2]],
  major: [[0, 4, 5, 3], [0, 5, 3, 4], [3, 4, 2, 5], [0, 3, 5, 4]],
  phrygian: [[0, 1, 0, 6], [0, 0, 1, 6]],
  lydian: [[0, 1, 0, 4], [0, 1, 5, 4]],
};
const progressionsFor = (scale) => PROGRESSIONS[scale] ?? (MINORISH.has(scale) ? PROGRESSIONS.minor : PROGRESSIONS.major);

/*
 * Instrument patches. wave: saw | square | tri | sine | fm (electric piano / bell).
 * a/d/s/r: envelope (s, r in seconds; s is a level). cut/env/fdec/q: a resonant low-pass
 * whose cutoff starts at cut+env and falls to cut with time constant fdec (cut 0 = no filter).
 * det: a second oscillator detuned by this many cents. vib: vibrato depth in semitones.
 */
const P = {
  sub: { wave: "sine", a: 0.004, d: 0.4, s: 0.85, r: 0.06 },
  subTri: { wave: "tri", a: 0.004, d: 0.3, s: 0.8, r: 0.05, cut: 600, env: 0, q: 0.9 },
  houseBass: { wave: "saw", a: 0.003, d: 0.12, s: 0.6, r: 0.04, cut: 240, env: 900, fdec: 0.08, q: 1.2 },
  synthBass: { wave: "saw", a: 0.002, d: 0.15, s: 0.5, r: 0.04, cut: 380, env: 1400, fdec: 0.1, q: 1.6, det: 8 },
  slapBass: { wave: "square", a: 0.002, d: 0.12, s: 0.55, r: 0.05, cut: 300, env: 2600, fdec: 0.05, q: 2 },
  acid: { wave: "saw", a: 0.002, d: 0.2, s: 0.6, r: 0.03, cut: 260, env: 2400, fdec: 0.12, q: 6 },
  reese: { wave: "saw", a: 0.02, d: 0.5, s: 0.9, r: 0.12, cut: 420, env: 300, fdec: 0.3, q: 1.2, det: 18 },
  organStab: { wave: "square", a: 0.003, d: 0.14, s: 0.3, r: 0.08, cut: 900, env: 2500, fdec: 0.09, q: 1.3, det: 6 },
  pad: { wave: "saw", a: 0.35, d: 1.2, s: 0.75, r: 0.8, cut: 900, env: 500, fdec: 1.5, q: 1, det: 12 },
  endPad: { wave: "saw", a: 0.01, d: 1.5, s: 0.5, r: 0.6, cut: 1500, env: 1500, fdec: 0.6, q: 0.9, det: 10 },
  darkPad: { wave: "saw", a: 1.6, d: 2, s: 0.8, r: 2.5, cut: 500, env: 300, fdec: 3, q: 1, det: 9 },
  strings: { wave: "saw", a: 0.12, d: 0.6, s: 0.7, r: 0.35, cut: 2200, env: 800, fdec: 0.4, q: 0.8, det: 14 },
  epiano: { wave: "fm", ratio: 1, index: 1.8, idec: 0.35, a: 0.004, d: 1.1, s: 0.35, r: 0.3, trem: 0.18 },
  bell: { wave: "fm", ratio: 3.5, index: 2.5, idec: 0.5, a: 0.003, d: 1.6, s: 0.0, r: 1.5 },
  clav: { wave: "square", a: 0.002, d: 0.09, s: 0.15, r: 0.04, cut: 1200, env: 3500, fdec: 0.04, q: 2.5 },
  pluck: { wave: "tri", a: 0.003, d: 0.25, s: 0.2, r: 0.15, cut: 3000, env: 2000, fdec: 0.1, q: 1 },
  leadSq: { wave: "square", a: 0.01, d: 0.3, s: 0.6, r: 0.12, cut: 1800, env: 1500, fdec: 0.2, q: 1.4, vib: 0.12 },
  leadSaw: { wave: "saw", a: 0.02, d: 0.3, s: 0.7, r: 0.15, cut: 1400, env: 2200, fdec: 0.15, q: 1.5, vib: 0.1, det: 7 },
};

/*
 * Styles: 16-step patterns per bar. Drums: X accent, x hit, o ghost, . rest. Bass: r root,
 * 3 third, 5 fifth, 7 seventh, o octave, - hold, . rest. Chords: x hit, - hold.
 * alt*: a second variant the seed may pick, so two tracks of a style would still differ.
 */
const STYLES = {
  House: {
    kick: "X...X...X...X...", clap: "....x.......x...", ohat: "..x...x...x...x.", hat: "o.o.o.o.o.o.o.o.",
    bass: ["..r...r...r...5.", "..r..r..r.r..o.."], bassPatch: "houseBass", bassOct: 2,
    chords: ["x..x..x...x..x..", "...x..x....x..x."], chordPatch: "organStab", chordGain: 0.22, sevenths: true,
    leadPatch: "pluck", leadGain: 0.3, density: 0.55, delay: 0.75, swing: 0.53, sidechain: 0.6, reverb: 0.18, chordBars: 1,
  },
  Synthwave: {
    kick: "X.......X.......", snare: "....X.......X...", hat: "x.x.x.x.x.x.x.x.", bigSnare: true,
    bass: ["rrorrrorrrorrror", "r.r.o.r.r.r.o.5."], bassPatch: "synthBass", bassOct: 2, bassGate: 0.7,
    chords: ["x---------------"], chordPatch: "pad", chordGain: 0.16,
    leadPatch: "leadSq", leadGain: 0.24, density: 0.6, delay: 0.75, swing: 0.5, sidechain: 0.35, reverb: 0.35, chordBars: 1,
  },
  "Lo-fi": {
    kick: "x......x..x.....", snare: "....x.......x...", hat: "x.o.x.o.x.o.x.oo", soft: true,
    bass: ["r-----.5r----...", "r--.....5--.r..."], bassPatch: "sub", bassOct: 2,
    chords: ["x-------x-----x-", "x-------------x-"], chordPatch: "epiano", chordGain: 0.2, sevenths: true, ninths: true,
    leadPatch: "epiano", leadGain: 0.2, density: 0.4, delay: 0.5, swing: 0.6, sidechain: 0, reverb: 0.3, chordBars: 1, lofi: true,
  },
  Techno: {
    kick: "X...X...X...X...", clap: "....o.......o...", hat: "oxoXoxoXoxoXoxoX", ohat: "..x...x...x...x.",
    bass: ["..rr..rr..rr..rr", "..rr..rr..rr..r5"], bassPatch: "subTri", bassOct: 2, bassGate: 0.6,
    chords: ["x-..............", "x.....x........."], chordPatch: "darkPad", chordGain: 0.1,
    leadPatch: "acid", leadGain: 0.2, density: 0.75, delay: 0.75, swing: 0.5, sidechain: 0.5, reverb: 0.2, chordBars: 2, sixteenths: true,
  },
  Disco: {
    kick: "X...X...X...X...", snare: "....x.......x...", ohat: "..X...X...X...X.", hat: "xoxoxoxoxoxoxoxo",
    bass: ["r.o.r.o.r.o.r.o.", "r.o.r.o.5.o.5.o."], bassPatch: "slapBass", bassOct: 2, bassGate: 0.6,
    chords: ["x---------------", "x-------x-------"], chordPatch: "strings", chordGain: 0.14, sevenths: true,
    leadPatch: "leadSaw", leadGain: 0.2, density: 0.55, delay: 0.5, swing: 0.5, sidechain: 0.2, reverb: 0.25, chordBars: 1,
  },
  Ambient: {
    shaker: "..o...o...o...o.",
    bass: ["r---------------"], bassPatch: "sub", bassOct: 2, bassGain: 0.6,
    chords: ["x---------------"], chordPatch: "darkPad", chordGain: 0.2, ninths: true,
    leadPatch: "bell", leadGain: 0.18, density: 0.3, delay: 1, swing: 0.5, sidechain: 0, reverb: 0.6, chordBars: 1, calm: true,
  },
  "Drum & Bass": {
    kick: "X.........X.....", snare: "....X.......X...", ghost: ".......o.o....o.", hat: "x.x.x.x.x.x.x.x.",
    bass: ["r-------5---r---", "r-----r-----3---"], bassPatch: "reese", bassOct: 2, bassGain: 0.8,
    chords: ["x---------------"], chordPatch: "pad", chordGain: 0.12,
    leadPatch: "leadSq", leadGain: 0.2, density: 0.5, delay: 0.75, swing: 0.5, sidechain: 0.3, reverb: 0.3, chordBars: 2,
  },
  Funk: {
    kick: "X..x..x...x..x..", snare: "....X..o.o..X..o", hat: "xoXoxoXoxoXoxoXo",
    bass: ["r..r.o.r..5.r7.r", "r.rr..o.r..5.7.."], bassPatch: "slapBass", bassOct: 2, bassGate: 0.5,
    chords: ["..x..x.x..x..x.x", ".x..x..x.x..x..x"], chordPatch: "clav", chordGain: 0.13, sevenths: true,
    leadPatch: "leadSaw", leadGain: 0.18, density: 0.55, delay: 0.375, swing: 0.56, sidechain: 0, reverb: 0.15, chordBars: 1, sixteenths: true,
  },
};

const pick = (rand, list) => list[Math.floor(rand() * list.length)];
const mtof = (m) => 440 * 2 ** ((m - 69) / 12);
const TWO_PI = Math.PI * 2;

// PolyBLEP: a cheap band-limit correction so saws and squares do not alias harshly.
function blep(t, dt) {
  if (t < dt) {
    t /= dt;
    return t + t - t * t - 1;
  }
  if (t > 1 - dt) {
    t = (t - 1) / dt;
    return t * t + t + t + 1;
  }
  return 0;
}

// A sine table (cycles in, linear interpolation): the synth spends most of its time in sin().
const TABLE = 4096;
const SINT = new Float32Array(TABLE + 1);
for (let i = 0; i <= TABLE; i++) SINT[i] = Math.sin((TWO_PI * i) / TABLE);
function sin1(ph) {
  const x = (ph - Math.floor(ph)) * TABLE;
  const i = x | 0;
  return SINT[i] + (SINT[i + 1] - SINT[i]) * (x - i);
}

const WAVES = { sine: 0, saw: 1, square: 2, tri: 3, fm: 4 };

/** Adds one note to `buf` (mono float), starting at second t0, held `dur` seconds. */
function note(buf, t0, dur, midi, vel, p, rand) {
  const start = Math.round(t0 * SR);
  if (start >= buf.length) return;
  const len = Math.min(Math.round((dur + p.r) * SR), buf.length - start);
  const f = mtof(midi);
  const dt1 = f / SR;
  const dt2 = p.det ? (f * 2 ** (p.det / 1200)) / SR : 0;
  let ph1 = rand();
  let ph2 = rand();
  let low = 0;
  let band = 0;
  let F = 0;
  let vib = 1;
  let trem = 1;
  const damp = 1 / (p.q ?? 1);
  // Envelopes as per-sample multipliers rather than exp() calls.
  const aN = Math.max(1, Math.round(p.a * SR));
  const durN = Math.round(dur * SR);
  const kd = Math.exp(-1 / (p.d * SR));
  const kr = Math.exp(-4 / (p.r * SR));
  const ki = p.idec ? Math.exp(-1 / (p.idec * SR)) : 1;
  let dec = 1;
  let idx = p.index ?? 0;
  let env = 0;
  const kind = WAVES[p.wave] ?? 0;
  for (let i = 0; i < len; i++) {
    if (i < durN) {
      if (i < aN) env = i / aN;
      else {
        env = p.s + (1 - p.s) * dec;
        dec *= kd;
      }
    } else {
      env *= kr;
      if (env < 1e-4) break;
    }
    if ((i & 15) === 0) {
      // Slow modulations (vibrato, tremolo, filter sweep) are refreshed every 16 samples.
      const t = i / SR;
      if (p.vib && t > 0.15) vib = 1 + p.vib * 0.0578 * sin1(5.5 * t);
      if (p.trem) trem = 1 - p.trem * (0.5 + 0.5 * sin1(4.5 * t));
      if (p.cut) F = 2 * Math.sin((Math.PI * Math.min(p.cut + (p.env ?? 0) * Math.exp(-t / (p.fdec ?? 0.2)), SR / 7)) / SR);
    }
    let x;
    switch (kind) {
      case 1:
        x = 2 * ph1 - 1 - blep(ph1, dt1);
        if (dt2) x = 0.5 * (x + 2 * ph2 - 1 - blep(ph2, dt2));
        break;
      case 2:
        x = (ph1 < 0.5 ? 1 : -1) + blep(ph1, dt1) - blep((ph1 + 0.5) % 1, dt1);
        if (dt2) x = 0.5 * (x + (ph2 < 0.5 ? 1 : -1) + blep(ph2, dt2) - blep((ph2 + 0.5) % 1, dt2));
        break;
      case 3:
        x = 4 * Math.abs(ph1 - 0.5) - 1;
        break;
      case 4:
        // Two-operator FM: a decaying modulation index gives the bright attack of a
        // Rhodes (ratio 1) or a bell (non-integer ratio).
        x = sin1(ph1 + (idx / TWO_PI) * sin1(ph1 * p.ratio)) * trem;
        idx *= ki;
        break;
      default:
        x = sin1(ph1);
    }
    ph1 += dt1 * vib;
    if (ph1 >= 1) ph1 -= 1;
    if (dt2) {
      ph2 += dt2 * vib;
      if (ph2 >= 1) ph2 -= 1;
    }
    if (p.cut) {
      // Chamberlin state-variable low-pass.
      low += F * band;
      band += F * (x - low - damp * band);
      x = low;
    }
    buf[start + i] += x * env * vel;
  }
}

// Drums: a noise source and short envelopes; every hit is deterministic per seed.
function kick(buf, t0, vel, soft) {
  const start = Math.round(t0 * SR);
  const len = Math.min(Math.round(0.45 * SR), buf.length - start);
  const f0 = soft ? 110 : 160;
  const f1 = soft ? 42 : 48;
  const kp = Math.exp(-1 / (0.035 * SR));
  const ka = Math.exp(-1 / ((soft ? 0.18 : 0.26) * SR));
  let sweep = 1;
  let amp = 1;
  let ph = 0;
  for (let i = 0; i < len; i++) {
    // A sine whose pitch falls fast from f0 to f1: the thump; a tiny click for the attack.
    ph += (f1 + (f0 - f1) * sweep) / SR;
    sweep *= kp;
    const click = i < 90 ? (1 - i / 90) * 0.25 : 0;
    buf[start + i] += (sin1(ph) * amp + click) * vel;
    amp *= ka;
  }
}
function noiseHit(buf, t0, vel, rand, { decay, hp = 0.5, tone = 0, toneDecay = 0.05, len: maxLen = 0.5, bursts = 0 }) {
  const start = Math.round(t0 * SR);
  const len = Math.min(Math.round(maxLen * SR), buf.length - start);
  const k = Math.exp(-1 / (decay * SR));
  const kt = Math.exp(-1 / (toneDecay * SR));
  const burstN = Math.round(0.011 * SR);
  let env = 1;
  let tenv = 0.6;
  let lp = 0;
  for (let i = 0; i < len; i++) {
    const n = rand() * 2 - 1;
    // One-pole high-pass (noise minus its low-passed self): hp near 1 keeps only the sizzle.
    lp += (1 - hp) * (n - lp);
    let e = env;
    // A clap is three quick bursts, then the tail.
    if (bursts && i < bursts * burstN) e = Math.exp(-(i % burstN) / (0.006 * SR));
    else env *= k;
    let x = (n - lp) * e;
    if (tone) {
      x += sin1((tone * i) / SR) * tenv;
      tenv *= kt;
    }
    buf[start + i] += x * vel;
  }
}

// A Schroeder reverb (four damped combs, two all-passes) on the send bus: space, cheaply.
function reverb(input, wet) {
  const out = new Float32Array(input.length);
  for (const [L, fb] of [[1116, 0.84], [1188, 0.83], [1277, 0.82], [1356, 0.81]]) {
    const d = new Float32Array(L);
    let idx = 0;
    let lp = 0;
    for (let i = 0; i < input.length; i++) {
      const y = d[idx];
      lp = y * 0.75 + lp * 0.25;
      d[idx] = input[i] + lp * fb;
      out[i] += y * 0.25;
      if (++idx === L) idx = 0;
    }
  }
  for (const L of [556, 441]) {
    const d = new Float32Array(L);
    let idx = 0;
    for (let i = 0; i < out.length; i++) {
      const b = d[idx];
      const x = out[i];
      d[idx] = x + b * 0.5;
      out[i] = b - x * 0.5;
      if (++idx === L) idx = 0;
    }
  }
  for (let i = 0; i < out.length; i++) out[i] *= wet;
  return out;
}

// tanh's Padé approximant (within 2% of tanh, exactly ±1 from |x| = 3): a soft ceiling, cheaper than Math.tanh.
const softClip = (x) => (x >= 3 ? 1 : x <= -3 ? -1 : (x * (27 + x * x)) / (27 + 9 * x * x));

/** Renders one track to mono float samples in [-1, 1]. */
export function renderTrack(track) {
  const st = STYLES[track.genre];
  const rand = rng(track.seed);
  const noise = rng(track.seed * 7919);
  const beat = 60 / track.bpm;
  const step = beat / 4;
  const barLen = beat * 4;
  const tail = st.calm ? 4 : 2;
  const total = track.bars * barLen + tail;
  const n = Math.ceil(total * SR);
  const drums = new Float32Array(n);
  const bass = new Float32Array(n);
  const music = new Float32Array(n);
  const lead = new Float32Array(n);
  const send = new Float32Array(n);

  const scale = SCALES[track.scale];
  const mscale = SCALES[track.melodyScale ?? track.scale];
  const root = KEYS[track.key];
  const degMidi = (deg, base, sc = scale) => base + root + sc[((deg % sc.length) + sc.length) % sc.length] + 12 * Math.floor(deg / sc.length);
  const prog = pick(rand, progressionsFor(track.scale));
  const bassPat = pick(rand, st.bass);
  const chordPat = pick(rand, st.chords);
  const chordAt = (bar) => prog[Math.floor(bar / st.chordBars) % prog.length];
  // Swing: every second 16th comes late; humanise velocities a little.
  const at = (bar, s) => bar * barLen + s * step + (s % 2 ? (st.swing - 0.5) * 2 * step : 0);
  const hum = () => 0.9 + rand() * 0.2;
  const kicks = [];

  // Arrangement: 4-bar intro (drums thin, no lead), the lead from bar 4 (8 on long
  // tracks), the last 2 bars drop the drums so the track ends on its chord.
  const leadFrom = track.bars >= 16 ? 8 : track.bars >= 12 ? 4 : 2;
  const outro = track.bars - 2;
  const hit = (ch) => (ch === "X" ? 1 : ch === "x" ? 0.75 : ch === "o" ? 0.35 : 0);
  for (let bar = 0; bar < track.bars; bar++) {
    const intro = bar < 4 && !st.calm;
    const fill = bar % 8 === 7 && bar < outro - 1;
    for (let s = 0; s < 16; s++) {
      const t = at(bar, s);
      const soft = st.soft ? 0.7 : 1;
      if (bar < outro || st.calm) {
        if (st.kick && hit(st.kick[s])) {
          kick(drums, t, hit(st.kick[s]) * 0.95 * soft * hum(), st.soft);
          kicks.push(Math.round(t * SR));
        }
        if (!intro) {
          const sn = st.snare?.[s] ?? ".";
          if (hit(sn) && !(fill && s >= 12)) {
            noiseHit(drums, t, hit(sn) * 0.5 * soft * hum(), noise, { decay: st.bigSnare ? 0.2 : 0.12, hp: 0.35, tone: 185, len: 0.6 });
            if (st.bigSnare) noiseHit(send, t, 0.5, noise, { decay: 0.15, hp: 0.35, tone: 185 });
          }
          if (hit(st.clap?.[s] ?? ".")) noiseHit(drums, t, hit(st.clap[s]) * 0.45 * hum(), noise, { decay: 0.09, hp: 0.6, bursts: 3, len: 0.4 });
          if (hit(st.ghost?.[s] ?? ".")) noiseHit(drums, t, 0.18 * hum(), noise, { decay: 0.06, hp: 0.4, tone: 200, len: 0.2 });
          if (hit(st.ohat?.[s] ?? ".")) noiseHit(drums, t, hit(st.ohat[s]) * 0.16 * hum(), noise, { decay: 0.16, hp: 0.92, len: 0.5 });
          if (fill && s >= 12) noiseHit(drums, t, (0.25 + 0.08 * (s - 12)) * soft, noise, { decay: 0.08, hp: 0.35, tone: 190, len: 0.25 });
        }
        if (hit(st.hat?.[s] ?? ".")) noiseHit(drums, t, hit(st.hat[s]) * 0.14 * soft * hum(), noise, { decay: 0.028, hp: 0.93, len: 0.12 });
        if (hit(st.shaker?.[s] ?? ".")) noiseHit(send, t, 0.1 * hum(), noise, { decay: 0.05, hp: 0.9, len: 0.2 });
      }
    }

    // Bass: the chord's root (or 3rd, 5th, 7th, octave) on the pattern's steps.
    const deg = chordAt(bar);
    const bassBase = 12 * (st.bassOct + 1);
    const bp = P[st.bassPatch];
    for (let s = 0; s < 16; s++) {
      const ch = bassPat[s];
      if (ch === "." || ch === "-") continue;
      if (intro && bar < 2 && !st.calm) continue;
      let len = 1;
      while (s + len < 16 && bassPat[s + len] === "-") len++;
      const iv = { r: 0, 3: 2, 5: 4, 7: 6, o: 7 }[ch];
      const m = ch === "o" ? degMidi(deg, bassBase) + 12 : degMidi(deg + iv, bassBase);
      note(bass, at(bar, s), len * step * (st.bassGate ?? 0.9), m, 0.5 * (st.bassGain ?? 1) * hum(), bp, rand);
    }

    // Chords: close voicings around middle C, so they move smoothly from chord to chord.
    const tones = [0, 2, 4];
    if (st.sevenths) tones.push(6);
    if (st.ninths) tones.push(8);
    const voicing = tones.map((iv) => {
      let m = degMidi(deg + iv, 48);
      while (m < 55) m += 12;
      while (m > 67) m -= 12;
      return m;
    });
    const cp = P[st.chordPatch];
    for (let s = 0; s < 16; s++) {
      if (chordPat[s] !== "x") continue;
      let len = 1;
      while (s + len < 16 && chordPat[s + len] === "-") len++;
      const short = len === 1 ? 0.6 : 1;
      for (const m of voicing) note(music, at(bar, s), len * step * short, m, (st.chordGain / Math.sqrt(voicing.length)) * hum(), cp, rand);
    }
  }

  // The ending: one last tonic chord (held as a pad), bass and, with drums, a kick and a
  // crash on the downbeat after the last bar, ringing out through the tail.
  const end = track.bars * barLen;
  const ring = tail - 0.6;
  if (st.kick) {
    kick(drums, end, 0.9, st.soft);
    noiseHit(send, end, 0.25, noise, { decay: 0.7, hp: 0.85, len: tail });
    noiseHit(drums, end, 0.12, noise, { decay: 0.6, hp: 0.9, len: tail });
  }
  note(bass, end, ring * 0.6, degMidi(0, 12 * (st.bassOct + 1)), 0.5, P.sub, rand);
  for (let iv = 0; iv <= 4; iv += 2) {
    let m = degMidi(iv, 48);
    while (m < 55) m += 12;
    note(music, end, ring * 0.7, m, 0.12, P.endPad, rand);
  }

  // Melody: a 2-bar motif from the seed, repeated with its ending varied every other time;
  // strong beats snap to a chord tone so it fits whatever chord is under it.
  const grid = st.sixteenths ? 1 : 2;
  const motif = [];
  let d = Math.floor(rand() * 3) * 2;
  for (let s = 0; s < 32; ) {
    if (rand() < st.density) {
      const len = Math.min(pick(rand, grid === 1 ? [1, 1, 2, 2, 3, 4] : [2, 2, 2, 4, 4, 6]), 32 - s);
      d = Math.max(-2, Math.min(mscale.length + 4, d + pick(rand, [-2, -1, -1, 0, 1, 1, 2, 3])));
      motif.push({ s, len, d });
      s += len;
    } else s += grid * (rand() < 0.5 ? 1 : 2);
  }
  const lp = P[st.leadPatch];
  for (let bar = leadFrom; bar < outro; bar += 2) {
    const variant = ((bar - leadFrom) / 2) % 2 === 1;
    motif.forEach((ev, i) => {
      const b = bar + Math.floor(ev.s / 16);
      if (b >= outro) return;
      const s = ev.s % 16;
      let m = degMidi(ev.d + (variant && i >= motif.length - 2 ? -1 - (i % 2) : 0), 72, mscale);
      if (s % 8 === 0) {
        // Nearest chord tone (root, third or fifth of the chord under it).
        const cdeg = chordAt(b);
        const chordPcs = [0, 2, 4].map((iv) => degMidi(cdeg + iv, 0) % 12);
        let best = m;
        for (let k = 0; k <= 2 && best === m; k++) for (const c of [m - k, m + k]) if (chordPcs.includes(((c % 12) + 12) % 12)) best = c;
        m = best;
      }
      note(lead, at(b, s), ev.len * step * 0.85, m, st.leadGain * hum(), lp, rand);
    });
  }
  // A tempo-synced feedback echo on the lead (y[i] = x[i] + fb * y[i - d]).
  const dl = Math.round(st.delay * beat * SR);
  for (let i = dl; i < n; i++) lead[i] += lead[i - dl] * 0.32;

  // Sidechain: bass and chords duck under each kick, the pump of dance music.
  if (st.sidechain) {
    let k = 0;
    let last = -1;
    let duck = 0;
    const kDuck = Math.exp(-1 / (0.1 * SR));
    for (let i = 0; i < n; i++) {
      while (k < kicks.length && kicks[k] <= i) last = kicks[k++];
      if (i === last) duck = 1;
      const g = 1 - st.sidechain * duck;
      duck *= kDuck;
      music[i] *= g;
      bass[i] *= 0.5 + 0.5 * g;
    }
  }

  // Mix: buses plus the reverb of (music + lead + send), then a gentle master.
  for (let i = 0; i < n; i++) send[i] += music[i] * 0.6 + lead[i];
  const wet = reverb(send, st.reverb);
  const mix = new Float32Array(n);
  let crackleLp = 0;
  for (let i = 0; i < n; i++) {
    let x = drums[i] + bass[i] + music[i] + lead[i] * 0.8 + wet[i];
    if (st.lofi) {
      // Lo-fi: a dull top end and some vinyl crackle.
      crackleLp += 0.45 * (x - crackleLp);
      x = crackleLp + (noise() < 0.0009 ? (noise() - 0.5) * 0.25 : 0) + (noise() - 0.5) * 0.004;
    }
    mix[i] = x;
  }
  // Level to about -16 dBFS RMS, then a soft ceiling at -1 dBFS (tanh) so nothing clips
  // and the MP3 decoder's small overshoots stay below full scale.
  let sq = 0;
  for (let i = 0; i < n; i++) sq += mix[i] * mix[i];
  const gain = 0.16 / Math.sqrt(sq / n || 1);
  const ceil = 0.89;
  const fadeIn = Math.round(0.01 * SR);
  const fadeOut = Math.round(1.5 * SR);
  for (let i = 0; i < n; i++) {
    let x = ceil * softClip((mix[i] * gain) / ceil);
    if (i < fadeIn) x *= i / fadeIn;
    if (i > n - fadeOut) x *= (n - i) / fadeOut;
    mix[i] = x;
  }
  return mix;
}

/** Encodes mono float samples to a 128 kbps MP3 (MPEG-1 Layer III) with lamejs. */
export function encodeMp3(samples) {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i] * 32767;
    pcm[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  const enc = new Mp3Encoder(1, SR, KBPS);
  const parts = [];
  // 1152 samples per frame; feeding whole multiples keeps lamejs's internal copying small.
  for (let i = 0; i < pcm.length; i += 1152 * 64) parts.push(enc.encodeBuffer(pcm.subarray(i, i + 1152 * 64)));
  parts.push(enc.flush());
  return Buffer.concat(parts.filter((p) => p.length).map((p) => Buffer.from(p.buffer, p.byteOffset, p.length)));
}

/** An ID3v2.3 tag: text frames in ISO-8859-1 when they fit, else UTF-16 with a BOM. */
export function id3v23(frames) {
  const bodies = [];
  for (const [id, value] of Object.entries(frames)) {
    if (value === undefined || value === null || value === "") continue;
    const text = String(value);
    const latin = /^[\x00-\xff]*$/.test(text);
    const content = latin ? Buffer.concat([Buffer.from([0]), Buffer.from(text, "latin1")]) : Buffer.concat([Buffer.from([1, 0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const head = Buffer.alloc(10);
    head.write(id, 0, "ascii");
    head.writeUInt32BE(content.length, 4); // v2.3 frame sizes are plain 32-bit, not syncsafe
    bodies.push(head, content);
  }
  const body = Buffer.concat(bodies);
  const size = body.length;
  // The tag size in the header is syncsafe: 7 bits per byte.
  const header = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f]);
  return Buffer.concat([header, body]);
}

/** Reads the ID3v2 text frames we write (enough to check a cached file is ours and current). */
export function readId3(buf) {
  if (buf.length < 10 || buf.toString("latin1", 0, 3) !== "ID3") return { size: 0, frames: {} };
  const size = 10 + ((buf[6] << 21) | (buf[7] << 14) | (buf[8] << 7) | buf[9]);
  const frames = {};
  for (let o = 10; o + 10 <= size; ) {
    const id = buf.toString("latin1", o, o + 4);
    const len = buf.readUInt32BE(o + 4);
    if (!/^[A-Z0-9]{4}$/.test(id) || o + 10 + len > size) break;
    const c = buf.subarray(o + 10, o + 10 + len);
    frames[id] = c[0] === 1 ? c.subarray(3).toString("utf16le") : c.subarray(1).toString("latin1");
    o += 10 + len;
  }
  return { size, frames };
}

const BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const RATES_V1 = [44100, 48000, 32000];
/**
 * Walks the MPEG audio frames after the ID3 tag, header by header (MPEG-1 Layer III only,
 * which is what we write). Throws on anything that is not a clean run of frames to the end.
 */
export function parseMp3Frames(buf) {
  const { size } = readId3(buf);
  let o = size;
  let frames = 0;
  const bitrates = new Set();
  const rates = new Set();
  const modes = new Set();
  while (o + 4 <= buf.length) {
    const h = buf.readUInt32BE(o);
    if (h >>> 21 !== 0x7ff) throw new Error(`no frame sync at byte ${o} (frame ${frames})`);
    const version = (h >>> 19) & 3;
    const layer = (h >>> 17) & 3;
    const br = BITRATES_V1_L3[(h >>> 12) & 15];
    const rate = RATES_V1[(h >>> 10) & 3];
    if (version !== 3 || layer !== 1 || !br || !rate) throw new Error(`frame ${frames} at byte ${o} is not MPEG-1 Layer III`);
    const padding = (h >>> 9) & 1;
    const len = Math.floor((144 * br * 1000) / rate) + padding;
    bitrates.add(br);
    rates.add(rate);
    modes.add(["stereo", "joint stereo", "dual channel", "mono"][(h >>> 6) & 3]);
    o += len;
    frames++;
  }
  if (o !== buf.length) throw new Error(`trailing ${buf.length - o} bytes after frame ${frames} (truncated file?)`);
  const sampleRate = [...rates][0];
  return { id3Bytes: size, frames, bitrates: [...bitrates], sampleRates: [...rates], modes: [...modes], seconds: (frames * 1152) / sampleRate };
}

/** Seconds of music a track's arrangement lasts (bars plus its ringing tail). */
export const trackSeconds = (t) => t.bars * (240 / t.bpm) + (STYLES[t.genre].calm ? 4 : 2);

function makeFile(track) {
  const t0 = performance.now();
  const samples = renderTrack(track);
  const t1 = performance.now();
  const mp3 = encodeMp3(samples);
  const t2 = performance.now();
  const tag = id3v23({ TIT2: track.trackName, TPE1: track.artistName, TALB: track.albumName, TCON: track.genre, TYER: track.year, TSSE: GENERATOR });
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
          const w = new Worker(new URL(import.meta.url), { workerData: { demoMusicJob: lane.tracks } });
          w.once("message", resolve);
          w.once("error", reject);
          w.once("exit", (code) => code && reject(new Error(`demo-music worker exited with ${code}`)));
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
  const list = DEMO_TRACKS.map((t) => ({ ...t, seconds: Math.round(trackSeconds(t) * 100) / 100, path: `${CACHE_DIR}${t.slug}.mp3` }));
  const missing = list.filter((t) => force || !cachedOk(t.path));
  let generated = [];
  if (missing.length) {
    const t0 = performance.now();
    log(`generating ${missing.length} demo track${missing.length > 1 ? "s" : ""} into .cache/demo-music/ ...`);
    generated = await runWorkers(missing);
    log(`generated ${missing.length} demo tracks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
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
        (g ? `  synth ${g.synthMs.toFixed(0).padStart(4)} ms, encode ${g.encodeMs.toFixed(0).padStart(5)} ms, ${(g.bytes / 1024).toFixed(0)} KiB` : "  (cached)"),
    );
  }
  console.log(`total ${(wall / 1000).toFixed(2)} s wall clock`);
}
