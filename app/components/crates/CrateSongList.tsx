import { Link, useRevalidator } from "@remix-run/react";
import { Eraser, Heart, ListMusic, Loader2, Play, Search, Shuffle } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { plural, useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import { useSongsClient } from "~/hooks/useSongsClient";
import { CRATE_PAGE, uploadStream, type CrateSongDto, type ListPage } from "~/lib/songs";
import { moveByPosition } from "~/lib/crate-order";
import type { Loaded } from "~/lib/songs.server";
import { ConfirmDialog } from "~/components/Dialog";
import { usePlayer } from "~/components/songs/Player";
import { EmptyState, SongRowSkeleton } from "~/components/songs/SongRow";
import { useToast } from "~/components/Toaster";
import { Alert, button, LoadError } from "~/components/ui";
import type { CrateKind } from "./kind";
import { SortableSongs } from "./SortableSongs";

interface ListProps {
  id: string;
  kind: CrateKind;
  canEdit: boolean;
  first: Loaded<ListPage<CrateSongDto>>;
  refresh: number;
  total: number | null;
  onTotal: (n: number) => void;
  header: (actions: ReactNode, cover?: CrateSongDto) => ReactNode;
}

export function CrateSongList({
  id,
  kind,
  canEdit,
  first,
  refresh,
  total,
  onTotal,
  header,
}: ListProps) {
  const t = useT();
  const client = useSongsClient();
  const toast = useToast();
  const player = usePlayer();
  const revalidator = useRevalidator();
  const [songs, setSongs] = useState<CrateSongDto[]>(first.ok ? first.data.data : []);
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<string | null>(null);
  const [shuffling, setShuffling] = useState(false);
  const [clearing, setClearing] = useState(false);
  const busy = useRef(0);
  const listTotal = total ?? (first.ok ? first.data.total : songs.length);

  useEffect(() => {
    if (first.ok) {
      setSongs(first.data.data);
      onTotal(first.data.total);
    }
  }, [first, onTotal]);

  /** Loads the first `count` songs again (after a shuffle, or while importing). */
  const reload = useCallback(
    async (count: number) => {
      const page = await client.crateSongs(id, 0, Math.max(CRATE_PAGE, count));
      setSongs(page.data);
      onTotal(page.total);
    },
    [client, id, onTotal],
  );

  useEffect(() => {
    if (refresh === 0 || busy.current > 0) return;
    reload(songs.length).catch(() => {});
    // Only on the import refresh tick.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [refresh]);

  async function loadMore() {
    setLoadingMore(true);
    setMoreError(null);
    try {
      const page = await client.crateSongs(id, songs.length, CRATE_PAGE);
      setSongs((s) => {
        const seen = new Set(s.map((x) => x.crateSongUuid));
        return [...s, ...page.data.filter((x) => !seen.has(x.crateSongUuid))];
      });
      onTotal(page.total);
    } catch (err) {
      setMoreError(errorText(err, t));
    } finally {
      setLoadingMore(false);
    }
  }

  /**
   * Reorder: moves at once, then `PUT .../position {newPosition}` with the target's server
   * position (hidden songs make list indexes differ from it); put back on failure.
   */
  async function move(from: number, to: number) {
    if (from === to) return;
    const before = songs;
    const moved = before[from];
    const next = moveByPosition(before, from, to);
    setSongs(next.list);
    busy.current++;
    try {
      await client.moveSong(id, moved.crateSongUuid, next.newPosition);
    } catch (err) {
      setSongs(before);
      toast.error(t("crate.moveFailed", { message: errorText(err, t) }), () => void move(from, to));
    } finally {
      busy.current--;
    }
  }

  async function remove(song: CrateSongDto) {
    const before = songs;
    setSongs((s) => s.filter((x) => x.crateSongUuid !== song.crateSongUuid));
    onTotal(Math.max(0, listTotal - 1));
    busy.current++;
    try {
      await client.removeSongs(id, [song.crateSongUuid]);
      toast.success(t("crate.removed", { track: song.trackName || t("song.untitled") }));
    } catch (err) {
      setSongs(before);
      onTotal(listTotal);
      toast.error(t("crate.removeFailed", { message: errorText(err, t) }), () => void remove(song));
    } finally {
      busy.current--;
    }
  }

  async function shuffle() {
    setShuffling(true);
    try {
      await client.shuffle(id);
      await reload(songs.length);
      toast.success(t("crate.shuffled"));
    } catch (err) {
      toast.error(errorText(err, t), () => void shuffle());
    } finally {
      setShuffling(false);
    }
  }

  async function clear() {
    const before = songs;
    const beforeTotal = listTotal;
    setSongs([]);
    onTotal(0);
    busy.current++;
    try {
      await client.clear(kind === "likes" ? "likes" : "queue");
      toast.success(t(kind === "likes" ? "likes.cleared" : "queue.cleared"));
    } catch (err) {
      setSongs(before);
      onTotal(beforeTotal);
      toast.error(errorText(err, t), () => void clear());
    } finally {
      busy.current--;
    }
  }

  const playable = useMemo(() => songs.filter((s) => uploadStream(s)), [songs]);
  const actions = (
    <>
      <button
        type="button"
        disabled={!playable.length}
        onClick={() => playable[0] && player.play(playable[0], { list: playable })}
        className={button("primary", "sm")}
        data-testid="play-all"
      >
        <Play aria-hidden className="size-4 fill-current" />
        {t("crate.play")}
      </button>
      {canEdit && (
        <button
          type="button"
          disabled={songs.length < 2 || shuffling}
          onClick={shuffle}
          className={button("secondary", "sm")}
          data-testid="shuffle"
        >
          {shuffling ? (
            <Loader2 aria-hidden className="size-4 animate-spin" />
          ) : (
            <Shuffle aria-hidden className="size-4" />
          )}
          {t("crate.shuffle")}
        </button>
      )}
      {kind === "queue" && (
        <button
          type="button"
          disabled={!songs.length}
          onClick={() => setClearing(true)}
          className={button("secondary", "sm")}
          data-testid="clear-queue"
        >
          <Eraser aria-hidden className="size-4" />
          {t("queue.clear")}
        </button>
      )}
    </>
  );

  return (
    <>
      {header(songs.length ? actions : null, songs[0])}
      <section aria-labelledby="songs-heading" className="mt-8">
        <h2 id="songs-heading" className="sr-only">
          {t("crate.songs")}
        </h2>
        {!first.ok ? (
          <LoadError error={first} onRetry={() => revalidator.revalidate()} />
        ) : songs.length === 0 ? (
          <EmptyState
            icon={
              kind === "likes" ? (
                <Heart aria-hidden className="size-7" />
              ) : (
                <ListMusic aria-hidden className="size-7" />
              )
            }
            title={t(
              kind === "queue"
                ? "queue.emptyTitle"
                : kind === "likes"
                  ? "likes.emptyTitle"
                  : "crate.emptyTitle",
            )}
            body={t(
              kind === "queue"
                ? "queue.emptyBody"
                : kind === "likes"
                  ? "likes.emptyBody"
                  : "crate.emptyBody",
            )}
          >
            <Link to="/search" className={button("primary", "sm")}>
              <Search aria-hidden className="size-4" />
              {t("nav.search")}
            </Link>
          </EmptyState>
        ) : (
          <SortableSongs
            songs={songs}
            canEdit={canEdit}
            kind={kind}
            playable={playable}
            onMove={move}
            onRemove={remove}
          />
        )}
        {loadingMore && <SongRowSkeleton rows={3} />}
        {moreError && (
          <div className="mt-3">
            <Alert error={{ status: 0, message: moreError, generic: false }} />
          </div>
        )}
        {first.ok && songs.length > 0 && songs.length < listTotal && !loadingMore && (
          <div className="mt-4 flex justify-center">
            <button
              type="button"
              onClick={loadMore}
              className={button("secondary", "sm")}
              data-testid="load-more"
            >
              {moreError
                ? t("errors.retry")
                : t("crate.loadMore", { shown: songs.length, total: listTotal })}
            </button>
          </div>
        )}
      </section>
      <ConfirmDialog
        open={clearing}
        title={t("queue.clearTitle")}
        confirmLabel={t("queue.clear")}
        danger
        onConfirm={() => void clear()}
        onClose={() => setClearing(false)}
      >
        {plural(t, "queue.clearBody", listTotal)}
      </ConfirmDialog>
    </>
  );
}
