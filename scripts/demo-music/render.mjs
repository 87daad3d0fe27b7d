// Arranges and renders one track to PCM samples from its style and seed.
import { rng } from "../rng.mjs";
import { SR } from "./mp3.mjs";
import { SCALES, KEYS, progressionsFor, P, STYLES } from "./patches.mjs";
import { pick, note, kick, noiseHit, reverb, softClip } from "./synth.mjs";

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
  const degMidi = (deg, base, sc = scale) =>
    base +
    root +
    sc[((deg % sc.length) + sc.length) % sc.length] +
    12 * Math.floor(deg / sc.length);
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
            noiseHit(drums, t, hit(sn) * 0.5 * soft * hum(), noise, {
              decay: st.bigSnare ? 0.2 : 0.12,
              hp: 0.35,
              tone: 185,
              len: 0.6,
            });
            if (st.bigSnare) noiseHit(send, t, 0.5, noise, { decay: 0.15, hp: 0.35, tone: 185 });
          }
          if (hit(st.clap?.[s] ?? "."))
            noiseHit(drums, t, hit(st.clap[s]) * 0.45 * hum(), noise, {
              decay: 0.09,
              hp: 0.6,
              bursts: 3,
              len: 0.4,
            });
          if (hit(st.ghost?.[s] ?? "."))
            noiseHit(drums, t, 0.18 * hum(), noise, { decay: 0.06, hp: 0.4, tone: 200, len: 0.2 });
          if (hit(st.ohat?.[s] ?? "."))
            noiseHit(drums, t, hit(st.ohat[s]) * 0.16 * hum(), noise, {
              decay: 0.16,
              hp: 0.92,
              len: 0.5,
            });
          if (fill && s >= 12)
            noiseHit(drums, t, (0.25 + 0.08 * (s - 12)) * soft, noise, {
              decay: 0.08,
              hp: 0.35,
              tone: 190,
              len: 0.25,
            });
        }
        if (hit(st.hat?.[s] ?? "."))
          noiseHit(drums, t, hit(st.hat[s]) * 0.14 * soft * hum(), noise, {
            decay: 0.028,
            hp: 0.93,
            len: 0.12,
          });
        if (hit(st.shaker?.[s] ?? "."))
          noiseHit(send, t, 0.1 * hum(), noise, { decay: 0.05, hp: 0.9, len: 0.2 });
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
      note(
        bass,
        at(bar, s),
        len * step * (st.bassGate ?? 0.9),
        m,
        0.5 * (st.bassGain ?? 1) * hum(),
        bp,
        rand,
      );
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
      for (const m of voicing)
        note(
          music,
          at(bar, s),
          len * step * short,
          m,
          (st.chordGain / Math.sqrt(voicing.length)) * hum(),
          cp,
          rand,
        );
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
  for (let s = 0; s < 32;) {
    if (rand() < st.density) {
      const len = Math.min(
        pick(rand, grid === 1 ? [1, 1, 2, 2, 3, 4] : [2, 2, 2, 4, 4, 6]),
        32 - s,
      );
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
        for (let k = 0; k <= 2 && best === m; k++)
          for (const c of [m - k, m + k]) if (chordPcs.includes(((c % 12) + 12) % 12)) best = c;
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

/** Seconds of music a track's arrangement lasts (bars plus its ringing tail). */
export const trackSeconds = (t) => t.bars * (240 / t.bpm) + (STYLES[t.genre].calm ? 4 : 2);
