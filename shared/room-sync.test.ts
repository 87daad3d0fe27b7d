import { describe, expect, it } from "vitest";
import {
  CLOCK_WINDOW,
  createClockEstimator,
  DRIFT_MAX_RATE,
  DRIFT_SEEK_S,
  driftAction,
  reconnectDelay,
  RECONNECT_CAP_MS,
  rejoinDelay,
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
  it("a small error only leans the playback rate against it, within 3 %", () => {
    const rateAt = (cur: number) => (driftAction(cur, 10) as { kind: "rate"; rate: number }).rate;
    expect(driftAction(10.02, 10).kind).toBe("rate");
    expect(rateAt(10.02)).toBeCloseTo(1 - 0.02 * 0.5, 9);
    expect(rateAt(9.98)).toBeCloseTo(1 + 0.02 * 0.5, 9);
    for (const err of [0.1, 0.2, DRIFT_SEEK_S - 0.001]) {
      expect(driftAction(10 + err, 10)).toEqual({ kind: "rate", rate: 1 - DRIFT_MAX_RATE });
      expect(driftAction(10 - err, 10)).toEqual({ kind: "rate", rate: 1 + DRIFT_MAX_RATE });
    }
  });

  it("within a few ms the rate is 1", () => {
    expect(driftAction(10.003, 10)).toEqual({ kind: "rate", rate: 1 });
    expect(driftAction(9.997, 10)).toEqual({ kind: "rate", rate: 1 });
  });

  it("a large error seeks, ahead of the room by the lag the last seek had", () => {
    expect(driftAction(2, 10)).toEqual({ kind: "seek", to: 10 });
    expect(driftAction(12, 10, 0.04)).toEqual({ kind: "seek", to: 10.04 });
    expect(driftAction(Number.NaN, 3)).toEqual({ kind: "seek", to: 3 });
    expect(driftAction(5, -1)).toEqual({ kind: "seek", to: 0 }); // never below zero
  });

  it("leaning closes a 250 ms error within 15 s without overshooting", () => {
    let pos = 9.75;
    let want = 10;
    for (let t = 0; t < 60; t++) {
      const a = driftAction(pos, want);
      expect(a.kind).toBe("rate");
      pos += 0.25 * (a as { rate: number }).rate;
      want += 0.25;
      expect(pos).toBeLessThanOrEqual(want + 1e-9);
    }
    expect(Math.abs(pos - want)).toBeLessThan(0.01);
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
