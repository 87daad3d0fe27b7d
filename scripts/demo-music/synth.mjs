// The synthesiser's building blocks: oscillators, notes with envelopes and filters, drums, reverb.
import { SR } from "./mp3.mjs";

export const pick = (rand, list) => list[Math.floor(rand() * list.length)];
export const mtof = (m) => 440 * 2 ** ((m - 69) / 12);
export const TWO_PI = Math.PI * 2;

// PolyBLEP: a cheap band-limit correction so saws and squares do not alias harshly.
export function blep(t, dt) {
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
export const TABLE = 4096;
export const SINT = new Float32Array(TABLE + 1);
for (let i = 0; i <= TABLE; i++) SINT[i] = Math.sin((TWO_PI * i) / TABLE);
export function sin1(ph) {
  const x = (ph - Math.floor(ph)) * TABLE;
  const i = x | 0;
  return SINT[i] + (SINT[i + 1] - SINT[i]) * (x - i);
}

export const WAVES = { sine: 0, saw: 1, square: 2, tri: 3, fm: 4 };

/** Adds one note to `buf` (mono float), starting at second t0, held `dur` seconds. */
export function note(buf, t0, dur, midi, vel, p, rand) {
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
      if (p.cut)
        F =
          2 *
          Math.sin(
            (Math.PI * Math.min(p.cut + (p.env ?? 0) * Math.exp(-t / (p.fdec ?? 0.2)), SR / 7)) /
              SR,
          );
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
export function kick(buf, t0, vel, soft) {
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
export function noiseHit(
  buf,
  t0,
  vel,
  rand,
  { decay, hp = 0.5, tone = 0, toneDecay = 0.05, len: maxLen = 0.5, bursts = 0 },
) {
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
export function reverb(input, wet) {
  const out = new Float32Array(input.length);
  for (const [L, fb] of [
    [1116, 0.84],
    [1188, 0.83],
    [1277, 0.82],
    [1356, 0.81],
  ]) {
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
export const softClip = (x) => (x >= 3 ? 1 : x <= -3 ? -1 : (x * (27 + x * x)) / (27 + 9 * x * x));
