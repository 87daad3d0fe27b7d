import { Check, ListMusic, ListPlus, Loader2, Pause, Play, Plus } from "lucide-react";
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { plural, useT } from "~/i18n";
import type { SongsClient } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { useSongsClient } from "~/hooks/useSongsClient";
import { updateMyCrates, useMyCrates } from "~/lib/crate-cache";
import {
  hasSongId,
  songKey,
  uploadStream,
  type AnySong,
  type CrateDto,
  type CrateSongDto,
  type SongDto,
} from "~/lib/songs";
import { useRootData } from "~/hooks/useRootData";
import { usePlayer, type PlayOptions } from "~/components/songs/Player";
import { useToast } from "~/components/Toaster";

/** What adding a song came to: "already" is the queue holding it (nothing added). */
export type AddOutcome = "added" | "already" | "error";

/** A window event the room's queue drawer listens to: a song went into the queue. */
export const QUEUE_CHANGED = "hangout:queue-changed";
const notifyQueueChanged = () => window.dispatchEvent(new Event(QUEUE_CHANGED));

// Provider hits imported once per page life: adding the same hit twice reuses the song.
const imports = new Map<string, Promise<SongDto>>();

async function inCatalogue(client: SongsClient, song: AnySong): Promise<SongDto | CrateSongDto> {
  if (hasSongId(song)) return song;
  const key = songKey(song, -1);
  let p = imports.get(key);
  if (!p) {
    p = client.importTrack(song).then((r) => r.song);
    imports.set(key, p);
    p.catch(() => imports.delete(key));
  }
  return p;
}

/**
 * Adding songs to the queue and to crates, with a toast for the outcome (the server's
 * message on failure, with a retry). Provider hits are imported first (track-import).
 */
export function useSongActions() {
  const client = useSongsClient();
  const toast = useToast();
  const t = useT();

  const add = useCallback(
    async (song: AnySong, target: { id: string; name?: string }): Promise<AddOutcome> => {
      try {
        const s = await inCatalogue(client, song);
        const track = song.trackName || t("song.untitled");
        if (target.id === "queue") {
          // The queue takes a song once from these buttons: a second click says so.
          const { added } = await client.queueSong(s.songId);
          if (added) toast.success(t("song.addedToQueue", { track }));
          else toast.info(t("song.alreadyQueued", { track }));
          notifyQueueChanged();
          return added ? "added" : "already";
        }
        await client.addSong(target.id, s.songId);
        toast.success(t("song.addedToCrate", { track, crate: target.name ?? "" }));
        if (target.id !== "queue")
          updateMyCrates((cs) =>
            cs.map((c) =>
              c.crateUuid === target.id
                ? { ...c, crateSongsNumber: c.crateSongsNumber + 1, count: c.count + 1 }
                : c,
            ),
          );
        return "added";
      } catch (err) {
        toast.error(errorText(err, t), () => void add(song, target));
        return "error";
      }
    },
    [client, toast, t],
  );

  const addToNewCrate = useCallback(
    async (song: AnySong, name?: string): Promise<boolean> => {
      try {
        const crate = await client.createCrate(name?.trim() || undefined);
        updateMyCrates((cs) => [crate, ...cs]);
        return (await add(song, { id: crate.crateUuid, name: crate.crateName })) !== "error";
      } catch (err) {
        toast.error(errorText(err, t), () => void addToNewCrate(song, name));
        return false;
      }
    },
    [add, client, toast, t],
  );

  return {
    addToQueue: (song: AnySong) => add(song, { id: "queue" }),
    addToCrate: async (song: AnySong, crate: Pick<CrateDto, "crateUuid" | "crateName">) =>
      (await add(song, { id: crate.crateUuid, name: crate.crateName })) !== "error",
    addToNewCrate,
  };
}

const iconButton =
  "inline-flex h-9 items-center justify-center gap-1.5 whitespace-nowrap rounded-full border border-white/15 px-2.5 text-sm font-medium text-ink-50 transition hover:border-white/40 hover:bg-white/10 disabled:cursor-progress disabled:opacity-70";

/** One click: the song goes to the end of the queue. */
export function AddToQueueButton({ song, compact = false }: { song: AnySong; compact?: boolean }) {
  const t = useT();
  const { addToQueue } = useSongActions();
  const [phase, setPhase] = useState<"idle" | "busy" | "done" | "already">("idle");
  useEffect(() => {
    if (phase !== "done" && phase !== "already") return;
    const id = setTimeout(() => setPhase("idle"), 2000);
    return () => clearTimeout(id);
  }, [phase]);
  const label = t("song.addToQueueFor", { track: song.trackName || t("song.untitled") });
  return (
    <button
      type="button"
      className={iconButton}
      disabled={phase === "busy"}
      aria-label={label}
      title={t("song.addToQueue")}
      data-testid="add-to-queue"
      data-phase={phase}
      onClick={async () => {
        setPhase("busy");
        const r = await addToQueue(song);
        setPhase(r === "added" ? "done" : r === "already" ? "already" : "idle");
      }}
    >
      {phase === "busy" ? (
        <Loader2 aria-hidden className="size-4 animate-spin" />
      ) : phase === "done" || phase === "already" ? (
        <Check aria-hidden className="size-4 text-success" />
      ) : (
        <ListMusic aria-hidden className="size-4" />
      )}
      <span className={compact ? "sr-only" : "max-md:sr-only"}>{t("song.queue")}</span>
    </button>
  );
}

/** "Add to crate": a menu of the user's crates and "New crate". */
export function AddToCrateMenu({ song }: { song: AnySong }) {
  const t = useT();
  const userUuid = useRootData()?.user?.uuid ?? null;
  const { crates, loading, error, ensure } = useMyCrates(userUuid);
  const { addToCrate, addToNewCrate } = useSongActions();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [up, setUp] = useState(false);
  // "New crate" asks for its name first (issue 20: no more "New Playlist #1").
  const [naming, setNaming] = useState<string | null>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();

  const close = useCallback((focus = true) => {
    setOpen(false);
    setNaming(null);
    if (focus) trigger.current?.focus();
  }, []);

  useEffect(() => {
    if (!open) return;
    void ensure();
    const onDown = (e: MouseEvent) => {
      if (!menu.current?.contains(e.target as Node) && !trigger.current?.contains(e.target as Node))
        close(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open, ensure, close]);

  // Focus the first item when the menu opens (and again once the crates arrive).
  useEffect(() => {
    if (!open) return;
    const active = document.activeElement;
    if (active && menu.current?.contains(active)) return;
    menu.current?.querySelector<HTMLElement>('[role="menuitem"]:not([disabled])')?.focus();
  }, [open, crates, loading]);

  function toggle() {
    if (!open && trigger.current) {
      const r = trigger.current.getBoundingClientRect();
      // Open upwards when the list would run under the player bar.
      setUp(window.innerHeight - r.bottom < 320);
    }
    setOpen((o) => !o);
  }

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    // In the name field the arrows, Home and End move the caret; Escape still closes.
    if ((e.target as HTMLElement).tagName === "INPUT" && e.key !== "Escape") return;
    const items = [
      ...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled])') ?? []),
    ];
    const i = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === "ArrowDown") items[(i + 1) % items.length]?.focus();
    else if (e.key === "ArrowUp") items[(i - 1 + items.length) % items.length]?.focus();
    else if (e.key === "Home") items[0]?.focus();
    else if (e.key === "End") items[items.length - 1]?.focus();
    else if (e.key === "Escape") close();
    else if (e.key === "Tab") close(false);
    else return;
    if (e.key !== "Tab") e.preventDefault();
  }

  async function pick(fn: () => Promise<boolean>) {
    setBusy(true);
    close();
    await fn();
    setBusy(false);
  }

  const track = song.trackName || t("song.untitled");
  return (
    <div className="relative">
      <button
        ref={trigger}
        type="button"
        className={iconButton}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={t("song.addToCrateFor", { track })}
        title={t("song.addToCrate")}
        disabled={busy}
        data-testid="add-to-crate"
        onClick={toggle}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" && !open) {
            e.preventDefault();
            toggle();
          }
        }}
      >
        {busy ? (
          <Loader2 aria-hidden className="size-4 animate-spin" />
        ) : (
          <ListPlus aria-hidden className="size-4" />
        )}
        <span className="max-md:sr-only">{t("song.crate")}</span>
      </button>
      {open && (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          aria-label={t("song.addToCrateFor", { track })}
          onKeyDown={onKeyDown}
          className={`absolute right-0 z-30 w-64 max-w-[calc(100vw-2rem)] overflow-hidden rounded-2xl border border-line bg-panel py-1.5 shadow-2xl shadow-black/60 ${
            up ? "bottom-full mb-2" : "top-full mt-2"
          }`}
        >
          <p className="px-3.5 pb-1.5 pt-1 text-xs font-semibold uppercase tracking-wider text-ink-300">
            {t("song.chooseCrate")}
          </p>
          <div className="max-h-56 overflow-y-auto">
            {loading && !crates && (
              <div className="space-y-2 px-3.5 py-2" aria-hidden>
                <div className="h-4 w-3/4 animate-pulse rounded bg-white/10" />
                <div className="h-4 w-1/2 animate-pulse rounded bg-white/10" />
              </div>
            )}
            {!!error && !crates && (
              <p className="px-3.5 py-2 text-sm text-danger">{errorText(error, t)}</p>
            )}
            {crates?.length === 0 && (
              <p className="px-3.5 py-1.5 text-sm text-ink-300">{t("song.noCrates")}</p>
            )}
            {crates?.map((c) => (
              <button
                key={c.crateUuid}
                type="button"
                role="menuitem"
                tabIndex={-1}
                onClick={() => void pick(() => addToCrate(song, c))}
                className="flex w-full items-center justify-between gap-3 px-3.5 py-2 text-left text-sm text-ink-50 hover:bg-white/10 focus:bg-white/10 focus:outline-none"
              >
                <span className="truncate">{c.crateName}</span>
                <span className="shrink-0 text-xs tabular-nums text-ink-300">
                  {plural(t, "crate.songCount", c.crateSongsNumber)}
                </span>
              </button>
            ))}
          </div>
          <div className="my-1 border-t border-line" />
          {naming === null ? (
            <button
              type="button"
              role="menuitem"
              tabIndex={-1}
              onClick={() => setNaming("")}
              className="flex w-full items-center gap-2 px-3.5 py-2 text-left text-sm font-semibold text-brand-light hover:bg-white/10 focus:bg-white/10 focus:outline-none"
            >
              <Plus aria-hidden className="size-4" />
              {t("song.newCrate")}
            </button>
          ) : (
            <form
              className="flex items-center gap-2 px-2.5 py-1.5"
              onSubmit={(e) => {
                e.preventDefault();
                const name = naming.trim();
                if (name) void pick(() => addToNewCrate(song, name));
              }}
            >
              <input
                autoFocus
                value={naming}
                onChange={(e) => setNaming(e.target.value)}
                maxLength={100}
                required
                aria-label={t("crates.newName")}
                placeholder={t("crates.newPlaceholder")}
                className="block min-w-0 flex-1 rounded-lg border border-line bg-ink-900 px-2.5 py-1.5 text-sm text-ink-50 placeholder:text-ink-300"
                data-testid="new-crate-inline-name"
              />
              <button
                type="submit"
                aria-label={t("crates.create")}
                title={t("crates.create")}
                className="grid size-8 shrink-0 place-items-center rounded-full bg-brand text-white hover:bg-brand-hover"
                data-testid="new-crate-inline-create"
              >
                <Plus aria-hidden className="size-4" />
              </button>
            </form>
          )}
        </div>
      )}
    </div>
  );
}

/** Play (or pause) a song that can stream here; nothing for one that can't. */
export function PlayButton({
  song,
  list,
  size = "md",
}: {
  song: AnySong;
  list?: AnySong[];
  size?: "md" | "lg";
}) {
  const t = useT();
  const player = usePlayer();
  if (!uploadStream(song)) return null;
  const current = player.isCurrent(song);
  const playing = current && (player.state === "playing" || player.state === "loading");
  const track = song.trackName || t("song.untitled");
  const opts: PlayOptions = list ? { list } : {};
  return (
    <button
      type="button"
      onClick={() => (playing ? player.pause() : player.play(song, opts))}
      aria-label={playing ? t("song.pauseTrack", { track }) : t("song.playTrack", { track })}
      data-testid="play-song"
      className={`grid shrink-0 place-items-center rounded-full transition ${
        current
          ? "bg-neon text-ink-950 hover:brightness-110"
          : "bg-brand text-white hover:bg-brand-hover"
      } ${size === "lg" ? "size-12" : "size-9"}`}
    >
      {current && player.state === "loading" ? (
        <Loader2 aria-hidden className="size-4 animate-spin" />
      ) : playing ? (
        <Pause aria-hidden className="size-4 fill-current" />
      ) : (
        <Play aria-hidden className="ml-0.5 size-4 fill-current" />
      )}
    </button>
  );
}
