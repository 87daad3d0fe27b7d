import { describe, expect, it } from "vitest";
import {
  CLOCK_WINDOW,
  createClockEstimator,
  createDriftCorrector,
  DRIFT_GAIN,
  DRIFT_IDLE_RATE,
  DRIFT_LOCK_S,
  DRIFT_MAX_RATE,
  DRIFT_MIN_RATE,
  DRIFT_SEEK_S,
  driftAction,
  LOCK_MAX_MS,
  LOCK_SEEKS,
  MAX_SEEKS,
  reconnectDelay,
  RECONNECT_CAP_MS,
  rejoinDelay,
  SEEK_SETTLE_MS,
  SHORT_SEEK_S,
} from "./room-sync";

/**
 * A network between one page and the room: the server's epoch clock is `mono + truth`; a
 * ping leaves at `sent` (monotonic ms) and takes `up` ms out and `down` ms back.
 */
const TRUTH = 1_700_000_000_000;
const pong = (sent: number, up: number, down: number) =>
  [sent, sent + up + down, sent + up + TRUTH] as const;

describe("the server clock estimate", () => {
  it("has nothing before a sample, then takes the full state's stamp as a first guess", () => {
    const c = createClockEstimator();
    expect(c.serverAt(100)).toBeNull();
    c.anchor(TRUTH + 40, 100); // the state was 60 ms on its way: the guess is 60 ms early
    expect(c.serverAt(1100)).toBe(TRUTH + 1040);
  });

  it("prefers the fastest round trips over the state's stamp and over slow, lopsided pongs", () => {
    const c = createClockEstimator();
    c.anchor(TRUTH - 500, 0);
    c.addPong(...pong(1000, 10, 10)); // symmetric and fast: exact
    c.addPong(...pong(2000, 400, 20)); // queued on the way out: 190 ms off alone
    c.addPong(...pong(3000, 12, 8));
    c.addPong(...pong(4000, 9, 11));
    expect(Math.abs(c.serverAt(5000)! - (TRUTH + 5000))).toBeLessThanOrEqual(2);
  });

  it("follows a path that changed: once the window has rolled, only the new path counts", () => {
    const c = createClockEstimator();
    // A fast path whose last hop was asymmetric in the server's favour...
    for (let i = 0; i < CLOCK_WINDOW; i++) c.addPong(...pong(i * 1000, 2, 2));
    // ...then the clocks are the same but the page is 300 ms behind a slow, lopsided link
    // (the old rule kept the 4 ms round trip for ever and never looked at these).
    const later = 100_000;
    for (let i = 0; i < CLOCK_WINDOW; i++) c.addPong(...pong(later + i * 1000, 250, 50));
    // The best the new path can say: the midpoint rule is off by (up - down) / 2.
    expect(c.serverAt(200_000)! - (TRUTH + 200_000)).toBeCloseTo(100, 6);
    expect(c.samples()).toHaveLength(CLOCK_WINDOW);
  });

  it("never reads the wall clock: a page whose Date is 4 s wrong, or steps mid-song, keeps the room's time", () => {
    const c = createClockEstimator();
    const realNow = Date.now;
    try {
      Date.now = () => realNow() + 4000;
      c.addPong(...pong(0, 15, 15));
      const before = c.serverAt(10_000);
      Date.now = () => realNow() - 3000;
      expect(c.serverAt(10_000)).toBe(before);
      expect(before).toBe(TRUTH + 10_000);
    } finally {
      Date.now = realNow;
    }
  });

  it("ignores samples that cannot be true, and forgets old round trips on reset", () => {
    const c = createClockEstimator();
    expect(c.addPong(100, 90, TRUTH)).toBe(false); // back before it left
    expect(c.addPong(Number.NaN, 90, TRUTH)).toBe(false);
    expect(c.addPong(0, 10, Number.POSITIVE_INFINITY)).toBe(false);
    expect(c.serverAt(0)).toBeNull();
    c.addPong(...pong(0, 1, 1));
    c.anchor(TRUTH + 777, 0);
    expect(c.serverAt(0)).toBe(TRUTH); // a pong outranks the state's stamp
    c.reset();
    expect(c.samples()).toHaveLength(0);
    expect(c.serverAt(0)).toBe(TRUTH + 777); // back to the last stamp until a new pong
  });
});

describe("drift correction", () => {
  const rateAt = (cur: number, want = 10) =>
    (driftAction(cur, want) as { kind: "rate"; rate: number }).rate;

  it("a small error only leans the playback rate against it, in proportion, within 3 %", () => {
    expect(driftAction(10.02, 10).kind).toBe("rate");
    expect(rateAt(10.02)).toBeCloseTo(1 - 0.02 * DRIFT_GAIN, 9);
    expect(rateAt(9.98)).toBeCloseTo(1 + 0.02 * DRIFT_GAIN, 9);
    for (const err of [0.031, 0.04, DRIFT_SEEK_S - 0.001]) {
      expect(driftAction(10 + err, 10)).toEqual({ kind: "rate", rate: 1 - DRIFT_MAX_RATE });
      expect(driftAction(10 - err, 10)).toEqual({ kind: "rate", rate: 1 + DRIFT_MAX_RATE });
    }
  });

  it("never plays at exactly 1: within a few ms it leans by the least step, against the error", () => {
    expect(rateAt(10.001)).toBeCloseTo(1 - DRIFT_MIN_RATE, 9);
    expect(rateAt(9.999)).toBeCloseTo(1 + DRIFT_MIN_RATE, 9);
    expect(rateAt(10)).not.toBe(1);
    for (let err = -0.049; err <= 0.049; err += 0.0007)
      expect(Math.abs(rateAt(10 + err) - 1)).toBeGreaterThanOrEqual(DRIFT_MIN_RATE - 1e-12);
    expect(DRIFT_IDLE_RATE).not.toBe(1);
  });

  it("a large error seeks, ahead of the room by the lag the last seek had", () => {
    expect(driftAction(2, 10)).toEqual({ kind: "seek", to: 10 });
    expect(driftAction(12, 10, 0.04)).toEqual({ kind: "seek", to: 10.04 });
    expect(driftAction(10 + DRIFT_SEEK_S + 0.01, 10).kind).toBe("seek");
    expect(driftAction(Number.NaN, 3)).toEqual({ kind: "seek", to: 3 });
    expect(driftAction(5, -1)).toEqual({ kind: "seek", to: 0 }); // never below zero
  });

  it("until it is in line, an error past DRIFT_LOCK_S seeks; once in line it only leans", () => {
    expect(driftAction(10.04, 10, 0, false).kind).toBe("seek");
    expect(driftAction(10.04, 10, 0, true).kind).toBe("rate");
    expect(driftAction(10 + DRIFT_LOCK_S / 2, 10, 0, false).kind).toBe("rate");
  });

  it("leaning closes a 45 ms error within 10 s without overshooting past a few ms", () => {
    let pos = 9.955;
    let want = 10;
    for (let t = 0; t < 100; t++) {
      const a = driftAction(pos, want);
      expect(a.kind).toBe("rate");
      pos += 0.1 * (a as { rate: number }).rate;
      want += 0.1;
      expect(pos - want).toBeLessThan(0.002);
    }
    expect(Math.abs(pos - want)).toBeLessThan(0.002);
  });
});

/**
 * An element under the corrector, 100 ms a tick: it plays at its rate, and a seek of `jump`
 * s lands `lag(jump)` s behind where it was sent (the element takes that long to sound again).
 */
function simulate(start: number, lag: (jump: number) => number, ticks: number) {
  const d = createDriftCorrector();
  let now = 0; // monotonic ms
  let room = 5; // the room's position (s)
  let pos = start;
  let rate = DRIFT_IDLE_RATE;
  const seeks: number[] = [];
  const errs: number[] = [];
  for (let i = 0; i < ticks; i++) {
    const a = d.step(pos, room, now);
    if (a?.kind === "seek") {
      seeks.push(now);
      pos = a.to - lag(Math.abs(a.to - pos));
      rate = DRIFT_IDLE_RATE;
    } else if (a) rate = a.rate;
    errs.push(pos - room);
    now += 100;
    room += 0.1;
    pos += 0.1 * rate;
  }
  return { d, seeks, errs };
}

describe("the drift corrector", () => {
  it("puts a late start in line with a few seeks, each ahead by the last one's lag, then locks", () => {
    const { d, seeks, errs } = simulate(0, () => 0.06, 30);
    // The far seek, a short one that learns the lag, one that lands.
    expect(seeks).toHaveLength(3);
    expect(d.locked()).toBe(true);
    // Locked within half a second, and in line from then on.
    expect(seeks.at(-1)!).toBeLessThan(500);
    for (const e of errs.slice(8)) expect(Math.abs(e)).toBeLessThanOrEqual(DRIFT_LOCK_S);
  });

  it("learns the lead from short seeks only: a far seek's wait for the network is not one", () => {
    // The first seek (5 s ahead) waits 300 ms for its data; a seek within the buffer, 60 ms.
    const { d, seeks, errs } = simulate(0, (jump) => (jump > SHORT_SEEK_S ? 0.3 : 0.06), 30);
    expect(seeks).toHaveLength(3);
    expect(d.locked()).toBe(true);
    // Past the far seek's landing, never more than a short seek's lag off (leading the
    // second seek by the far one's 300 ms would have put it 240 ms ahead).
    for (const e of errs.slice(2)) expect(Math.abs(e)).toBeLessThanOrEqual(0.06 + 1e-9);
    for (const e of errs.slice(8)) expect(Math.abs(e)).toBeLessThanOrEqual(DRIFT_LOCK_S);
  });

  it("does not call a start in line before its clock has run; locked, a stall is one seek a second", () => {
    const d = createDriftCorrector();
    // In line at the first look, but the element has not played yet: not locked.
    expect(d.step(5, 5, 0)?.kind).toBe("rate");
    expect(d.locked()).toBe(false);
    expect(d.step(5.1, 5.1, SEEK_SETTLE_MS)?.kind).toBe("rate");
    expect(d.locked()).toBe(true);
    // A 40 ms drift is leaned, a 500 ms stall is a seek; the song stays locked.
    expect(d.step(5.96, 6, 900)?.kind).toBe("rate");
    expect(d.step(6, 6.5, 1000)).toEqual({ kind: "seek", to: 6.5 });
    expect(d.locked()).toBe(true);
    // Landed 200 ms behind: no second skip before a second has passed...
    expect(d.step(6.6, 6.8, 1000 + SEEK_SETTLE_MS)).toBeNull();
    expect(d.step(6.7, 6.9, 1900)).toBeNull();
    // ...then one, ahead by what the last one lagged.
    const again = d.step(6.8, 7, 2000);
    expect(again?.kind).toBe("seek");
    expect((again as { to: number }).to).toBeCloseTo(7.2, 9);
  });

  it("after LOCK_SEEKS a start is leaned in, heard by LOCK_MAX_MS; never more than MAX_SEEKS", () => {
    const d = createDriftCorrector();
    let now = 0;
    let n = 0;
    // Every seek lands 40 ms off in a new direction: the start never locks by seeking.
    const wobble = (ticks: number) => {
      for (let i = 0; i < ticks; i++, now += 100) {
        const a = d.step(10 + (i % 2 ? 0.04 : -0.04), 10, now);
        if (a?.kind === "seek") n++;
        else if (a) expect(a.kind).toBe("rate");
      }
    };
    wobble(25);
    expect(n).toBe(LOCK_SEEKS);
    expect(d.locked()).toBe(false); // still unheard, leaning
    wobble(10);
    expect(n).toBe(LOCK_SEEKS);
    expect(now).toBeGreaterThan(LOCK_MAX_MS);
    expect(d.locked()).toBe(true);
    // Stalls past DRIFT_SEEK_S, one a second: at most MAX_SEEKS seeks in all.
    for (let i = 0; i < 100; i++, now += 1000) if (d.step(0, 100, now)?.kind === "seek") n++;
    expect(n).toBe(MAX_SEEKS);
  });
});

describe("reconnect backoff", () => {
  it("waits nothing before the first connect, and a random share of a doubling ceiling after", () => {
    expect(reconnectDelay(0)).toBe(0);
    expect(reconnectDelay(1, () => 0.999)).toBe(999);
    expect(reconnectDelay(2, () => 0.5)).toBe(1000);
    expect(reconnectDelay(4, () => 0.5)).toBe(4000);
    expect(reconnectDelay(40, () => 0.999)).toBeLessThanOrEqual(RECONNECT_CAP_MS);
    expect(reconnectDelay(1000, () => 1)).toBe(RECONNECT_CAP_MS);
  });

  it("spreads a crowd that dropped at once over the whole window (full jitter)", () => {
    const delays = Array.from({ length: 1000 }, () => reconnectDelay(3));
    const buckets = [0, 0, 0, 0];
    for (const d of delays) buckets[Math.min(3, Math.floor(d / 1000))]++;
    // 4 s ceiling: each second gets about a quarter; none gets the whole crowd.
    for (const b of buckets) expect(b).toBeGreaterThan(150);
  });

  it("a roomReset rejoins at a random instant within rejoinWithinMs, never negative", () => {
    expect(rejoinDelay(2000, () => 0.5)).toBe(1000);
    expect(rejoinDelay(2000, () => 0.9999)).toBeLessThan(2000);
    expect(rejoinDelay(-5)).toBe(0);
    expect(rejoinDelay(Number.NaN)).toBe(0);
  });
});
