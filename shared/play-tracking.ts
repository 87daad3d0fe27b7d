/**
 * Play tracking (seed 001, "Play tracking" and "Play-tracking record"): the browser keeps
 * one record per song it plays and reports it to the audit-service (`POST /kinesis`).
 * Pure and clock-injected (no DOM, no fetch) so the rules are tested with a fake clock and
 * the same module can serve the web client and, later, the room page.
 */

/** Topics, as the audit-service accepts them (`GET /info-admin/user-events-names`). */
export const PLAY_15_SECONDS = "play-15-seconds";
export const PLAY_30_SECONDS = "play-30-seconds";
export const PLAY_TOTAL = "play-total";
export const PLAY_RECORD = "play-record";
export const PLAY_TOPICS = [PLAY_15_SECONDS, PLAY_30_SECONDS, PLAY_TOTAL, PLAY_RECORD] as const;
export type PlayTopic = (typeof PLAY_TOPICS)[number];

/** Seed 001 constants: "Play tracking thresholds 10-20 s and 25-35 s" (inclusive, seconds). */
export const PLAY_15_WINDOW = [10, 20] as const;
export const PLAY_30_WINDOW = [25, 35] as const;

/** What the record says about the song; songId names it, anything else is descriptive. */
export interface PlaySongInfo {
  songId: string;
  [key: string]: unknown;
}

/** The record, with exactly the spec's field names. Dates are ISO 8601 strings. */
export interface PlayRecord {
  userUuid: string | null;
  roomSlug: string | null;
  roomOwnerUuid: string | null;
  djUuid: string | null;
  songInfo: PlaySongInfo;
  startedDate: string;
  updatedDate: string;
  volumeStart: number;
  volumeEnd: number;
  playId: string;
  sent15sec: boolean;
  sent30sec: boolean;
  userProvider: string | null;
  subscriptionLevel: string | null;
}

export type PlayStart = Pick<
  PlayRecord,
  | "roomSlug"
  | "roomOwnerUuid"
  | "djUuid"
  | "songInfo"
  | "userUuid"
  | "userProvider"
  | "subscriptionLevel"
> & {
  volume: number;
  /**
   * The play's id when someone else names it: in a room, the Room object's playId (every
   * listener of that song reports the same one). Otherwise a fresh id is made.
   */
  playId?: string | null;
};

export interface PlayContinue {
  roomSlug: string | null;
  songId: string;
  volume: number;
}

export interface PlayTrackerOptions {
  /** Receives a copy of the record; the caller delivers it (fire-and-forget). */
  send: (topic: PlayTopic, record: PlayRecord) => void;
  /** Milliseconds since the epoch; injected so tests drive time. */
  now: () => number;
  /** Injected for tests; defaults to crypto.randomUUID. */
  newId?: () => string;
}

export interface PlayTracker {
  start(p: PlayStart): void;
  continue(p: PlayContinue): void;
  end(): void;
  /** The open record (a copy), or null. */
  current(): PlayRecord | null;
}

const inWindow = (s: number, [lo, hi]: readonly [number, number]) => s >= lo && s <= hi;

export function createPlayTracker({
  send,
  now,
  newId = () => crypto.randomUUID(),
}: PlayTrackerOptions): PlayTracker {
  let record: PlayRecord | null = null;
  // Kept as numbers beside the ISO strings so elapsed time never depends on date parsing.
  let startedMs = 0;

  // Snapshots: a sent record must not change when the open one is updated afterwards.
  const emit = (topic: PlayTopic, r: PlayRecord) =>
    send(topic, { ...r, songInfo: { ...r.songInfo } });
  const elapsedSeconds = (at: number) => Math.max(0, (at - startedMs) / 1000);

  const end = () => {
    if (!record) return;
    const r = record;
    record = null;
    // Ending is the moment playback stopped, so the final update time is now.
    const at = Math.max(now(), startedMs);
    r.updatedDate = new Date(at).toISOString();
    emit(PLAY_RECORD, r);
    if (elapsedSeconds(at) > 0) emit(PLAY_TOTAL, r);
  };

  return {
    start(p) {
      // Seed 001: "Start creates a record and sends any previous one".
      end();
      startedMs = now();
      const iso = new Date(startedMs).toISOString();
      record = {
        userUuid: p.userUuid,
        roomSlug: p.roomSlug,
        roomOwnerUuid: p.roomOwnerUuid,
        djUuid: p.djUuid,
        songInfo: { ...p.songInfo },
        startedDate: iso,
        updatedDate: iso,
        volumeStart: p.volume,
        volumeEnd: p.volume,
        playId: p.playId || newId(),
        sent15sec: false,
        sent30sec: false,
        userProvider: p.userProvider,
        subscriptionLevel: p.subscriptionLevel,
      };
    },

    continue(p) {
      const r = record;
      // Another room's or another song's event belongs to some other play: ignored.
      if (!r || p.roomSlug !== r.roomSlug || p.songId !== r.songInfo.songId) return;
      const at = now();
      r.updatedDate = new Date(Math.max(at, startedMs)).toISOString();
      r.volumeEnd = p.volume;
      const s = elapsedSeconds(at);
      // Only inside a window: a listener who seeks or sleeps past one never sends it late.
      if (!r.sent15sec && inWindow(s, PLAY_15_WINDOW)) {
        r.sent15sec = true;
        emit(PLAY_15_SECONDS, r);
      }
      if (!r.sent30sec && inWindow(s, PLAY_30_WINDOW)) {
        r.sent30sec = true;
        emit(PLAY_30_SECONDS, r);
      }
    },

    end,

    current: () => (record ? { ...record, songInfo: { ...record.songInfo } } : null),
  };
}
