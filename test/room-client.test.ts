import { afterEach, describe, expect, it } from "vitest";
import { floorSpot } from "../app/components/room/Floor";
import { roomPlayContext, startOffsetSeconds } from "../app/lib/rooms";
import {
  loadYouTubeApi,
  resetYouTubeApiForTests,
  roomPlayback,
  YOUTUBE_API_URL,
  youtubeCorrection,
  youtubeStartParam,
  youtubeStartSeconds,
  youtubeVideoId,
  type YouTubeApi,
} from "../app/lib/youtube";

/**
 * The room page's pure logic (issue 4, "Web pages" and "Play tracking"): which player a
 * song goes to, the YouTube offset and drift rule, the iframe API loader (with a fake
 * document: no network), the play-tracking context and the floor spots.
 */

const T = 1_700_000_000_000;
/** A 200 s song that started `ago` seconds before T. */
const np = (ago: number, duration: number | null = 200) => ({
  song: { duration },
  startTime: T - ago * 1000,
  endTime: T - ago * 1000 + 200_000,
});

describe("roomPlayback: which player plays a room song", () => {
  it("an upload plays through HLS, even when the song also has a YouTube id", () => {
    expect(
      roomPlayback({
        streamUrls: { uploadService: "/hls/x.m3u8" },
        musicProviders: { youtube: "dQw4w9WgXcQ" },
      }),
    ).toEqual({ kind: "upload", url: "/hls/x.m3u8" });
  });
  it("a song only YouTube has goes to the YouTube player; links are reduced to the id", () => {
    expect(roomPlayback({ musicProviders: { youtube: "dQw4w9WgXcQ", spotify: "abc" } })).toEqual({
      kind: "youtube",
      videoId: "dQw4w9WgXcQ",
    });
    expect(
      roomPlayback({
        musicProviders: { youtube: "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=3" },
      }),
    ).toEqual({ kind: "youtube", videoId: "dQw4w9WgXcQ" });
  });
  it("nothing playable: none, naming the first provider the song knows", () => {
    expect(roomPlayback({ musicProviders: { spotify: "abc" } })).toEqual({
      kind: "none",
      provider: "spotify",
    });
    expect(roomPlayback({ musicProviders: { youtube: "not an id!" } })).toEqual({
      kind: "none",
      provider: "youtube",
    });
    expect(roomPlayback(null)).toEqual({ kind: "none", provider: null });
  });
});

describe("youtubeVideoId", () => {
  const ok = [
    "dQw4w9WgXcQ",
    " dQw4w9WgXcQ ",
    "https://youtu.be/dQw4w9WgXcQ",
    "youtu.be/dQw4w9WgXcQ?t=1",
    "https://m.youtube.com/watch?v=dQw4w9WgXcQ",
    "https://www.youtube.com/embed/dQw4w9WgXcQ",
    "https://youtube.com/shorts/dQw4w9WgXcQ",
    "https://music.youtube.com/watch?v=dQw4w9WgXcQ",
  ];
  for (const v of ok)
    it(`reads ${JSON.stringify(v)}`, () => expect(youtubeVideoId(v)).toBe("dQw4w9WgXcQ"));
  const bad = [
    null,
    "",
    "short",
    "dQw4w9WgXcQX",
    "https://evil.example/watch?v=dQw4w9WgXcQ",
    "javascript:alert(1)",
    "https://youtube.com/watch?v=bad<script>",
  ];
  for (const v of bad)
    it(`refuses ${JSON.stringify(v)}`, () => expect(youtubeVideoId(v)).toBeNull());
});

describe("YouTube offset: the HLS rule by the server clock", () => {
  it("starts at duration minus the time left, never below zero nor past the end", () => {
    expect(youtubeStartSeconds(np(42), T)).toBeCloseTo(42, 6);
    expect(youtubeStartSeconds(np(42), T)).toBe(startOffsetSeconds(np(42), T));
    expect(youtubeStartSeconds(np(-5), T)).toBe(0); // starts in the future (clock skew)
    expect(youtubeStartSeconds(np(500), T)).toBe(200);
    // No duration: the play's own length (endTime - startTime) stands in.
    expect(youtubeStartSeconds(np(10, null), T)).toBeCloseTo(10, 6);
    expect(youtubeStartParam(np(42.9), T)).toBe(42);
  });
  it("nudges only beyond the tolerance, to where the room is now", () => {
    expect(youtubeCorrection(42.2, np(42), T)).toBeNull();
    expect(youtubeCorrection(41.5, np(42), T)).toBeCloseTo(42, 6);
    expect(youtubeCorrection(43, np(42), T, 0.5)).toBeCloseTo(42, 6);
    expect(youtubeCorrection(Number.NaN, np(42), T)).toBeCloseTo(42, 6);
  });
});

/** A document whose appended script is handed to the test to fire its events. */
function fakePage() {
  const scripts: {
    src: string;
    onerror: (() => void) | null;
    remove: () => void;
    removed?: boolean;
  }[] = [];
  const win: { YT?: Partial<YouTubeApi>; onYouTubeIframeAPIReady?: () => void } = {};
  const doc = {
    createElement: () => {
      const s = {
        src: "",
        async: false,
        onerror: null as (() => void) | null,
        removed: false,
        remove: () => (s.removed = true),
      };
      return s as unknown as HTMLScriptElement;
    },
    head: { appendChild: (s: HTMLScriptElement) => scripts.push(s as never) },
  };
  return { scripts, win, doc };
}

describe("loadYouTubeApi (no network: a fake page)", () => {
  afterEach(() => resetYouTubeApiForTests());

  it("adds the script once and resolves when the API calls back", async () => {
    const { scripts, win, doc } = fakePage();
    const a = loadYouTubeApi(win, doc, 1000);
    const b = loadYouTubeApi(win, doc, 1000);
    expect(scripts).toHaveLength(1);
    expect(scripts[0].src).toBe(YOUTUBE_API_URL);
    const Player = function () {} as unknown as YouTubeApi["Player"];
    win.YT = { Player };
    win.onYouTubeIframeAPIReady!();
    expect((await a).Player).toBe(Player);
    expect(await b).toBe(await a);
    // Loaded: no second script.
    await loadYouTubeApi(win, doc);
    expect(scripts).toHaveLength(1);
  });

  it("offline: the script's error rejects, and the next song tries again", async () => {
    const { scripts, win, doc } = fakePage();
    const p = loadYouTubeApi(win, doc, 1000);
    scripts[0].onerror!();
    await expect(p).rejects.toThrow(/could not be loaded/);
    expect(scripts[0].removed).toBe(true);
    const again = loadYouTubeApi(win, doc, 1000);
    expect(scripts).toHaveLength(2);
    scripts[1].onerror!();
    await expect(again).rejects.toThrow();
  });

  it("a script that never calls back times out", async () => {
    const { win, doc } = fakePage();
    await expect(loadYouTubeApi(win, doc, 20)).rejects.toThrow(/timed out/);
  });
});

describe("roomPlayContext: the room fields of a play record", () => {
  it("carries the slug (lowercase), owner, DJ and the room object's playId", () => {
    expect(
      roomPlayContext(
        { djUuid: "dj-1", playId: "p-1" },
        { slug: "The-Club", ownerUuid: "owner-1" },
      ),
    ).toEqual({ roomSlug: "the-club", roomOwnerUuid: "owner-1", djUuid: "dj-1", playId: "p-1" });
    expect(
      roomPlayContext({ djUuid: "dj-1", playId: "p-1" }, { slug: "club", ownerUuid: null }),
    ).toMatchObject({ roomOwnerUuid: null });
  });
  it("is null when nothing plays or the room is not known yet", () => {
    expect(roomPlayContext(null, { slug: "club" })).toBeNull();
    expect(roomPlayContext({ djUuid: "d", playId: "p" }, null)).toBeNull();
    expect(roomPlayContext({ djUuid: "d", playId: "p" }, { slug: "" })).toBeNull();
  });
});

describe("floorSpot: a listener's place on the floor", () => {
  it("maps the room's position into the floor, keeping the avatar inside", () => {
    expect(floorSpot({ x: 0.25, y: 0.75 })).toEqual({
      left: "calc(0.25 * (100% - 40px))",
      top: "calc(0.75 * (100% - 40px))",
      x: 0.25,
      y: 0.75,
    });
    expect(floorSpot({ x: 1.5, y: -1 })).toMatchObject({ x: 0.999, y: 0 });
  });
  it("someone the room has no data for yet stands in the middle", () => {
    expect(floorSpot(undefined)).toMatchObject({ x: 0.5, y: 0.5 });
    expect(floorSpot({ x: Number.NaN, y: 0.2 })).toMatchObject({ x: 0.5, y: 0.2 });
  });
});
