import { Check, ListPlus, Loader2, RotateCw, Sparkles } from "lucide-react";
import { useEffect, useState } from "react";
import { Artwork } from "~/components/songs/Artwork";
import { useSongActions } from "~/components/songs/SongActions";
import { button } from "~/components/ui";
import { useSongsClient } from "~/hooks/useSongsClient";
import { useT, type MessageKey } from "~/i18n";
import { errorText } from "~/lib/errors";
import { formatDuration } from "~/lib/songs";
import { TRACK_NOT_ANALYZED, type SimilarAnswer } from "../../../shared/similar";

/** How many suggestions the panel shows (the API's cap is 8). */
const SHOWN = 5;
/** Catalogue songs have uuids; a song only a provider knows has no neighbours to look up. */
const CATALOGUE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Load =
  | { kind: "loading" }
  | { kind: "failed"; reason: string }
  | { kind: "ready"; answer: SimilarAnswer };

/**
 * "Similar to what's playing" for a DJ (issue 18): songs like the current one, from
 * GET /similar-tracks (the caller's queue left out), each with an "Add to queue" button on
 * the existing queue API. Self-contained: RoomScreen mounts it with the playing song's id
 * and nothing else; it reloads when the song changes.
 */
export function SimilarTracks({ songId }: { songId: string }) {
  return CATALOGUE_ID.test(songId) ? <SimilarList songId={songId} /> : null;
}

function SimilarList({ songId }: { songId: string }) {
  const t = useT();
  const client = useSongsClient();
  const { addToQueue } = useSongActions();
  const [load, setLoad] = useState<Load>({ kind: "loading" });
  const [attempt, setAttempt] = useState(0);
  const [added, setAdded] = useState<ReadonlySet<string>>(new Set());
  const [adding, setAdding] = useState<string | null>(null);

  useEffect(() => {
    const ac = new AbortController();
    setLoad({ kind: "loading" });
    client.similar([songId], SHOWN, ac.signal).then(
      (answer) => setLoad({ kind: "ready", answer }),
      (err) => {
        if (!ac.signal.aborted) setLoad({ kind: "failed", reason: errorText(err, t) });
      },
    );
    return () => ac.abort();
    // `t` changes with the language only; a reload then is not needed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, songId, attempt]);

  const addOne = async (song: SimilarAnswer["songs"][number]) => {
    setAdding(song.songId);
    const ok = await addToQueue(song);
    setAdding(null);
    if (ok) setAdded((s) => new Set(s).add(song.songId));
  };

  return (
    <section
      aria-labelledby="similar-heading"
      aria-busy={load.kind === "loading"}
      className="rounded-3xl border border-white/10 bg-black/40 p-4 sm:p-5"
      data-testid="similar-tracks"
    >
      <div className="mb-3 flex flex-col gap-0.5 sm:flex-row sm:items-baseline sm:justify-between sm:gap-3">
        <h2 id="similar-heading" className="flex items-center gap-2 text-lg font-bold text-white">
          <Sparkles aria-hidden className="size-5 text-brand-light" />
          {t("similar.heading")}
        </h2>
        <p className="text-sm text-ink-100">{t("similar.lede")}</p>
      </div>

      {load.kind === "loading" && (
        <ul className="space-y-2" aria-label={t("similar.loading")}>
          {Array.from({ length: 3 }, (_, i) => (
            <li key={i} className="flex items-center gap-3" aria-hidden>
              <span className="size-12 animate-pulse rounded-lg bg-white/10" />
              <span className="h-4 flex-1 animate-pulse rounded bg-white/10" />
            </li>
          ))}
        </ul>
      )}

      {load.kind === "failed" && (
        <div role="alert" className="flex flex-wrap items-center gap-3 text-ink-100">
          <p>{t("similar.failed", { reason: load.reason })}</p>
          <button
            type="button"
            className={button("secondary", "compact")}
            onClick={() => setAttempt((n) => n + 1)}
          >
            <RotateCw aria-hidden className="size-4" />
            {t("similar.retry")}
          </button>
        </div>
      )}

      {load.kind === "ready" && (
        <>
          {load.answer.analysis.code === TRACK_NOT_ANALYZED &&
            load.answer.analysis.status === "QUEUED" && (
              <p className="mb-2 text-sm text-ink-100" data-testid="similar-analysing">
                {t("similar.analysing")}
              </p>
            )}
          {load.answer.songs.length === 0 ? (
            <p className="text-ink-100" data-testid="similar-empty">
              {t("similar.empty")}
            </p>
          ) : (
            <ul className="divide-y divide-white/10">
              {load.answer.songs.map((s) => {
                const done = added.has(s.songId);
                const busy = adding === s.songId;
                const reason = s.reasons[0];
                return (
                  <li
                    key={s.songId}
                    className="flex items-center gap-3 py-2"
                    data-testid="similar-song"
                  >
                    <Artwork song={s} size={48} />
                    <div className="min-w-0 flex-1">
                      <p className="truncate font-semibold text-white">{s.trackName}</p>
                      <p className="truncate text-sm text-ink-100">
                        {s.artistName}
                        <span aria-hidden> · </span>
                        <span className="tabular-nums">{formatDuration(s.duration)}</span>
                      </p>
                      {reason && (
                        <span className="mt-0.5 inline-block rounded-full bg-white/10 px-2 py-0.5 text-xs text-ink-100">
                          {t(`similar.reason.${reason}` as MessageKey)}
                        </span>
                      )}
                    </div>
                    <button
                      type="button"
                      className={button(done ? "ghost" : "secondary", "compact")}
                      disabled={done || busy}
                      aria-label={
                        done
                          ? t("similar.added")
                          : t("similar.addLabel", { track: s.trackName, artist: s.artistName })
                      }
                      onClick={() => void addOne(s)}
                    >
                      {busy ? (
                        <Loader2 aria-hidden className="size-4 animate-spin" />
                      ) : done ? (
                        <Check aria-hidden className="size-4" />
                      ) : (
                        <ListPlus aria-hidden className="size-4" />
                      )}
                      <span className="hidden sm:inline">
                        {done ? t("similar.added") : t("similar.add")}
                      </span>
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
