// The room's now-playing panel and the hook that plays the song in sync with the server clock.
import { Headphones, Music2, Play } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { Artwork } from "~/components/songs/Artwork";
import { usePlayer } from "~/components/songs/Player";
import { VibeMeter, VoteButton } from "~/components/room/RoomParts";
import { RoomYouTube } from "~/components/room/RoomYouTube";
import { FreePlaysNote, outOfFreePlays } from "~/components/room/FreePlaysNote";
import { useToast } from "~/components/Toaster";
import { button } from "~/components/ui";
import { useT } from "~/i18n";
import { roomPlayContext, startOffsetSeconds } from "~/lib/rooms";
import { formatDuration, uploadStream } from "~/lib/songs";
import { roomPlayback } from "~/lib/youtube";
import { type RoomConnection } from "~/hooks/useRoom";
import type { RoomState, VoteCounts } from "../../../shared/protocol";
import { createDriftCorrector, DRIFT_IDLE_RATE } from "../../../shared/room-sync";

const ZERO: VoteCounts = { likes: 0, dislikes: 0, stars: 0 };

/** Re-renders every `ms` while `on`. */
function useTick(ms: number, on: boolean) {
  const [, set] = useState(0);
  useEffect(() => {
    if (!on) return;
    const id = setInterval(() => set((n) => n + 1), ms);
    return () => clearInterval(id);
  }, [ms, on]);
}

/** Now playing: artwork, names, progress by the server clock, votes and the vibe meter. */
export function NowPlaying({
  conn,
  state,
  connecting,
  accent,
  djName,
}: {
  conn: RoomConnection;
  state: RoomState | null;
  connecting: boolean;
  accent: string;
  djName: string;
}) {
  const t = useT();
  const toast = useToast();
  const np = state?.nowPlaying ?? null;
  useTick(250, !!np);
  const player = usePlayer();

  // Optimistic votes: my choice and a delta on the counts until the server's counts change.
  const [myVote, setMyVote] = useState<{ like?: boolean; star?: boolean }>({});
  const [delta, setDelta] = useState<VoteCounts>(ZERO);
  const prevVote = useRef<{ like?: boolean; star?: boolean }>({});
  const playId = np?.playId;
  // The room's echo of my vote (a reload, another tab, or the answer to my own vote) is the
  // truth for this song; a new song starts with no vote unless the echo is already about it.
  const confirmed =
    conn.yourVote && conn.yourVote.playId === (playId ?? null) ? conn.yourVote.songVotes : null;
  const confirmedKey = confirmed ? `${playId}:${confirmed.like ?? ""}:${confirmed.star ?? ""}` : "";
  useEffect(() => {
    setMyVote(confirmed ?? {});
    setDelta(ZERO);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [playId]);
  useEffect(() => {
    if (!confirmed) return;
    setMyVote(confirmed);
    prevVote.current = confirmed;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [confirmedKey]);
  const server = state?.voteCounts ?? ZERO;
  // Settle on the server's counts when they change (by value: every patch copies the state).
  const serverKey = `${server.likes},${server.dislikes},${server.stars}`;
  useEffect(() => setDelta(ZERO), [serverKey]);
  useEffect(() => {
    if (conn.error?.action !== "voteOnSong") return;
    setMyVote(prevVote.current);
    setDelta(ZERO);
    toast.error(t("room.voteFailed", { reason: conn.error.message }));
  }, [conn.error, t, toast]);
  const counts = {
    likes: Math.max(0, server.likes + delta.likes),
    dislikes: Math.max(0, server.dislikes + delta.dislikes),
    stars: Math.max(0, server.stars + delta.stars),
  };

  const vote = (v: { like?: boolean; star?: boolean }) => {
    const d = { ...ZERO };
    if (v.like !== undefined) {
      if (myVote.like === v.like) return;
      if (v.like) d.likes++;
      else d.dislikes++;
      if (myVote.like === true) d.likes--;
      if (myVote.like === false) d.dislikes--;
    }
    if (v.star !== undefined) d.stars += v.star ? 1 : -1;
    if (!conn.send({ action: "voteOnSong", songVotes: v })) {
      toast.error(t("room.voteOffline"));
      return;
    }
    // A like makes the liker's avatar bob for everyone (as on turntable): the room relays
    // the jump to every socket. Cosmetic: a refused jump (its rate) costs the vote nothing.
    if (v.like === true) conn.send({ action: "playOneTimeAnimation", animation: "jump" });
    prevVote.current = myVote;
    setMyVote({ ...myVote, ...v });
    setDelta((p) => ({
      likes: p.likes + d.likes,
      dislikes: p.dislikes + d.dislikes,
      stars: p.stars + d.stars,
    }));
  };

  const song = np?.song ?? null;
  const now = conn.serverNow();
  const duration = song?.duration ?? (np ? (np.endTime - np.startTime) / 1000 : 0);
  const at = np ? startOffsetSeconds(np, now) : 0;
  const pct = duration > 0 ? Math.min(100, (at / duration) * 100) : 0;
  const heard = song && player.isCurrent(song);
  // A guest past the free-play limit sees the song but does not hear it (FreePlaysNote).
  const silenced = outOfFreePlays(conn.freePlays);
  const needsTap =
    !silenced && !!song && !!uploadStream(song) && (!heard || player.state === "paused");
  // A song only YouTube has plays in its own iframe player (RoomYouTube), not the shared audio element.
  const choice = roomPlayback(song);

  return (
    <section
      aria-labelledby="np-heading"
      className="rounded-3xl border border-white/10 bg-black/40 p-4 sm:p-5"
      data-testid="now-playing"
    >
      <h2 id="np-heading" className="mb-3 text-lg font-bold text-white">
        {t("room.nowPlaying")}
      </h2>
      <div className="flex min-h-40 flex-col gap-4 sm:flex-row sm:items-center">
        {connecting ? (
          <>
            <span className="size-28 shrink-0 animate-pulse rounded-2xl bg-white/10" aria-hidden />
            <div className="flex-1 space-y-2" aria-hidden>
              <span className="block h-6 w-2/3 animate-pulse rounded bg-white/10" />
              <span className="block h-4 w-1/3 animate-pulse rounded bg-white/10" />
            </div>
          </>
        ) : !song ? (
          <div className="flex items-center gap-4" data-testid="nothing-playing">
            <span className="grid size-28 shrink-0 place-items-center rounded-2xl bg-white/10">
              <Music2 aria-hidden className="size-10 text-ink-200" />
            </span>
            <div>
              <p className="text-xl font-bold text-white">{t("room.nothingPlaying")}</p>
              <p className="mt-1 text-ink-100">{t("room.nothingPlayingHint")}</p>
            </div>
          </div>
        ) : (
          <>
            <Artwork song={song} size={112} rounded="rounded-2xl" className="shrink-0 shadow-lg" />
            <div className="min-w-0 flex-1">
              <p className="truncate text-2xl font-extrabold text-white" data-testid="np-track">
                {song.trackName}
              </p>
              <p className="truncate text-lg text-ink-100" data-testid="np-artist">
                {song.artistName}
              </p>
              <p className="mt-1 flex items-center gap-1.5 text-sm text-ink-100">
                <Headphones aria-hidden className="size-4" />
                {t("room.playedBy", { name: djName })}
              </p>
              <div className="mt-3">
                <div
                  role="progressbar"
                  aria-label={t("room.progress")}
                  aria-valuemin={0}
                  aria-valuemax={Math.round(duration)}
                  aria-valuenow={Math.round(at)}
                  aria-valuetext={`${formatDuration(at)} / ${formatDuration(duration)}`}
                  className="h-2 overflow-hidden rounded-full bg-white/15"
                >
                  <div
                    className="h-full rounded-full"
                    style={{ width: `${pct}%`, background: accent }}
                    data-testid="np-progress"
                  />
                </div>
                <div className="mt-1 flex justify-between text-xs tabular-nums text-ink-100">
                  <span>{formatDuration(at)}</span>
                  <span>{formatDuration(duration)}</span>
                </div>
              </div>
              {conn.freePlays && <FreePlaysNote {...conn.freePlays} />}
              {choice.kind === "youtube" && np && !silenced && (
                <div className="mt-3">
                  <RoomYouTube
                    videoId={choice.videoId}
                    np={np}
                    serverNow={conn.serverNow}
                    context={roomPlayContext(np, state?.settings)}
                  />
                </div>
              )}
              {needsTap && (
                <button
                  type="button"
                  className={`${button("secondary", "sm")} mt-2`}
                  onClick={() =>
                    np &&
                    player.play(song, {
                      startAt: startOffsetSeconds(np, conn.serverNow()),
                      context: roomPlayContext(np, state?.settings),
                    })
                  }
                  data-testid="listen"
                >
                  <Play aria-hidden className="size-4" />
                  {t("room.listen")}
                </button>
              )}
            </div>
          </>
        )}
      </div>
      <div className="mt-5 flex gap-3">
        <VoteButton
          kind="like"
          label={t("room.like")}
          count={counts.likes}
          pressed={myVote.like === true}
          onClick={() => vote({ like: true })}
          disabled={!np}
          accent={accent}
        />
        <VoteButton
          kind="dislike"
          label={t("room.dislike")}
          count={counts.dislikes}
          pressed={myVote.like === false}
          onClick={() => vote({ like: false })}
          disabled={!np}
          accent={accent}
        />
        <VoteButton
          kind="star"
          label={t("room.star")}
          count={counts.stars}
          pressed={myVote.star === true}
          onClick={() => vote({ star: !myVote.star })}
          disabled={!np}
          accent={accent}
        />
      </div>
      <div className="mt-4">
        <VibeMeter value={state?.vibeMeter ?? 0} accent={accent} />
      </div>
    </section>
  );
}

/**
 * The volume a room song is held at while it is put in line: -80 dB, not heard. Never 0:
 * Chromium moves an element at volume 0 to a fake audio sink, and moving back to the real
 * one cost about 100 ms of the song each time (measured). Never `muted` either, which the
 * autoplay policy treats as another thing.
 */
const HELD_VOLUME = 1e-4;

/**
 * Silences the audio element while its song is put in line with the room. The listener's
 * volume is kept in `data-held-volume`, which play tracking reports
 * (app/hooks/usePlayTracking.ts).
 */
function hold(el: HTMLAudioElement) {
  if (el.dataset.heldVolume !== undefined) return;
  el.dataset.heldVolume = String(el.volume);
  el.volume = HELD_VOLUME;
}

/** Gives the element back the volume `hold` took away. */
function release(el: HTMLAudioElement) {
  const v = el.dataset.heldVolume;
  if (v === undefined) return;
  delete el.dataset.heldVolume;
  el.volume = Number(v);
}

/**
 * Real audio: the room's song through the one player, from where the room is (duration
 * minus the time left), kept within a few ms of the server clock; stopped when the song ends
 * or the page is left.
 */
export function useRoomAudio(conn: RoomConnection, np: RoomState["nowPlaying"]) {
  const player = usePlayer();
  const playerRef = useRef(player);
  playerRef.current = player;
  const serverNow = conn.serverNow;
  const roomSong = useRef<RoomState["nowPlaying"]>(null);
  const playId = np?.playId ?? null;
  const stream = np ? uploadStream(np.song) : null;
  const settings = conn.state?.settings;
  const context = roomPlayContext(np, settings);
  const contextRef = useRef(context);
  contextRef.current = context;

  useEffect(() => {
    const p = playerRef.current;
    if (!np || !stream) {
      if (roomSong.current && p.isCurrent(roomSong.current.song)) p.stop();
      roomSong.current = null;
      return;
    }
    roomSong.current = np;
    p.play(np.song, {
      startAt: startOffsetSeconds(np, serverNow()),
      context: contextRef.current,
    });
    // Drift correction (shared/room-sync.ts, createDriftCorrector): loading, stalls and the
    // audio clock all put the element off the room. A start (and any seek) is put in line by
    // a few short seeks, each ahead by what the last one lagged, the first as soon as the
    // element can play; once in line, a drift only leans the playback rate (never to exactly
    // 1), and only a stall seeks. Until it is in line the element plays silent, so what is
    // heard starts with the room and the seeks that put it there are not heard as skips.
    const el = document.querySelector<HTMLAudioElement>('audio[data-testid="player-audio"]');
    const drift = createDriftCorrector();
    const correct = () => {
      if (!el) return;
      // The player took another song (the listener's own pick): that one is not held.
      if (!playerRef.current.isCurrent(np.song)) return release(el);
      if (el.paused || el.seeking || el.readyState < 3) return;
      const act = drift.step(
        el.currentTime,
        startOffsetSeconds(np, serverNow()),
        performance.now(),
      );
      if (act?.kind === "seek") {
        el.playbackRate = DRIFT_IDLE_RATE;
        el.currentTime = act.to;
      } else if (act && el.playbackRate !== act.rate) el.playbackRate = act.rate;
      if (drift.locked()) release(el);
      else hold(el);
    };
    // Never exactly 1 while the room's song plays (DRIFT_MIN_RATE says why).
    if (el) {
      el.playbackRate = DRIFT_IDLE_RATE;
      hold(el);
    }
    const id = setInterval(correct, 100);
    // The first correction as soon as the element can play, not up to a tick later.
    const events = ["canplay", "playing"] as const;
    for (const ev of events) el?.addEventListener(ev, correct);
    return () => {
      clearInterval(id);
      for (const ev of events) el?.removeEventListener(ev, correct);
      if (el) {
        el.playbackRate = 1;
        release(el);
      }
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [playId, stream]);

  // Leaving the room stops its song.
  useEffect(
    () => () => {
      const s = roomSong.current;
      if (s && playerRef.current.isCurrent(s.song)) playerRef.current.stop();
    },
    [],
  );

  // For the browser test and for debugging: the page's server clock and what it plays.
  const expose = useCallback(
    () => ({
      serverNow: serverNow(),
      /** Where the room is in its song (s) by this page's server clock. */
      position: roomSong.current ? startOffsetSeconds(roomSong.current, serverNow()) : null,
      startTime: roomSong.current?.startTime ?? null,
      playId: roomSong.current?.playId ?? null,
    }),
    [serverNow],
  );
  useEffect(() => {
    (window as unknown as { __hangoutRoom?: unknown }).__hangoutRoom = { read: expose };
  }, [expose]);
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
