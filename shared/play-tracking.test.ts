import { describe, expect, it } from "vitest";
import {
  createPlayTracker,
  PLAY_15_SECONDS,
  PLAY_30_SECONDS,
  PLAY_RECORD,
  PLAY_TOTAL,
  type PlayRecord,
  type PlayStart,
  type PlayTopic,
} from "./play-tracking";

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

/** A tracker on a fake clock that records what it sends. */
function setup() {
  let t = T0;
  let ids = 0;
  const sent: { topic: PlayTopic; record: PlayRecord }[] = [];
  const tracker = createPlayTracker({
    send: (topic, record) => sent.push({ topic, record }),
    now: () => t,
    newId: () => `play-${++ids}`,
  });
  const at = (seconds: number) => (t = T0 + seconds * 1000);
  const topics = () => sent.map((s) => s.topic);
  return { tracker, sent, at, topics };
}

const song = (songId = "song-1", roomSlug: string | null = "the-room"): PlayStart => ({
  roomSlug,
  roomOwnerUuid: "owner-uuid",
  djUuid: "dj-uuid",
  songInfo: { songId, trackName: "Track" },
  userUuid: "user-uuid",
  userProvider: "uploadService",
  subscriptionLevel: null,
  volume: 0.5,
});
const tick = (songId = "song-1", roomSlug: string | null = "the-room", volume = 0.5) => ({
  roomSlug,
  songId,
  volume,
});

describe("play tracker: continue windows", () => {
  const timelines: { name: string; continues: number[]; expected: PlayTopic[] }[] = [
    {
      name: "5, 12, 14, 27, 40 s: one 15 s and one 30 s event",
      continues: [5, 12, 14, 27, 40],
      expected: [PLAY_15_SECONDS, PLAY_30_SECONDS],
    },
    { name: "9 then 21 s: the 15 s window was skipped, nothing", continues: [9, 21], expected: [] },
    {
      name: "window edges 10 and 35 s count",
      continues: [10, 35],
      expected: [PLAY_15_SECONDS, PLAY_30_SECONDS],
    },
    {
      name: "20 and 25 s count",
      continues: [20, 25],
      expected: [PLAY_15_SECONDS, PLAY_30_SECONDS],
    },
    { name: "only 36 s and later: nothing", continues: [36, 60, 120], expected: [] },
    {
      name: "every 5 s for a minute: each once",
      continues: [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60],
      expected: [PLAY_15_SECONDS, PLAY_30_SECONDS],
    },
  ];
  for (const tl of timelines) {
    it(tl.name, () => {
      const { tracker, at, topics } = setup();
      at(0);
      tracker.start(song());
      for (const s of tl.continues) {
        at(s);
        tracker.continue(tick());
      }
      expect(topics()).toEqual(tl.expected);
    });
  }

  it("marks the sent flags and updates updatedDate and volumeEnd", () => {
    const { tracker, sent, at } = setup();
    at(0);
    tracker.start(song());
    at(12);
    tracker.continue(tick("song-1", "the-room", 0.8));
    const r = sent[0].record;
    expect(r).toMatchObject({
      sent15sec: true,
      sent30sec: false,
      volumeStart: 0.5,
      volumeEnd: 0.8,
      playId: "play-1",
    });
    expect(r.startedDate).toBe(new Date(T0).toISOString());
    expect(r.updatedDate).toBe(new Date(T0 + 12_000).toISOString());
    // The sent copy does not change when the open record moves on.
    at(27);
    tracker.continue(tick("song-1", "the-room", 0.2));
    expect(r.sent30sec).toBe(false);
    expect(sent[1].record).toMatchObject({ sent15sec: true, sent30sec: true, volumeEnd: 0.2 });
  });
});

describe("play tracker: start and end", () => {
  it("end at 0 s sends the record but no total", () => {
    const { tracker, at, topics } = setup();
    at(0);
    tracker.start(song());
    tracker.end();
    expect(topics()).toEqual([PLAY_RECORD]);
    expect(tracker.current()).toBeNull();
  });

  it("end after playing sends the record and the total, then clears", () => {
    const { tracker, sent, at, topics } = setup();
    at(0);
    tracker.start(song());
    at(42);
    tracker.end();
    expect(topics()).toEqual([PLAY_RECORD, PLAY_TOTAL]);
    expect(sent[1].record.updatedDate).toBe(new Date(T0 + 42_000).toISOString());
    tracker.end();
    tracker.continue(tick());
    expect(sent).toHaveLength(2);
  });

  it("start while a record is open sends the old one first, then replaces it", () => {
    const { tracker, sent, at, topics } = setup();
    at(0);
    tracker.start(song("song-1"));
    at(7);
    tracker.start(song("song-2"));
    expect(topics()).toEqual([PLAY_RECORD, PLAY_TOTAL]);
    expect(
      sent.every((s) => s.record.playId === "play-1" && s.record.songInfo.songId === "song-1"),
    ).toBe(true);
    expect(tracker.current()).toMatchObject({
      playId: "play-2",
      songInfo: { songId: "song-2" },
      startedDate: new Date(T0 + 7000).toISOString(),
    });
  });

  it("ignores events for another room or another song", () => {
    const { tracker, at, topics } = setup();
    at(0);
    tracker.start(song("song-1", "the-room"));
    at(12);
    tracker.continue(tick("song-2", "the-room"));
    tracker.continue(tick("song-1", "other-room"));
    tracker.continue(tick("song-1", null));
    expect(topics()).toEqual([]);
    expect(tracker.current()?.updatedDate).toBe(new Date(T0).toISOString());
    tracker.continue(tick("song-1", "the-room"));
    expect(topics()).toEqual([PLAY_15_SECONDS]);
  });

  it("continue before any start sends nothing", () => {
    const { tracker, at, topics } = setup();
    at(12);
    tracker.continue(tick());
    tracker.end();
    expect(topics()).toEqual([]);
  });

  it("uses crypto.randomUUID for playId by default", () => {
    const tracker = createPlayTracker({ send: () => {}, now: () => T0 });
    tracker.start(song());
    expect(tracker.current()?.playId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("play tracker: plays in a room", () => {
  it("keeps the room's slug, owner, DJ and playId on every event; continue from another room is ignored", () => {
    const { tracker, sent, at, topics } = setup();
    at(0);
    tracker.start({ ...song(), playId: "room-play-7" });
    at(12);
    tracker.continue(tick("song-1", "another-room"));
    expect(topics()).toEqual([]);
    tracker.continue(tick());
    at(40);
    tracker.end();
    expect(topics()).toEqual([PLAY_15_SECONDS, PLAY_RECORD, PLAY_TOTAL]);
    for (const { record } of sent)
      expect(record).toMatchObject({
        roomSlug: "the-room",
        roomOwnerUuid: "owner-uuid",
        djUuid: "dj-uuid",
        playId: "room-play-7",
      });
  });

  it("makes its own playId outside a room (null or absent)", () => {
    const { tracker, at } = setup();
    at(0);
    tracker.start({ ...song("s", null), playId: null });
    expect(tracker.current()!.playId).toBe("play-1");
    tracker.start(song("t", null));
    expect(tracker.current()!.playId).toBe("play-2");
  });
});
