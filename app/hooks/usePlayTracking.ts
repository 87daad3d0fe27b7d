import { useEffect, useMemo, useRef, type RefObject } from "react";
import {
  createPlayTracker,
  type PlayRecord,
  type PlayTopic,
  type PlayTracker,
} from "../../shared/play-tracking";
import type { PlayContext } from "~/lib/rooms";
import { pickProvider, songKey, type AnySong } from "~/lib/songs";
import { useRootData } from "./useRootData";

/** Where play events go (seed 001, Audit service: `POST /kinesis`). */
export const KINESIS_PATH = "/api/audit-service/kinesis";
/** How often a playing song reports progress; half the 10 s windows, so none is missed. */
export const CONTINUE_EVERY_MS = 5000;

/** The id a play names its song by: the catalogue id, or a provider id for a raw hit. */
export const playSongId = (s: AnySong) => s.songId || songKey(s, -1);

/** A Discord activity is served from `<app id>.discordsays.com` (seed 001: Discord-activity mode). */
const inDiscord = () =>
  typeof location !== "undefined" && location.hostname.endsWith(".discordsays.com");

/** crypto.randomUUID exists only in secure contexts; a LAN http address still gets a v4 uuid. */
function newUuid(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Fire-and-forget: tracking must never slow or break playback. keepalive lets the last
 * event of a closing page still leave. The session cookie says who; without one the API
 * would answer 401, so a signed-out visitor is simply not tracked.
 */
function post(isLoggedIn: boolean, topic: PlayTopic, record: PlayRecord) {
  if (!isLoggedIn) return;
  const kinesisDataRecord = {
    ...record,
    deviceData: { platform: "web", isDiscord: inDiscord(), isLoggedIn },
  };
  try {
    void fetch(KINESIS_PATH, {
      method: "POST",
      keepalive: true,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ topic, kinesisDataRecord }),
    }).catch(() => {});
  } catch {
    /* fetch refused synchronously (keepalive quota): the event is lost, playback is not */
  }
}

/** One tracker for the page's lifetime; it sends while someone is signed in. */
export function usePlayTracking(): PlayTracker {
  const root = useRootData();
  const auth = useRef({ isLoggedIn: !!root?.user });
  auth.current = { isLoggedIn: !!root?.user };
  return useMemo(
    () =>
      createPlayTracker({
        now: () => Date.now(),
        newId: newUuid,
        send: (topic, record) => post(auth.current.isLoggedIn, topic, record),
      }),
    [],
  );
}

const cut = (v: string | null | undefined) => (v ? v.slice(0, 200) : null);

type TrackedUser = { uuid: string; subscriptionLevel?: string | null } | null;

/** What a play starts with, whichever player plays it (the audio element or YouTube's iframe). */
function startRecord(
  s: AnySong,
  user: TrackedUser,
  where: PlayContext | null,
  provider: string | null,
  volume: number,
): Parameters<PlayTracker["start"]>[0] {
  return {
    roomSlug: where?.roomSlug ?? null,
    roomOwnerUuid: where?.roomOwnerUuid ?? null,
    djUuid: where?.djUuid ?? null,
    playId: where?.playId ?? null,
    songInfo: {
      songId: playSongId(s),
      trackName: cut(s.trackName),
      artistName: cut(s.artistName),
      duration: s.duration ?? null,
    },
    userUuid: user?.uuid ?? null,
    userProvider: provider,
    subscriptionLevel: user?.subscriptionLevel ?? null,
    volume,
  };
}

/**
 * Tracks what the player's audio element plays: start on playing, continue every 5 s
 * (timeupdate, throttled), end on pause, ended, song change and page hide. `room` is where
 * the song plays (the room page passes it with `play`); outside a room the room fields are
 * null and the play gets its own id.
 */
export function useAudioPlayTracking(
  audioRef: RefObject<HTMLAudioElement>,
  song: AnySong | null,
  room: RefObject<PlayContext | null>,
) {
  const tracker = usePlayTracking();
  const root = useRootData();
  const ctx = useRef({ song, user: root?.user ?? null });
  ctx.current = { song, user: root?.user ?? null };

  // A new song (or none) ends the previous play, even if no pause event came first.
  useEffect(() => () => tracker.end(), [song, tracker]);

  useEffect(() => {
    const audio = audioRef.current;
    if (!audio) return;
    let last = 0;
    // A room song plays silent while it is put in line with the room (NowPlaying's hold):
    // the volume the listener chose is the one it keeps aside.
    const volume = () => (audio.muted ? 0 : Number(audio.dataset.heldVolume ?? audio.volume));
    const onPlaying = () => {
      const { song: s, user } = ctx.current;
      if (!s) return;
      const where = room.current;
      // "playing" also follows a buffering stall: the open play of this song goes on (but a
      // room playing the same song again is a new play, with a new room playId).
      const open = tracker.current();
      if (
        open &&
        open.songInfo.songId === playSongId(s) &&
        (!where?.playId || open.playId === where.playId)
      )
        return;
      tracker.start(startRecord(s, user, where, pickProvider(s).provider, volume()));
      last = Date.now();
    };
    const onTime = () => {
      const s = ctx.current.song;
      if (!s || audio.paused || Date.now() - last < CONTINUE_EVERY_MS) return;
      last = Date.now();
      tracker.continue({
        roomSlug: room.current?.roomSlug ?? null,
        songId: playSongId(s),
        volume: volume(),
      });
    };
    const end = () => tracker.end();
    const events: [string, () => void][] = [
      ["playing", onPlaying],
      ["timeupdate", onTime],
      ["pause", end],
      ["ended", end],
    ];
    for (const [ev, fn] of events) audio.addEventListener(ev, fn);
    window.addEventListener("pagehide", end);
    return () => {
      for (const [ev, fn] of events) audio.removeEventListener(ev, fn);
      window.removeEventListener("pagehide", end);
      tracker.end();
    };
  }, [audioRef, tracker, room]);
}

/**
 * Tracks a room song played by YouTube's iframe player (RoomYouTube), by the same rules as
 * the audio element: start when it reports PLAYING, continue every 5 s while it plays, end
 * on pause, end, a new play and page hide. `playing` and `volume` come from the player.
 */
export function useYouTubePlayTracking(
  song: AnySong | null,
  where: PlayContext | null,
  playing: boolean,
  volume: () => number,
) {
  const tracker = usePlayTracking();
  const root = useRootData();
  const ctx = useRef({ song, where, user: root?.user ?? null, volume });
  ctx.current = { song, where, user: root?.user ?? null, volume };
  const playId = where?.playId ?? null;

  useEffect(() => {
    const { song: s, user } = ctx.current;
    if (!playing || !s) return;
    const open = tracker.current();
    if (!(open && open.songInfo.songId === playSongId(s) && open.playId === playId)) {
      tracker.start(startRecord(s, user, ctx.current.where, "youtube", ctx.current.volume()));
    }
    const timer = setInterval(() => {
      const cur = ctx.current;
      if (cur.song)
        tracker.continue({
          roomSlug: cur.where?.roomSlug ?? null,
          songId: playSongId(cur.song),
          volume: cur.volume(),
        });
    }, CONTINUE_EVERY_MS);
    const end = () => tracker.end();
    window.addEventListener("pagehide", end);
    return () => {
      clearInterval(timer);
      window.removeEventListener("pagehide", end);
      tracker.end();
    };
  }, [playing, playId, tracker]);
}
