import { Link } from "@remix-run/react";
import { ListMusic, LogIn, LogOut, SkipForward } from "lucide-react";
import { useEffect, useState } from "react";
import { button } from "~/components/ui";
import type { RoomConnection } from "~/hooks/useRoom";
import { useT } from "~/i18n";
import type { Palette, RoomProfile } from "~/lib/rooms";
import type { RoomUser } from "../../../shared/protocol";
import type { ModMenu, NameOf } from "./people";
import type { RoomMe } from "./RoomChat";
import { Dancer, danceLevel } from "./Dancer";
import { Seat, SeatIcon } from "./Seat";
import { PersonBadges } from "./PersonBadges";
import { UserAvatar } from "./UserAvatar";
import { QUEUE_CHANGED } from "~/components/songs/SongActions";
import { QueueNotice, queueProblem, stageErrorText } from "./QueueNotice";
import { WaitlistPanel } from "./WaitlistPanel";

/** The actions whose errors the stage shows inline. */
export const STAGE_ACTIONS: ReadonlySet<string | undefined> = new Set([
  "addDj",
  "removeDj",
  "skipSong",
  "joinWaitlist",
  "leaveWaitlist",
]);

/** The stage: the DJ seats, the seat and skip buttons, and what the room says about them. */
export function Stage({
  conn,
  me,
  mine,
  slug,
  palette,
  numberOfDjs,
  profiles,
  nameOf,
  modMenu,
  connecting,
  openQueue,
}: {
  conn: RoomConnection;
  me: RoomMe;
  /** The viewer as the room sees them (their seat rights), once connected. */
  mine: RoomUser | undefined;
  slug: string;
  palette: Palette;
  numberOfDjs: number;
  profiles: Record<string, RoomProfile>;
  nameOf: NameOf;
  modMenu: ModMenu;
  connecting: boolean;
  /** Opens the queue drawer (the empty-queue prompt's way forward). */
  openQueue: () => void;
}) {
  const t = useT();
  const { state } = conn;
  const djs = state?.djs ?? [];
  const np = state?.nowPlaying ?? null;
  const currentDj = np?.djUuid ?? djs[0]?.uuid ?? null;
  const onStage = !!me && djs.some((d) => d.uuid === me.uuid);
  const full = djs.length >= numberOfDjs && !onStage;
  // DJs dance with their floor: nodding while a song plays, harder as the vibe rises.
  const dance = danceLevel(!!np, state?.vibeMeter);

  // Seat and skip errors the room sends back show here (other errors are the page's).
  const [stageError, setStageError] = useState<string | null>(null);
  const [seatPending, setSeatPending] = useState(false);
  useEffect(() => {
    if (conn.error && STAGE_ACTIONS.has(conn.error.action)) {
      setStageError(conn.error.message);
      setSeatPending(false);
    }
  }, [conn.error]);
  useEffect(() => setSeatPending(false), [onStage]);
  // The empty-queue prompt goes once it is answered: a song added, or a place in line.
  const waiting = !!me && !!state?.waitlist?.includes(me.uuid);
  useEffect(() => {
    if (waiting) setStageError(null);
  }, [waiting]);
  useEffect(() => {
    const clear = () => setStageError((e) => (e && queueProblem(e) ? null : e));
    window.addEventListener(QUEUE_CHANGED, clear);
    return () => window.removeEventListener(QUEUE_CHANGED, clear);
  }, []);

  const takeSeat = () => {
    setStageError(null);
    if (conn.send({ action: "addDj" })) setSeatPending(true);
  };
  const leaveSeat = () => {
    setStageError(null);
    conn.send({ action: "removeDj" });
  };
  const skip = () => {
    setStageError(null);
    conn.send({ action: "skipSong" });
  };

  return (
    <section
      aria-labelledby="stage-heading"
      className="rounded-3xl border border-white/10 bg-black/25 p-4 sm:p-5"
    >
      <div className="mb-3 flex min-h-9 flex-wrap items-center justify-between gap-2">
        <h2 id="stage-heading" className="text-lg font-bold text-white">
          {t("room.stage")}
        </h2>
        <div className="flex flex-wrap gap-2">
          {onStage && np?.djUuid === me?.uuid && (
            <button
              type="button"
              onClick={skip}
              className={button("secondary", "sm")}
              data-testid="skip-song"
            >
              <SkipForward aria-hidden className="size-4" />
              {t("room.skip")}
            </button>
          )}
          {onStage && (
            <button
              type="button"
              onClick={leaveSeat}
              className={button("secondary", "sm")}
              data-testid="leave-seat"
            >
              <LogOut aria-hidden className="size-4" />
              {t("room.leaveSeat")}
            </button>
          )}
        </div>
      </div>
      <ol
        className="grid grid-cols-[repeat(auto-fill,minmax(5.5rem,1fr))] sm:grid-cols-[repeat(auto-fill,minmax(7rem,1fr))] gap-3"
        aria-label={t("room.seats", { count: numberOfDjs })}
      >
        {Array.from({ length: numberOfDjs }, (_, i) => {
          const dj = djs[i];
          if (dj) {
            const lit = dj.uuid === currentDj;
            return (
              <Seat key={dj.uuid} lit={lit} accent={palette.accent} testId="dj-seat">
                {modMenu(
                  dj,
                  <Dancer
                    level={dance}
                    jumps={conn.jumps[dj.uuid]}
                    offset={(i + 1) / (numberOfDjs + 1)}
                  >
                    <UserAvatar profile={profiles[dj.uuid]} fallbackName={nameOf(dj)} size={56} />
                  </Dancer>,
                  { dj: true, playing: np?.djUuid === dj.uuid },
                )}
                <span className="flex w-full min-w-0 items-center justify-center gap-1 text-sm font-semibold text-white">
                  <span className="truncate">{nameOf(dj)}</span>
                  <PersonBadges badges={profiles[dj.uuid]?.badges} />
                </span>
                <span
                  className="text-xs font-medium"
                  style={{ color: lit ? palette.accent : "#c9c3e0" }}
                >
                  {lit ? t("room.playingNow") : t("room.seatNumber", { n: i + 1 })}
                </span>
              </Seat>
            );
          }
          const canTake =
            !!state && !onStage && !me?.guest && mine?.canDj !== false && i === djs.length;
          return (
            <Seat key={`empty-${i}`} accent={palette.accent} testId="empty-seat">
              {connecting ? (
                <span className="size-14 animate-pulse rounded-full bg-white/10" aria-hidden />
              ) : (
                <SeatIcon aria-hidden className="size-9 text-ink-200" />
              )}
              {canTake ? (
                <button
                  type="button"
                  onClick={takeSeat}
                  disabled={seatPending}
                  className="whitespace-nowrap rounded-full px-3 py-1.5 text-xs font-bold text-ink-950 transition hover:brightness-110 disabled:opacity-70 sm:text-sm"
                  style={{ background: palette.accent }}
                  data-testid="take-seat"
                >
                  {seatPending ? t("room.takingSeat") : t("room.takeSeat")}
                </button>
              ) : (
                <span className="text-xs text-ink-200">{t("room.emptySeat")}</span>
              )}
            </Seat>
          );
        })}
      </ol>
      <div>
        <WaitlistPanel
          conn={conn}
          me={me}
          mine={mine}
          full={djs.length >= numberOfDjs}
          onStage={onStage}
          profiles={profiles}
          nameOf={nameOf}
        />
        {stageError && (
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <p role="alert" className="text-sm font-semibold text-danger" data-testid="stage-error">
              {stageErrorText(t, stageError)}
            </p>
            {queueProblem(stageError) && (
              <button
                type="button"
                className={button("primary", "sm")}
                onClick={openQueue}
                data-testid="fill-queue"
              >
                <ListMusic aria-hidden className="size-4" />
                {t("queue.fill")}
              </button>
            )}
          </div>
        )}
        <QueueNotice notice={conn.queueNotice} openQueue={openQueue} accent={palette.accent} />
        {!stageError && full && state && (
          <p className="mt-3 text-sm text-ink-100">{t("room.stageFull")}</p>
        )}
        {!stageError && me?.guest && (
          <p className="mt-3 text-sm text-ink-100">
            <Link
              to={`/login?redirectTo=${encodeURIComponent(`/rooms/${slug}`)}`}
              className="inline-flex items-center gap-1 font-semibold text-white underline underline-offset-4"
            >
              <LogIn aria-hidden className="size-4" />
              {t("room.loginToDj")}
            </Link>
          </p>
        )}
        {conn.youAreNext && (
          <p
            role="status"
            className="mt-3 rounded-xl px-3 py-2 text-sm font-bold text-ink-950"
            style={{ background: palette.accent }}
            data-testid="you-are-next"
          >
            {t("room.youAreNext")}
          </p>
        )}
      </div>
    </section>
  );
}
