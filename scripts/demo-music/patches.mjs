// Music theory and instrument settings: scales, keys, chord progressions, patches and per-genre styles.
import { pick, kick, reverb } from "./synth.mjs";

export const SCALES = {
  major: [0, 2, 4, 5, 7, 9, 11],
  minor: [0, 2, 3, 5, 7, 8, 10],
  dorian: [0, 2, 3, 5, 7, 9, 10],
  phrygian: [0, 1, 3, 5, 7, 8, 10],
  lydian: [0, 2, 4, 6, 7, 9, 11],
  mixolydian: [0, 2, 4, 5, 7, 9, 10],
  harmonicMinor: [0, 2, 3, 5, 7, 8, 11],
  minorPentatonic: [0, 3, 5, 7, 10],
};
export const KEYS = { C: 0, "C#": 1, D: 2, Eb: 3, E: 4, F: 5, "F#": 6, G: 7, Ab: 8, A: 9, Bb: 10, B: 11 };
export const MINORISH = new Set(["minor", "dorian", "phrygian", "harmonicMinor"]);
// Chord progressions as scale degrees (0 = tonic), one chord per `chordBars` bars.
export const PROGRESSIONS = {
  minor: [[0, 5, 2, 6], [0, 3, 5, 4], [0, 6, 5, 6], [0, 5, 3, 4], [0, 3, 6, 2]],
  major: [[0, 4, 5, 3], [0, 5, 3, 4], [3, 4, 2, 5], [0, 3, 5, 4]],
  phrygian: [[0, 1, 0, 6], [0, 0, 1, 6]],
  lydian: [[0, 1, 0, 4], [0, 1, 5, 4]],
};
export const progressionsFor = (scale) => PROGRESSIONS[scale] ?? (MINORISH.has(scale) ? PROGRESSIONS.minor : PROGRESSIONS.major);

/*
 * Instrument patches. wave: saw | square | tri | sine | fm (electric piano / bell).
 * a/d/s/r: envelope (s, r in seconds; s is a level). cut/env/fdec/q: a resonant low-pass
 * whose cutoff starts at cut+env and falls to cut with time constant fdec (cut 0 = no filter).
 * det: a second oscillator detuned by this many cents. vib: vibrato depth in semitones.
 */
export const P = {
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
export const STYLES = {
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
