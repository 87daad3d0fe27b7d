// Pure pieces of a listener's sync with the room (DESIGN.md, "The room protocol"): the
// server-clock estimate, the drift decision and the reconnect backoff. No timers and no
// globals: the browser hook (app/hooks/useRoom.ts) and the room audio feed them clocks.

// ---- The server clock ------------------------------------------------------------------------

/** Pong samples kept: the best is chosen among the most recent ones only. */
export const CLOCK_WINDOW = 8;

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
 * within CLOCK_WINDOW pings. Among them the fastest round trip wins: a sample's offset can
 * be off by at most half its round trip (a pong queued on the way out or a page busy when
 * it came back makes a slow, lopsided sample), so the fastest is the one that can be least
 * wrong. (Measured on a loaded 2-core machine: round trips from 6 to 310 ms; the fastest
 * samples were within 3 ms of the truth, the slowest up to 128 ms off.)
 */
export function createClockEstimator(window = CLOCK_WINDOW): ClockEstimator {
  let win: ClockSample[] = [];
  let anchored: number | null = null;
  let estimate: number | null = null;
  const recompute = () => {
    if (!win.length) {
      estimate = anchored;
      return;
    }
    estimate = win.reduce((best, s) => (s.rtt < best.rtt ? s : best)).offset;
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

/**
 * Once locked, past this (s) the element seeks; below it, only the rate moves. A drift (the
 * audio clock against the machine's, a new clock estimate) is a few ms a second and the rate
 * keeps it far below this; what passes it is a jump, a stall of the audio (measured on a
 * loaded 2-core machine: 30 to 120 ms), which leaning at 3 % would take seconds to mend.
 */
export const DRIFT_SEEK_S = 0.05;
/**
 * Until the element is locked (the start of its song), past this (s) it seeks again: a
 * start is put in line by a few short seeks while it is not heard (NowPlaying holds it
 * silent), not leaned in over seconds, so two listeners start together.
 */
export const DRIFT_LOCK_S = 0.015;
/** The most the rate moves from 1 (3 %: tempo changes, pitch does not, nobody hears it). */
export const DRIFT_MAX_RATE = 0.03;
/**
 * The least it moves (0.2 %): a room song never plays at exactly 1. Chromium plays rates
 * within about 0.1 % of 1 straight through, and each switch between that and its
 * time-stretcher (WSOLA, media/filters/audio_renderer_algorithm.cc) throws away about 20 ms
 * of audio: a lean that ended at 1 skipped, and the skip started the next lean
 * (measured: a 20 ms jump every second or two). So the element leans one way or the other
 * all song long, by at least this, which keeps it within a few ms of the room.
 */
export const DRIFT_MIN_RATE = 0.002;
/** Rate change per second of error: 30 ms behind plays 3 % fast until it has caught up. */
export const DRIFT_GAIN = 1;
/** The rate a room song starts at, and returns to after a seek (see DRIFT_MIN_RATE). */
export const DRIFT_IDLE_RATE = 1 + DRIFT_MIN_RATE;

export type DriftAction = { kind: "seek"; to: number } | { kind: "rate"; rate: number };

/**
 * What to do about an element at `current` s when the room is at `want` s. A large error
 * (past DRIFT_SEEK_S, or past DRIFT_LOCK_S while not `locked`) is a seek, to `want` plus
 * `seekLead` (what the last seek lagged by, so it lands where the room will be). A small one
 * is never a seek (a seek is an audible skip): the rate leans against the error, in
 * proportion (in steps of 0.1 %), at least DRIFT_MIN_RATE and at most DRIFT_MAX_RATE.
 */
export function driftAction(
  current: number,
  want: number,
  seekLead = 0,
  locked = true,
): DriftAction {
  const seek: DriftAction = { kind: "seek", to: Math.max(0, want + seekLead) };
  if (!Number.isFinite(current)) return seek;
  const err = current - want; // > 0: ahead of the room
  if (Math.abs(err) > (locked ? DRIFT_SEEK_S : DRIFT_LOCK_S)) return seek;
  const lean = Math.max(
    DRIFT_MIN_RATE,
    Math.min(DRIFT_MAX_RATE, Math.round(Math.abs(err) * DRIFT_GAIN * 1000) / 1000),
  );
  return { kind: "rate", rate: err > 0 ? 1 - lean : 1 + lean };
}

/** Seeks one song may make (a machine that cannot keep up is not made to skip for ever). */
export const MAX_SEEKS = 12;
/** Seeks the start may take to lock; after them, the rate leans it in (still unheard). */
export const LOCK_SEEKS = 6;
/** The longest (ms) a start waits to be in line: then it is heard, wherever it is. */
export const LOCK_MAX_MS = 3000;
/**
 * A seek this short (s) lands in what is buffered and teaches the next one its lead; a
 * longer one (the first of a late start) may wait for the network, and its lag says nothing
 * about the short seeks that follow it.
 */
export const SHORT_SEEK_S = 1;
/** After a seek, the element is left this long (ms) before its landing is measured. */
export const SEEK_SETTLE_MS = 150;
/** Seeks once locked are at least this far apart (ms). */
export const SEEK_SPACING_MS = 1000;

export interface DriftCorrector {
  /**
   * The element plays at `current` s and the room is at `want` s, at the monotonic instant
   * `now` (ms): what to do, or null for nothing now. Call it only while the element plays
   * (not paused, not seeking, enough data).
   */
  step(current: number, want: number, now: number): DriftAction | null;
  /** Whether the element has been put in line since its song started (it stays so). */
  locked(): boolean;
}

/**
 * One song's drift correction (driftAction plus its memory). At the start the element is
 * unlocked: it seeks again and again, each time ahead by what the last short seek lagged,
 * until it is found within DRIFT_LOCK_S of the room SEEK_SETTLE_MS after its start or last
 * seek; past LOCK_SEEKS the rate leans it in instead, and past LOCK_MAX_MS it is taken as it
 * is. Then it is locked for the rest of the song: a drift is
 * only leaned out by the playback rate, and an error past DRIFT_SEEK_S (a stall) is a seek,
 * at most one every SEEK_SPACING_MS and MAX_SEEKS in all; what it lands off by, the rate
 * mends (unless it is still past DRIFT_SEEK_S when the spacing allows another).
 */
export function createDriftCorrector(): DriftCorrector {
  let seeks = 0;
  let lastSeek = -Infinity;
  let seekLead = 0;
  /** A seek was made and its landing is still to be measured ("learn": a short one). */
  let landing: null | "learn" | "skip" = null;
  let locked = false;
  let started: number | null = null;
  return {
    step(current, want, now) {
      // An element that has only just started (or landed) has a clock that has not yet run:
      // it may seek, but it is not called in line before it has played a while.
      started ??= now;
      if (landing) {
        if (now - lastSeek < SEEK_SETTLE_MS) return null;
        // Where a short seek landed against where the room is: the next one leads by that.
        if (landing === "learn") seekLead = Math.max(0, Math.min(0.5, seekLead + (want - current)));
        landing = null;
      }
      if (!locked && Number.isFinite(current) && now - started >= SEEK_SETTLE_MS) {
        if (Math.abs(current - want) <= DRIFT_LOCK_S || now - started >= LOCK_MAX_MS) locked = true;
      }
      // Out of start seeks, an unlocked element is treated like a locked one: leaned in.
      const settled = locked || seeks >= LOCK_SEEKS;
      const act = driftAction(current, want, seekLead, settled);
      if (act.kind === "rate") return act;
      if (seeks >= MAX_SEEKS || (settled && now - lastSeek < SEEK_SPACING_MS)) return null;
      seeks++;
      lastSeek = now;
      landing = Math.abs(act.to - current) <= SHORT_SEEK_S ? "learn" : "skip";
      return act;
    },
    locked: () => locked,
  };
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
