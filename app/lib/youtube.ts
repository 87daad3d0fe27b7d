import { PROVIDER_PRIORITY, type MusicProvider } from "../../shared/songs";
import { startOffsetSeconds } from "./rooms";

/**
 * YouTube in the room (issue 4, "YouTube through its iframe player when online"): which
 * player a room song goes to, where the YouTube player starts and when it is nudged back in
 * line, and the lazy loader of https://www.youtube.com/iframe_api. Pure but for the loader,
 * whose document and window are injected so it is tested without a network.
 */

export const YOUTUBE_API_URL = "https://www.youtube.com/iframe_api";
/** How long the script may take before the room says YouTube is unavailable. */
export const YOUTUBE_LOAD_TIMEOUT_MS = 8000;
/**
 * The YouTube player reports its time coarsely and seeks to keyframes, so it is nudged only
 * beyond this (the HLS path, which seeks exactly, uses 60 ms).
 */
export const YOUTUBE_DRIFT_S = 0.4;

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;

/**
 * The video id in a song's `musicProviders.youtube`: a bare id, or a watch, share, embed or
 * shorts link. Anything else is null (never handed to the player).
 */
export function youtubeVideoId(value: string | null | undefined): string | null {
  const v = value?.trim();
  if (!v) return null;
  if (VIDEO_ID.test(v)) return v;
  let url: URL;
  try {
    url = new URL(v.includes("://") ? v : `https://${v}`);
  } catch {
    return null;
  }
  const host = url.hostname.replace(/^(www|m|music)\./, "");
  let id: string | null = null;
  if (host === "youtu.be") id = url.pathname.split("/")[1] ?? null;
  else if (host === "youtube.com" || host === "youtube-nocookie.com") {
    id =
      url.searchParams.get("v") ??
      url.pathname.match(/^\/(?:embed|shorts|live|v)\/([^/?#]+)/)?.[1] ??
      null;
  }
  return id && VIDEO_ID.test(id) ? id : null;
}

/** What the room page plays a song with. */
export type RoomPlayback =
  | { kind: "upload"; url: string }
  | { kind: "youtube"; videoId: string }
  | { kind: "none"; provider: MusicProvider | null };

type PlayableSong = {
  streamUrls?: Partial<Record<MusicProvider, string | null>> | null;
  musicProviders?: Partial<Record<MusicProvider, string | null>> | null;
};

/**
 * The player for a room song (seed 001 Playback: the brand's priority order, only among
 * players this browser has). The hangout order ends with uploadService and does not name
 * YouTube, which therefore comes last (docs/DECISIONS.md, "Merge order"): an upload plays
 * through HLS even when the song also has a YouTube id.
 */
export function roomPlayback(song: PlayableSong | null | undefined): RoomPlayback {
  if (!song) return { kind: "none", provider: null };
  const order: readonly MusicProvider[] = [...PROVIDER_PRIORITY.hangout, "youtube"];
  for (const p of order) {
    if (p === "uploadService") {
      const url = song.streamUrls?.uploadService;
      if (url) return { kind: "upload", url };
    } else if (p === "youtube") {
      const videoId = youtubeVideoId(song.musicProviders?.youtube ?? song.streamUrls?.youtube);
      if (videoId) return { kind: "youtube", videoId };
    }
  }
  const known = order.find((p) => song.streamUrls?.[p] || song.musicProviders?.[p]) ?? null;
  return { kind: "none", provider: known };
}

type NowPlayingTimes = Parameters<typeof startOffsetSeconds>[0];

/** Where the YouTube player starts: the HLS rule (duration minus the time left, never below zero). */
export const youtubeStartSeconds = (np: NowPlayingTimes, serverNow: number) =>
  startOffsetSeconds(np, serverNow);

/** The whole seconds for the embed's `start` (the exact offset is sought once it is ready). */
export const youtubeStartParam = (np: NowPlayingTimes, serverNow: number) =>
  Math.floor(youtubeStartSeconds(np, serverNow));

/** The offset to seek to when the player has drifted more than YOUTUBE_DRIFT_S, else null. */
export function youtubeCorrection(
  playerSeconds: number,
  np: NowPlayingTimes,
  serverNow: number,
  tolerance = YOUTUBE_DRIFT_S,
): number | null {
  const want = youtubeStartSeconds(np, serverNow);
  if (!Number.isFinite(playerSeconds)) return want;
  return Math.abs(playerSeconds - want) > tolerance ? want : null;
}

// ---- the iframe API (the parts we use) -----------------------------------------------------

export interface YouTubePlayer {
  seekTo(seconds: number, allowSeekAhead: boolean): void;
  playVideo(): void;
  pauseVideo(): void;
  getCurrentTime(): number;
  getPlayerState(): number;
  /** 0..100 */
  getVolume(): number;
  isMuted(): boolean;
  destroy(): void;
}
export interface YouTubeApi {
  Player: new (
    el: HTMLElement,
    opts: {
      videoId: string;
      width?: string | number;
      height?: string | number;
      playerVars?: Record<string, string | number>;
      events?: {
        onReady?: (e: { target: YouTubePlayer }) => void;
        onStateChange?: (e: { data: number; target: YouTubePlayer }) => void;
        onError?: (e: { data: number }) => void;
      };
    },
  ) => YouTubePlayer;
}
/** YT.PlayerState values. */
export const YT_STATE = {
  UNSTARTED: -1,
  ENDED: 0,
  PLAYING: 1,
  PAUSED: 2,
  BUFFERING: 3,
  CUED: 5,
} as const;

type ApiWindow = {
  YT?: Partial<YouTubeApi> & { loaded?: number };
  onYouTubeIframeAPIReady?: () => void;
};
type ApiDocument = {
  createElement(tag: "script"): HTMLScriptElement;
  head: { appendChild(node: HTMLScriptElement): unknown };
};

let pending: Promise<YouTubeApi> | null = null;

/**
 * Loads the iframe API once per page, only when a YouTube song is to be played. Rejects when
 * the script fails (offline) or does not call back within `timeoutMs`; a rejection is not
 * cached, so the next YouTube song tries again (the network may be back).
 */
export function loadYouTubeApi(
  win: ApiWindow = window as unknown as ApiWindow,
  doc: ApiDocument = document,
  timeoutMs = YOUTUBE_LOAD_TIMEOUT_MS,
): Promise<YouTubeApi> {
  if (win.YT?.Player) return Promise.resolve(win.YT as YouTubeApi);
  if (pending) return pending;
  const attempt = new Promise<YouTubeApi>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error("YouTube API timed out")), timeoutMs);
    const previous = win.onYouTubeIframeAPIReady;
    const fail = (err: Error) => {
      clearTimeout(timer);
      script.remove?.();
      reject(err);
    };
    win.onYouTubeIframeAPIReady = () => {
      clearTimeout(timer);
      previous?.();
      if (win.YT?.Player) resolve(win.YT as YouTubeApi);
      else reject(new Error("YouTube API loaded without a player"));
    };
    const script = doc.createElement("script");
    script.src = YOUTUBE_API_URL;
    script.async = true;
    script.onerror = () => fail(new Error("YouTube API could not be loaded"));
    doc.head.appendChild(script);
  });
  pending = attempt;
  attempt.catch(() => {
    if (pending === attempt) pending = null;
  });
  return attempt;
}

/** Tests only: forget a loaded or loading API. */
export function resetYouTubeApiForTests() {
  pending = null;
}
