// Pure pieces of a listener's sync with the room (DESIGN.md, "The room protocol"): the
// server-clock estimate, the drift decision and the reconnect backoff. No timers and no
// globals: the browser hook (app/hooks/useRoom.ts) and the room audio feed them clocks.

// ---- The server clock ------------------------------------------------------------------------

/** Pong samples kept: the best is chosen among the most recent ones only. */
export const CLOCK_WINDOW = 8;
/** The offset is the median of this many lowest-round-trip samples in the window. */
export const CLOCK_BEST = 3;

export interface ClockSample {
  /** Round trip (ms) on the monotonic clock. */
  rtt: number;
  /** Server epoch ms minus the local monotonic ms at the sample's midpoint. */
  offset: number;
}

export interface ClockEstimator {
  /**
   * A ping sent at `sentMono` came back at `recvMono` (both monotonic ms, e.g.
   * performance.now()) with the server's epoch ms. False when the sample is not usable.
   */
  addPong(sentMono: number, recvMono: number, serverTime: number): boolean;
  /** A full state stamped `serverTime` arrived at `recvMono`: the estimate until a pong comes. */
  anchor(serverTime: number, recvMono: number): void;
  /** A new connection may take another path: forget the old round trips. */
  reset(): void;
  /** Server epoch ms at the monotonic instant `mono`; null before any sample. */
  serverAt(mono: number): number | null;
  /** The samples in the window (oldest first), for tests and debugging. */
  samples(): readonly ClockSample[];
}

/**
 * The server clock on the local monotonic clock. Local wall time (Date.now) never enters:
 * a page whose clock is wrong, or is stepped while a song plays, keeps the room's time.
 * Only recent samples count (a window), so a path that gets slower or faster is followed
 * within CLOCK_WINDOW pings; among them the fastest round trips are the least skewed by
 * one-way delay, and the median of the best few is not thrown by one lucky outlier.
 */
export function createClockEstimator(window = CLOCK_WINDOW, best = CLOCK_BEST): ClockEstimator {
  let win: ClockSample[] = [];
  let anchored: number | null = null;
  let estimate: number | null = null;
  const recompute = () => {
    if (!win.length) {
      estimate = anchored;
      return;
    }
    const top = [...win].sort((a, b) => a.rtt - b.rtt).slice(0, best);
    const offs = top.map((s) => s.offset).sort((a, b) => a - b);
    const mid = offs.length >> 1;
    estimate = offs.length % 2 ? offs[mid] : (offs[mid - 1] + offs[mid]) / 2;
  };
  return {
    addPong(sentMono, recvMono, serverTime) {
      const rtt = recvMono - sentMono;
      if (![sentMono, recvMono, serverTime, rtt].every(Number.isFinite) || rtt < 0) return false;
      win.push({ rtt, offset: serverTime - (sentMono + recvMono) / 2 });
      if (win.length > window) win = win.slice(-window);
      recompute();
      return true;
    },
    anchor(serverTime, recvMono) {
      if (!Number.isFinite(serverTime) || !Number.isFinite(recvMono)) return;
      anchored = serverTime - recvMono;
      if (!win.length) estimate = anchored;
    },
    reset() {
      win = [];
      recompute();
    },
    serverAt: (mono) => (estimate === null ? null : mono + estimate),
    samples: () => win,
  };
}

// ---- Drift ------------------------------------------------------------------------------------

/** Past this (s) the element seeks; below it, only its playback rate is nudged. */
export const DRIFT_SEEK_S = 0.3;
/** Within this (s) the element plays at rate 1 (a nudge ends here). */
export const DRIFT_OK_S = 0.004;
/** The most the rate moves from 1 (3 %: tempo changes, pitch does not, nobody hears it). */
export const DRIFT_MAX_RATE = 0.03;
/** Rate change per second of error: 60 ms behind plays 3 % fast until it has caught up. */
export const DRIFT_GAIN = 0.5;

export type DriftAction = { kind: "seek"; to: number } | { kind: "rate"; rate: number };

/**
 * What to do about an element at `current` s when the room is at `want` s. A large error
 * (a start, a stall, a jump) is a seek, to `want` plus `seekLead` (what the last seek
 * lagged by, so it lands where the room will be). A small one is never a seek (a seek is
 * an audible skip and lands tens of ms off): the rate leans against the error, in
 * proportion and within DRIFT_MAX_RATE, until it is within DRIFT_OK_S.
 */
export function driftAction(current: number, want: number, seekLead = 0): DriftAction {
  if (!Number.isFinite(current)) return { kind: "seek", to: Math.max(0, want + seekLead) };
  const err = current - want; // > 0: ahead of the room
  if (Math.abs(err) > DRIFT_SEEK_S) return { kind: "seek", to: Math.max(0, want + seekLead) };
  if (Math.abs(err) <= DRIFT_OK_S) return { kind: "rate", rate: 1 };
  const lean = Math.max(-DRIFT_MAX_RATE, Math.min(DRIFT_MAX_RATE, err * DRIFT_GAIN));
  return { kind: "rate", rate: 1 - lean };
}

// ---- Reconnects -------------------------------------------------------------------------------

/** The first retry waits up to this (ms); each further one doubles it, up to the cap. */
export const RECONNECT_BASE_MS = 1000;
export const RECONNECT_CAP_MS = 30_000;

/**
 * How long retry `attempt` (1 for the first) waits: exponential backoff with full jitter,
 * `random() * min(cap, base * 2^(attempt-1))`, so a room's crowd dropped at once (a deploy,
 * an eviction) does not come back in one wave, and a dead server is not hammered.
 */
export function reconnectDelay(
  attempt: number,
  random: () => number = Math.random,
  base = RECONNECT_BASE_MS,
  cap = RECONNECT_CAP_MS,
): number {
  if (!(attempt >= 1)) return 0;
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt - 1, 30));
  return Math.floor(Math.max(0, Math.min(1, random())) * ceiling);
}

/** A roomReset's rejoin: a random instant below `rejoinWithinMs` (never negative or NaN). */
export const rejoinDelay = (rejoinWithinMs: number, random: () => number = Math.random) =>
  Number.isFinite(rejoinWithinMs) && rejoinWithinMs > 0
    ? Math.floor(Math.max(0, Math.min(1, random())) * rejoinWithinMs)
    : 0;
