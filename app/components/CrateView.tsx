import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type Modifier,
  type ScreenReaderInstructions,
} from "@dnd-kit/core";
import {
  arrayMove,
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { Await, Link, useRevalidator } from "@remix-run/react";
import {
  ArrowLeft,
  Eraser,
  GripVertical,
  Heart,
  ListMusic,
  Loader2,
  Play,
  Search,
  Shuffle,
  Trash2,
} from "lucide-react";
import { Suspense, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { plural, useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import { useSongsClient } from "~/hooks/useSongsClient";
import {
  CRATE_PAGE,
  IMPORT_REFRESH_MS,
  artworkUrl,
  uploadStream,
  type CrateDto,
  type CrateSongDto,
  type ListPage,
} from "~/lib/songs";
import type { Loaded } from "~/lib/songs.server";
import { Artwork, GradientTile } from "./Artwork";
import { ConfirmDialog } from "./Dialog";
import { usePlayer } from "./Player";
import { AddToQueueButton, PlayButton } from "./SongActions";
import { EmptyState, SongRow, SongRowSkeleton, Tag } from "./SongRow";
import { useToast } from "./Toaster";
import { Alert, IconButton, button, LoadError } from "./ui";

export type CrateKind = "crate" | "queue" | "likes";

/** Rows only move up and down. */
const restrictToVerticalAxis: Modifier = ({ transform }) => ({ ...transform, x: 0 });

interface Props {
  /** The crate's uuid, or "queue" / "likes" (the special crates' paths). */
  id: string;
  kind: CrateKind;
  userUuid: string;
  crate: Loaded<CrateDto>;
  songs: Promise<Loaded<ListPage<CrateSongDto>>>;
}

/**
 * A crate, the queue or the likes: header with name, count and import status (refreshed
 * every 5 s while importing), then the songs 50 at a time, reorderable by drag or keyboard.
 */
export function CrateView({ id, kind, userUuid, crate: first, songs }: Props) {
  const t = useT();
  const client = useSongsClient();
  const revalidator = useRevalidator();
  const [crate, setCrate] = useState<CrateDto | null>(first.ok ? first.data : null);
  const [total, setTotal] = useState<number | null>(first.ok ? first.data.crateSongsNumber : null);
  const [refresh, setRefresh] = useState(0);
  useEffect(() => {
    setCrate(first.ok ? first.data : null);
    if (first.ok) setTotal(first.data.crateSongsNumber);
  }, [first]);

  // Seed 001: while the import is in progress, refresh the crate every 5 s until it is done.
  const importing = crate?.importStatus === "IN_PROGRESS";
  useEffect(() => {
    if (!importing) return;
    const timer = setInterval(async () => {
      try {
        const next = await client.crate(id);
        setCrate(next);
        setTotal(next.crateSongsNumber);
        setRefresh((r) => r + 1);
      } catch {
        /* try again on the next tick */
      }
    }, IMPORT_REFRESH_MS);
    return () => clearInterval(timer);
  }, [importing, client, id]);

  const canEdit = kind !== "crate" || crate?.userUuid === userUuid;
  const name =
    kind === "queue"
      ? t("queue.heading")
      : kind === "likes"
        ? t("likes.heading")
        : (crate?.crateName ?? "");
  const eyebrow =
    kind === "queue"
      ? t("queue.eyebrow")
      : kind === "likes"
        ? t("likes.eyebrow")
        : t("crate.eyebrow");

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      {kind === "crate" && (
        <Link to="/crates" className={`${button("ghost")} -ml-3 mb-2 text-sm`}>
          <ArrowLeft aria-hidden className="size-4" />
          {t("crate.back")}
        </Link>
      )}
      {!first.ok ? (
        <LoadError error={first} onRetry={() => revalidator.revalidate()} />
      ) : (
        <Suspense
          fallback={
            <>
              <Header
                kind={kind}
                name={name}
                eyebrow={eyebrow}
                crate={crate}
                total={total}
                importing={importing}
              />
              <div className="mt-8">
                <SongRowSkeleton rows={5} />
              </div>
            </>
          }
        >
          <Await resolve={songs}>
            {(res) => (
              <SongList
                key={id}
                id={id}
                kind={kind}
                canEdit={canEdit}
                first={res}
                refresh={refresh}
                total={total}
                onTotal={setTotal}
                header={(actions, cover) => (
                  <Header
                    kind={kind}
                    name={name}
                    eyebrow={eyebrow}
                    crate={crate}
                    total={total}
                    importing={importing}
                    actions={actions}
                    cover={cover}
                  />
                )}
              />
            )}
          </Await>
        </Suspense>
      )}
    </div>
  );
}

function Header({
  kind,
  name,
  eyebrow,
  crate,
  total,
  importing,
  actions,
  cover,
}: {
  kind: CrateKind;
  name: string;
  eyebrow: string;
  crate: CrateDto | null;
  total: number | null;
  importing: boolean;
  actions?: ReactNode;
  cover?: CrateSongDto;
}) {
  const t = useT();
  const Icon = kind === "queue" ? ListMusic : kind === "likes" ? Heart : null;
  return (
    <header className="flex flex-col gap-5 sm:flex-row sm:items-end">
      <div className="relative shrink-0 self-start">
        {cover && artworkUrl(cover) ? (
          <Artwork
            song={cover}
            size={128}
            rounded="rounded-2xl"
            className="shadow-2xl shadow-brand/30"
          />
        ) : (
          <GradientTile
            seed={kind === "crate" ? name + (crate?.crateUuid ?? "") : kind}
            hue={kind === "queue" ? 255 : kind === "likes" ? 325 : undefined}
            size={128}
            rounded="rounded-2xl"
            className="shadow-2xl shadow-brand/30"
          />
        )}
        {Icon && (
          <span className="absolute -bottom-2 -right-2 grid size-10 place-items-center rounded-full bg-ink-950 text-neon ring-2 ring-white/15">
            <Icon aria-hidden className="size-5" />
          </span>
        )}
      </div>
      <div className="min-w-0 flex-1">
        <p className="text-sm font-semibold uppercase tracking-widest text-brand-light">
          {eyebrow}
        </p>
        <h1
          className="mt-1 break-words text-3xl font-extrabold tracking-tight text-white sm:text-4xl"
          data-testid="crate-heading"
        >
          {name}
        </h1>
        <div className="mt-2 flex flex-wrap items-center gap-2 text-ink-200">
          <span data-testid="crate-count">
            {total === null ? "–" : plural(t, "crate.songCount", total)}
          </span>
          {importing && (
            <Tag tone="warning">
              <Loader2 aria-hidden className="size-3 animate-spin" />
              <span role="status">{t("crate.importing")}</span>
            </Tag>
          )}
          {crate?.importStatus === "FAILED" && <Tag tone="danger">{t("crate.importFailed")}</Tag>}
          {crate?.importStatus === "COMPLETE" && (
            <Tag tone="success">{t("crate.importComplete")}</Tag>
          )}
        </div>
        {crate?.description && <p className="mt-2 text-ink-200">{crate.description}</p>}
        {actions && <div className="mt-4 flex flex-wrap gap-2">{actions}</div>}
      </div>
    </header>
  );
}

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

function SongList({ id, kind, canEdit, first, refresh, total, onTotal, header }: ListProps) {
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

  /** Reorder: moves at once, then `PUT .../position {newPosition}`; put back on failure. */
  async function move(from: number, to: number) {
    if (from === to) return;
    const before = songs;
    const moved = before[from];
    setSongs(arrayMove(before, from, to).map((s, i) => ({ ...s, position: i })));
    busy.current++;
    try {
      await client.moveSong(id, moved.crateSongUuid, to);
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

function SortableSongs({
  songs,
  canEdit,
  kind,
  playable,
  onMove,
  onRemove,
}: {
  songs: CrateSongDto[];
  canEdit: boolean;
  kind: CrateKind;
  playable: CrateSongDto[];
  onMove: (from: number, to: number) => void;
  onRemove: (s: CrateSongDto) => void;
}) {
  const t = useT();
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const ids = useMemo(() => songs.map((s) => s.crateSongUuid), [songs]);
  const track = (uuid: unknown) =>
    songs.find((s) => s.crateSongUuid === uuid)?.trackName || t("song.untitled");
  const pos = (uuid: unknown) => ids.indexOf(String(uuid)) + 1;
  // What a screen reader hears while moving a song, in the page's language.
  const announcements: Announcements = {
    onDragStart: ({ active }) =>
      t("dnd.start", { track: track(active.id), position: pos(active.id), total: ids.length }),
    onDragOver: ({ active, over }) =>
      over
        ? t("dnd.over", { track: track(active.id), position: pos(over.id), total: ids.length })
        : t("dnd.outside", { track: track(active.id) }),
    onDragEnd: ({ active, over }) =>
      over
        ? t("dnd.end", { track: track(active.id), position: pos(over.id), total: ids.length })
        : t("dnd.cancel", { track: track(active.id) }),
    onDragCancel: ({ active }) => t("dnd.cancel", { track: track(active.id) }),
  };
  const instructions: ScreenReaderInstructions = { draggable: t("dnd.instructions") };

  function onDragEnd(e: DragEndEvent) {
    if (!e.over || e.active.id === e.over.id) return;
    onMove(ids.indexOf(String(e.active.id)), ids.indexOf(String(e.over.id)));
  }

  const rows = songs.map((s, i) => (
    <SortableRow
      key={s.crateSongUuid}
      song={s}
      index={i}
      canEdit={canEdit}
      kind={kind}
      playable={playable}
      onRemove={onRemove}
    />
  ));
  if (!canEdit)
    return (
      <ol className="space-y-1" data-testid="crate-songs">
        {rows}
      </ol>
    );
  return (
    <DndContext
      id="crate-songs"
      sensors={sensors}
      collisionDetection={closestCenter}
      modifiers={[restrictToVerticalAxis]}
      onDragEnd={onDragEnd}
      accessibility={{ announcements, screenReaderInstructions: instructions }}
    >
      <SortableContext items={ids} strategy={verticalListSortingStrategy}>
        <ol className="space-y-1" data-testid="crate-songs">
          {rows}
        </ol>
      </SortableContext>
    </DndContext>
  );
}

function SortableRow({
  song,
  index,
  canEdit,
  kind,
  playable,
  onRemove,
}: {
  song: CrateSongDto;
  index: number;
  canEdit: boolean;
  kind: CrateKind;
  playable: CrateSongDto[];
  onRemove: (s: CrateSongDto) => void;
}) {
  const t = useT();
  const {
    attributes,
    listeners,
    setNodeRef,
    setActivatorNodeRef,
    transform,
    transition,
    isDragging,
  } = useSortable({
    id: song.crateSongUuid,
    disabled: !canEdit,
  });
  const trackName = song.trackName || t("song.untitled");
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      className={`relative ${isDragging ? "z-10 rounded-2xl bg-panel shadow-2xl shadow-black/60 ring-2 ring-brand-light" : ""}`}
      data-testid="crate-song"
      data-crate-song={song.crateSongUuid}
    >
      <SongRow
        song={song}
        leading={
          <div className="flex shrink-0 items-center">
            {canEdit && (
              <button
                ref={setActivatorNodeRef}
                type="button"
                {...attributes}
                {...listeners}
                aria-label={t("crate.reorder", { track: trackName, position: index + 1 })}
                data-testid="drag-handle"
                className="grid h-10 w-7 cursor-grab touch-none place-items-center rounded-lg text-ink-300 hover:bg-white/10 hover:text-white active:cursor-grabbing"
              >
                <GripVertical aria-hidden className="size-5" />
              </button>
            )}
            <span
              className="w-7 text-center text-sm tabular-nums text-ink-300 max-sm:hidden"
              aria-hidden
            >
              {index + 1}
            </span>
          </div>
        }
        actions={
          <>
            <PlayButton song={song} list={playable} />
            {kind !== "queue" && <AddToQueueButton song={song} compact />}
            {canEdit && (
              <IconButton
                label={t("crate.removeFor", { track: trackName })}
                onClick={() => onRemove(song)}
                danger
                testId="remove-song"
              >
                <Trash2 aria-hidden className="size-4" />
              </IconButton>
            )}
          </>
        }
      />
    </li>
  );
}
