import { Play, WifiOff } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { button } from "~/components/ui";
import { useT } from "~/i18n";
import {
  loadYouTubeApi,
  youtubeCorrection,
  youtubeStartParam,
  youtubeStartSeconds,
  YT_STATE,
  type YouTubePlayer,
} from "~/lib/youtube";
import type { PlayContext } from "~/lib/rooms";
import { useYouTubePlayTracking } from "~/hooks/usePlayTracking";
import type { NowPlaying } from "../../../shared/protocol";

type Status = "loading" | "playing" | "blocked" | "unavailable";

/** Drift checks: as often as the HLS path's, a few nudges per song at most. */
const CHECK_EVERY_MS = 2000;
const MAX_NUDGES = 6;
/** A player that has not started this long after it was told to play was blocked (autoplay). */
const BLOCKED_AFTER_MS = 2500;

/**
 * A room song from YouTube (issue 4): the iframe API is loaded only now, the video starts
 * where the room is by the server clock (duration minus the time left, as the HLS player)
 * and is nudged back when it drifts. Offline, or when YouTube refuses the video, the panel
 * says so and the rest of the room goes on untouched.
 */
export function RoomYouTube({
  videoId,
  np,
  serverNow,
  context,
}: {
  videoId: string;
  np: NowPlaying;
  serverNow: () => number;
  context: PlayContext | null;
}) {
  const t = useT();
  const [status, setStatus] = useState<Status>("loading");
  // The API replaces the element it is given with its iframe, so React never owns that node.
  const hostRef = useRef<HTMLDivElement>(null);
  const playerRef = useRef<YouTubePlayer | null>(null);
  const npRef = useRef(np);
  npRef.current = np;
  // Whether YouTube says the video is playing now: what play tracking follows.
  const [ytPlaying, setYtPlaying] = useState(false);
  useYouTubePlayTracking(np.song, context, ytPlaying, () => {
    const p = playerRef.current;
    return p && !p.isMuted() ? p.getVolume() / 100 : 0;
  });

  useEffect(() => {
    let cancelled = false;
    // The host div lives as long as the component; keep the node this effect mounted into.
    const host = hostRef.current;
    let blockedTimer: ReturnType<typeof setTimeout> | undefined;
    let checkTimer: ReturnType<typeof setInterval> | undefined;
    setStatus("loading");
    loadYouTubeApi()
      .then((YT) => {
        if (cancelled || !host) return;
        const mount = document.createElement("div");
        host.replaceChildren(mount);
        playerRef.current = new YT.Player(mount, {
          videoId,
          width: "100%",
          height: "100%",
          playerVars: {
            autoplay: 1,
            start: youtubeStartParam(npRef.current, serverNow()),
            controls: 0,
            disablekb: 1,
            playsinline: 1,
            rel: 0,
            modestbranding: 1,
          },
          events: {
            onReady: (e) => {
              if (cancelled) return;
              e.target.seekTo(youtubeStartSeconds(npRef.current, serverNow()), true);
              e.target.playVideo();
              blockedTimer = setTimeout(
                () => !cancelled && setStatus((s) => (s === "loading" ? "blocked" : s)),
                BLOCKED_AFTER_MS,
              );
            },
            onStateChange: (e) => {
              if (cancelled) return;
              if (e.data === YT_STATE.PLAYING) setStatus("playing");
              // A buffering stall goes on with the open play; pause and end close it.
              setYtPlaying(
                (was) => e.data === YT_STATE.PLAYING || (e.data === YT_STATE.BUFFERING && was),
              );
            },
            // An embed-disabled, removed or private video: nothing to play here.
            onError: () => !cancelled && setStatus("unavailable"),
          },
        });
        let nudges = 0;
        checkTimer = setInterval(() => {
          const p = playerRef.current;
          if (!p || nudges >= MAX_NUDGES || p.getPlayerState() !== YT_STATE.PLAYING) return;
          const to = youtubeCorrection(p.getCurrentTime(), npRef.current, serverNow());
          if (to !== null) {
            nudges++;
            p.seekTo(to, true);
          }
        }, CHECK_EVERY_MS);
      })
      .catch(() => !cancelled && setStatus("unavailable"));
    return () => {
      cancelled = true;
      clearTimeout(blockedTimer);
      clearInterval(checkTimer);
      try {
        playerRef.current?.destroy();
      } catch {
        /* already gone with its iframe */
      }
      playerRef.current = null;
      host?.replaceChildren();
    };
    // A new play (even of the same video) starts over at the room's offset.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [videoId, np.playId]);

  const tapToPlay = () => {
    const p = playerRef.current;
    if (!p) return;
    p.seekTo(youtubeStartSeconds(npRef.current, serverNow()), true);
    p.playVideo();
  };

  if (status === "unavailable") {
    return (
      <div
        role="status"
        className="flex items-start gap-3 rounded-2xl border border-white/15 bg-black/40 p-3"
        data-testid="youtube-player"
        data-status="unavailable"
      >
        <WifiOff aria-hidden className="mt-0.5 size-5 shrink-0 text-ink-100" />
        <div>
          <p className="font-semibold text-white">{t("room.youtube.offline")}</p>
          <p className="text-sm text-ink-100">{t("room.youtube.offlineHint")}</p>
        </div>
      </div>
    );
  }
  return (
    <div className="space-y-2" data-testid="youtube-player" data-status={status}>
      <div
        className="relative aspect-video w-full max-w-md overflow-hidden rounded-2xl bg-black"
        aria-label={t("room.youtube.label")}
        role="region"
      >
        <div ref={hostRef} className="absolute inset-0 [&>iframe]:size-full" />
        {status === "loading" && (
          <p className="absolute inset-0 grid place-items-center text-sm text-ink-100">
            {t("room.youtube.loading")}
          </p>
        )}
      </div>
      {status === "blocked" && (
        <button
          type="button"
          className={button("secondary", "sm")}
          onClick={tapToPlay}
          data-testid="youtube-tap"
        >
          <Play aria-hidden className="size-4" />
          {t("room.youtube.tap")}
        </button>
      )}
    </div>
  );
}
