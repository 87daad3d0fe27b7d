import { Pause, Play, RotateCcw, SkipBack, SkipForward } from "lucide-react";
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
  type RefObject,
} from "react";
import type HlsType from "hls.js";
import type { ErrorData } from "hls.js";
import { useT, type MessageKey, type Vars } from "~/i18n";
import { displayError } from "~/lib/errors";
import { formatDuration, pickProvider, songKey, type AnySong } from "~/lib/songs";
import type { PlayContext } from "~/lib/rooms";
import { useAudioPlayTracking } from "~/hooks/usePlayTracking";
import { useRootData } from "~/hooks/useRootData";
import { Artwork } from "~/components/songs/Artwork";
import { VolumeControl } from "~/components/songs/VolumeControl";

export type PlayerState = "playing" | "paused" | "loading" | "error";

export interface PlayOptions {
  /**
   * Seconds into the song to start from. Rooms pass the server's offset (seed 001,
   * Playback: duration minus the time left until endTime, never below zero).
   */
  startAt?: number;
  /** The list the song was picked from, so next and previous work. */
  list?: AnySong[];
  /** Where the song plays (a room's slug, owner, DJ and playId), for play tracking; none outside a room. */
  context?: PlayContext | null;
}

/** A message to show: a dictionary key, or text the server sent. */
type Message = { key: MessageKey; vars?: Vars } | { text: string };

export interface PlayerApi {
  song: AnySong | null;
  state: PlayerState;
  error: Message | null;
  /** Play `song` (from `startAt`); the same song again just resumes, or seeks when `startAt` is given. */
  play: (song: AnySong, opts?: PlayOptions) => void;
  toggle: () => void;
  pause: () => void;
  stop: () => void;
  next: (() => void) | null;
  previous: (() => void) | null;
  /** Whether `song` is the one loaded in the player. */
  isCurrent: (song: AnySong) => boolean;
}

const PlayerContext = createContext<PlayerApi | null>(null);

/** The player for pages: `const player = usePlayer(); player.play(song)`. */
export function usePlayer(): PlayerApi {
  const ctx = useContext(PlayerContext);
  if (!ctx) throw new Error("usePlayer outside PlayerProvider");
  return ctx;
}

const sameSong = (a: AnySong | null, b: AnySong | null) =>
  !!a && !!b && songKey(a, -1) === songKey(b, -1);

/**
 * Holds the one audio element (seed 001: one song plays at a time) and plays uploads'
 * HLS through hls.js (AES-128 MP3 segments), or natively where the browser has HLS.
 * The playlist call rides the session (or kept guest) cookie; segment and key URLs are signed.
 */
export function PlayerProvider({ children }: { children: ReactNode }) {
  const signedIn = !!useRootData()?.user;
  const audioRef = useRef<HTMLAudioElement>(null);
  const hlsRef = useRef<HlsType | null>(null);
  const blobRef = useRef<string | null>(null);
  const loadId = useRef(0);
  const [song, setSong] = useState<AnySong | null>(null);
  const songRef = useRef<AnySong | null>(null);
  const [list, setList] = useState<AnySong[]>([]);
  const [state, setState] = useState<PlayerState>("paused");
  const [error, setError] = useState<Message | null>(null);
  const streamRef = useRef<string | null>(null);
  /** The listener pressed pause while the song was still loading: don't start it. */
  const heldRef = useRef(false);
  // Play tracking (seed 001): what this audio element plays is reported to the audit-service.
  const contextRef = useRef<PlayContext | null>(null);
  useAudioPlayTracking(audioRef, song, contextRef);

  const teardown = useCallback(() => {
    hlsRef.current?.destroy();
    hlsRef.current = null;
    if (blobRef.current) URL.revokeObjectURL(blobRef.current);
    blobRef.current = null;
    const audio = audioRef.current;
    if (audio) {
      audio.pause();
      audio.removeAttribute("src");
      audio.load();
    }
    streamRef.current = null;
  }, []);

  useEffect(() => teardown, [teardown]);

  const fail = useCallback((msg: Message) => {
    setState("error");
    setError(msg);
  }, []);

  const start = useCallback(
    async (s: AnySong, startAt?: number) => {
      const id = ++loadId.current;
      teardown();
      setError(null);
      const audio = audioRef.current;
      if (!audio) return;
      const pick = pickProvider(s);
      if (!pick.url) {
        // Seed 001, section 8: "Missing URL/ID to play from {provider}" / "Unknown provider".
        fail(
          pick.provider
            ? { key: "player.missingUrl", vars: { provider: pick.provider } }
            : { key: "player.unknownProvider" },
        );
        return;
      }
      setState("loading");
      streamRef.current = pick.url;
      const begin = Math.max(0, startAt ?? 0);
      heldRef.current = false;
      const autoplay = () => {
        if (heldRef.current) {
          setState("paused");
          return;
        }
        return audio.play().catch((err: unknown) => {
          if (id !== loadId.current) return;
          // Autoplay refused (no user gesture yet): wait, paused, for the listener's press.
          if ((err as Error)?.name === "NotAllowedError") setState("paused");
          else if ((err as Error)?.name !== "AbortError") fail({ key: "player.failed" });
        });
      };
      try {
        const { default: Hls } = await import("hls.js");
        if (id !== loadId.current) return;
        if (Hls.isSupported()) {
          const hls = new Hls({
            startPosition: begin > 0 ? begin : -1,
            // Segments open with the RFC 8216 timestamp tag (workers/songs/hls-timestamp.ts);
            // hls.js would also expose every ID3 tag as a cue on a `data:` text track, which
            // we do not read and the page's media-src policy refuses.
            enableID3MetadataCues: false,
            enableEmsgMetadataCues: false,
          });
          hlsRef.current = hls;
          let recovered = false;
          hls.on(Hls.Events.ERROR, (_e, data: ErrorData) => {
            if (!data.fatal || id !== loadId.current) return;
            if (data.type === Hls.ErrorTypes.MEDIA_ERROR && !recovered) {
              recovered = true;
              hls.recoverMediaError();
              return;
            }
            fail(hlsMessage(data));
            hls.destroy();
            if (hlsRef.current === hls) hlsRef.current = null;
          });
          hls.on(Hls.Events.MANIFEST_PARSED, autoplay);
          hls.attachMedia(audio);
          hls.loadSource(pick.url);
        } else if (audio.canPlayType("application/vnd.apple.mpegurl")) {
          // Native HLS: fetch the playlist here (so a refusal shows its reason) and hand the
          // browser a copy whose (signed) URLs are made absolute. Its segments come as MPEG-TS:
          // every native player demuxes that, and Chromium's takes no packed audio.
          const url = new URL(pick.url, location.href);
          url.searchParams.set("container", "ts");
          const res = await fetch(url);
          const text = await res.text();
          if (id !== loadId.current) return;
          if (!res.ok) {
            let body: unknown = null;
            try {
              body = JSON.parse(text);
            } catch {
              /* not JSON */
            }
            const d = displayError(res.status, body);
            fail(d.generic ? { key: "player.failed" } : { text: d.message });
            return;
          }
          const blob = URL.createObjectURL(
            new Blob([absolutePlaylist(text, url)], {
              type: "application/vnd.apple.mpegurl",
            }),
          );
          blobRef.current = blob;
          audio.src = blob;
          if (begin > 0)
            audio.addEventListener("loadedmetadata", () => (audio.currentTime = begin), {
              once: true,
            });
          autoplay();
        } else {
          fail({ key: "player.unsupported" });
        }
      } catch (err) {
        console.error("Failed to play song", err);
        if (id === loadId.current) fail({ key: "player.failed" });
      }
    },
    [fail, teardown],
  );

  const play = useCallback(
    (s: AnySong, opts: PlayOptions = {}) => {
      if (opts.list) setList(opts.list);
      // Every play names where it happens (a song picked outside a room has none).
      contextRef.current = opts.context ?? null;
      const audio = audioRef.current;
      const current = songRef.current;
      // Same song and same stream: not replayed (seed 001); resume, or seek to the new offset.
      if (
        audio &&
        sameSong(current, s) &&
        streamRef.current &&
        streamRef.current === pickProvider(s).url &&
        state !== "error"
      ) {
        if (typeof opts.startAt === "number") audio.currentTime = Math.max(0, opts.startAt);
        heldRef.current = false;
        if (audio.paused) void audio.play().catch(() => setState("paused"));
        return;
      }
      songRef.current = s;
      setSong(s);
      void start(s, opts.startAt);
    },
    [start, state],
  );

  const pause = useCallback(() => audioRef.current?.pause(), []);
  const stop = useCallback(() => {
    loadId.current++;
    teardown();
    songRef.current = null;
    setSong(null);
    setState("paused");
    setError(null);
  }, [teardown]);
  const toggle = useCallback(() => {
    const audio = audioRef.current;
    const s = songRef.current;
    if (!audio || !s) return;
    if (state === "error" || !streamRef.current) {
      void start(s);
      return;
    }
    if (state === "loading") {
      heldRef.current = !heldRef.current;
      if (heldRef.current) {
        audio.pause();
        setState("paused");
      }
      return;
    }
    heldRef.current = false;
    if (audio.paused) void audio.play().catch(() => setState("paused"));
    else audio.pause();
  }, [start, state]);

  const index = song ? list.findIndex((x) => sameSong(x, song)) : -1;
  const next = index >= 0 && index < list.length - 1 ? () => play(list[index + 1]) : null;
  const previous = index > 0 ? () => play(list[index - 1]) : null;
  const nextRef = useRef(next);
  nextRef.current = next;

  // The audio element's own events drive the state the page (and tests) see.
  useEffect(() => {
    const audio = audioRef.current;
    if (!audio) return;
    const on = (ev: string, fn: () => void) => {
      audio.addEventListener(ev, fn);
      return () => audio.removeEventListener(ev, fn);
    };
    const offs = [
      on("playing", () => setState("playing")),
      on("pause", () => setState((s) => (s === "error" || s === "loading" ? s : "paused"))),
      on("waiting", () => setState((s) => (s === "error" ? s : "loading"))),
      on("ended", () => {
        setState("paused");
        nextRef.current?.();
      }),
    ];
    return () => offs.forEach((off) => off());
  }, []);

  // The operating system's media controls.
  useEffect(() => {
    if (typeof navigator === "undefined" || !("mediaSession" in navigator) || !song) return;
    try {
      navigator.mediaSession.metadata = new MediaMetadata({
        title: song.trackName,
        artist: song.artistName,
        album: song.albumName ?? undefined,
      });
      navigator.mediaSession.setActionHandler("play", () => void audioRef.current?.play());
      navigator.mediaSession.setActionHandler("pause", () => audioRef.current?.pause());
    } catch {
      /* not supported here */
    }
  }, [song]);

  const api = useMemo<PlayerApi>(
    () => ({
      song,
      state,
      error,
      play,
      toggle,
      pause,
      stop,
      next,
      previous,
      isCurrent: (s) => sameSong(songRef.current, s),
    }),
    // next/previous change with the list position.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [song, state, error, play, toggle, pause, stop, index, list],
  );

  return (
    <PlayerContext.Provider value={api}>
      {children}
      <PlayerBar api={api} audioRef={audioRef} visible={signedIn || !!song} />
    </PlayerContext.Provider>
  );
}

/** Words for a fatal hls.js error: the server's message when the playlist was refused. */
function hlsMessage(data: ErrorData): Message {
  const xhr = data.networkDetails;
  const status = data.response?.code ?? (xhr instanceof XMLHttpRequest ? xhr.status : 0);
  if (status >= 400 && status < 500) {
    let body: unknown = null;
    try {
      body = xhr instanceof XMLHttpRequest ? JSON.parse(xhr.responseText) : null;
    } catch {
      /* not JSON */
    }
    const d = displayError(status, body);
    if (!d.generic) return { text: d.message };
  }
  return { key: "player.failed" };
}

/** A playlist with every URI made absolute against where it came from. */
function absolutePlaylist(text: string, base: URL): string {
  return text
    .split(/\r?\n/)
    .map((line) => {
      if (!line.trim()) return line;
      if (line.startsWith("#"))
        return line.replace(/URI="([^"]+)"/g, (_m, u: string) => `URI="${new URL(u, base).href}"`);
      return new URL(line.trim(), base).href;
    })
    .join("\n");
}

function PlayerBar({
  api,
  audioRef,
  visible,
}: {
  api: PlayerApi;
  audioRef: RefObject<HTMLAudioElement>;
  visible: boolean;
}) {
  const t = useT();
  const { song, state, error } = api;
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);
  const [seeking, setSeeking] = useState<number | null>(null);

  useEffect(() => {
    const audio = audioRef.current;
    if (!audio) return;
    const onTime = () => setTime(audio.currentTime);
    const onDur = () => setDuration(Number.isFinite(audio.duration) ? audio.duration : 0);
    audio.addEventListener("timeupdate", onTime);
    audio.addEventListener("durationchange", onDur);
    audio.addEventListener("loadedmetadata", onDur);
    audio.addEventListener("emptied", onTime);
    return () => {
      audio.removeEventListener("timeupdate", onTime);
      audio.removeEventListener("durationchange", onDur);
      audio.removeEventListener("loadedmetadata", onDur);
      audio.removeEventListener("emptied", onTime);
    };
  }, [audioRef]);
  useEffect(() => {
    setTime(0);
    setDuration(0);
  }, [song]);

  // The bar is fixed over the bottom of the page: its height (0 when hidden) goes to the
  // `--player-space` CSS variable, which the room's chat column keeps clear (issue 20).
  const barRef = useRef<HTMLElement>(null);
  useEffect(() => {
    const el = barRef.current;
    if (!el) return;
    const root = document.documentElement;
    const set = () =>
      root.style.setProperty("--player-space", `${visible ? el.offsetHeight : 0}px`);
    set();
    const ro = new ResizeObserver(set);
    ro.observe(el);
    return () => ro.disconnect();
  }, [visible]);

  // The song's own length first (what every list and the room show), the element's
  // (a stream's is a few ms off it) only for a song that has none.
  const total = song?.duration || duration || 0;
  const shown = seeking ?? time;
  const percent = total > 0 ? Math.min(100, (shown / total) * 100) : 0;
  const playing = state === "playing";
  const loading = state === "loading";
  const errorText = error ? ("key" in error ? t(error.key, error.vars) : error.text) : null;

  return (
    <section
      ref={barRef}
      aria-label={t("player.label")}
      data-testid="player"
      data-state={state}
      hidden={!visible}
      className="fixed inset-x-0 bottom-0 z-40 border-t border-white/10 bg-ink-950/92 shadow-[0_-12px_40px_-12px] shadow-brand/40 backdrop-blur-md"
    >
      {/* The audio element (not shown): the page's controls drive it. */}
      <audio ref={audioRef} data-testid="player-audio" preload="none" />
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-3 gap-y-1.5 px-3 py-2 sm:flex-nowrap sm:gap-x-5 sm:px-6 sm:py-3">
        <div className="flex min-w-0 flex-1 items-center gap-3 sm:w-72 sm:flex-none">
          <div className="relative">
            <Artwork song={song} size={44} rounded="rounded-md" />
            {playing && (
              <span
                aria-hidden
                className="absolute -bottom-1 -right-1 flex h-3.5 items-end gap-px rounded-sm bg-ink-950/90 px-0.5 py-0.5"
              >
                <span className="eq-bar block h-full w-0.5 bg-neon" />
                <span className="eq-bar block h-full w-0.5 bg-neon [animation-delay:-0.4s]" />
                <span className="eq-bar block h-full w-0.5 bg-neon [animation-delay:-0.8s]" />
              </span>
            )}
          </div>
          <div className="min-w-0">
            <p className="truncate text-sm font-semibold text-white" data-testid="player-track">
              {song ? song.trackName || t("song.untitled") : t("player.idle")}
            </p>
            {errorText ? (
              <p
                className="truncate text-xs font-medium text-danger"
                role="alert"
                data-testid="player-error"
              >
                {errorText}
              </p>
            ) : (
              <p className="truncate text-xs text-ink-300">
                {song ? song.artistName || t("song.unknownArtist") : t("player.idleHint")}
              </p>
            )}
          </div>
        </div>

        <div className="flex shrink-0 items-center gap-1">
          {(api.previous || api.next) && (
            <button
              type="button"
              onClick={() => api.previous?.()}
              disabled={!api.previous}
              aria-label={t("player.previous")}
              className="grid size-9 place-items-center rounded-full text-ink-100 transition hover:bg-white/10 disabled:opacity-35 max-sm:hidden"
            >
              <SkipBack aria-hidden className="size-4" />
            </button>
          )}
          <button
            type="button"
            onClick={api.toggle}
            disabled={!song}
            aria-label={
              state === "error"
                ? t("player.retry")
                : playing || loading
                  ? t("player.pause")
                  : t("player.play")
            }
            data-testid="player-toggle"
            className="grid size-11 place-items-center rounded-full bg-white text-ink-950 shadow-lg transition hover:scale-105 disabled:cursor-not-allowed disabled:bg-white/20 disabled:text-ink-300 disabled:hover:scale-100"
          >
            {state === "error" ? (
              <RotateCcw aria-hidden className="size-5" />
            ) : loading ? (
              <span
                aria-hidden
                className="size-5 animate-spin rounded-full border-2 border-ink-950/30 border-t-ink-950"
              />
            ) : playing ? (
              <Pause aria-hidden className="size-5 fill-current" />
            ) : (
              <Play aria-hidden className="ml-0.5 size-5 fill-current" />
            )}
          </button>
          {(api.previous || api.next) && (
            <button
              type="button"
              onClick={() => api.next?.()}
              disabled={!api.next}
              aria-label={t("player.next")}
              className="grid size-9 place-items-center rounded-full text-ink-100 transition hover:bg-white/10 disabled:opacity-35"
            >
              <SkipForward aria-hidden className="size-4" />
            </button>
          )}
        </div>

        <div className="flex w-full items-center gap-2.5 text-xs tabular-nums text-ink-300 max-sm:order-last sm:flex-1">
          <span className="w-10 text-right" data-testid="player-time">
            {formatDuration(shown)}
          </span>
          <div className="relative h-1.5 flex-1 rounded-full bg-white/15 has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-offset-4 has-[:focus-visible]:outline-focus">
            <div
              className="absolute inset-y-0 left-0 rounded-full bg-linear-to-r from-brand to-neon"
              style={{ width: `${percent}%` }}
            />
            <div
              className="absolute top-1/2 size-3 -translate-x-1/2 -translate-y-1/2 rounded-full bg-white shadow"
              style={{ left: `${percent}%` }}
              hidden={!song}
            />
            <input
              type="range"
              min={0}
              max={Math.max(1, Math.floor(total))}
              step={1}
              value={Math.floor(shown)}
              disabled={!song || !total}
              aria-label={t("player.seek")}
              aria-valuetext={t("player.position", {
                time: formatDuration(shown),
                total: formatDuration(total),
              })}
              onChange={(e) => setSeeking(Number(e.target.value))}
              onPointerUp={() => commitSeek()}
              onKeyUp={() => commitSeek()}
              onBlur={() => seeking !== null && commitSeek()}
              className="absolute inset-0 h-full w-full cursor-pointer opacity-0 disabled:cursor-default"
            />
          </div>
          <span className="w-10">{formatDuration(total || null)}</span>
        </div>
        <VolumeControl audioRef={audioRef} />
      </div>
    </section>
  );

  function commitSeek() {
    const audio = audioRef.current;
    if (audio && seeking !== null) audio.currentTime = seeking;
    setSeeking(null);
  }
}
