import { ArrowDown, ArrowUp, Loader2, Trash2 } from "lucide-react";
import { useState } from "react";
import { useToast } from "~/components/Toaster";
import { SongRow } from "~/components/songs/SongRow";
import { useSongsClient } from "~/hooks/useSongsClient";
import { useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import type { CrateSongDto } from "~/lib/songs";

const iconButton =
  "grid size-8 shrink-0 place-items-center rounded-full border border-white/15 text-ink-50 transition hover:border-white/40 hover:bg-white/10 disabled:opacity-40";

/**
 * The queue in play order, each song movable one place up or down and removable. Every
 * change is the playlist-service's (the order the room reads at each turn); the list reloads
 * from its answer, and a failure says so and changes nothing here.
 */
export function QueueList({
  songs,
  reload,
}: {
  songs: CrateSongDto[];
  reload: () => Promise<void>;
}) {
  const t = useT();
  const client = useSongsClient();
  const toast = useToast();
  const [busy, setBusy] = useState<string | null>(null);

  const run = async (uuid: string, fn: () => Promise<unknown>) => {
    setBusy(uuid);
    try {
      await fn();
    } catch (e) {
      toast.error(errorText(e, t));
    }
    await reload();
    setBusy(null);
  };

  return (
    <ol className="space-y-1" data-testid="queue-list">
      {songs.map((s, i) => {
        const track = s.trackName || t("song.untitled");
        return (
          <li key={s.crateSongUuid} data-testid="queue-song">
            <SongRow
              song={s}
              leading={
                <span className="w-5 shrink-0 text-right text-sm tabular-nums text-ink-300">
                  {i + 1}
                </span>
              }
              actions={
                busy === s.crateSongUuid ? (
                  <Loader2 aria-hidden className="size-4 animate-spin text-ink-200" />
                ) : (
                  <>
                    <button
                      type="button"
                      className={iconButton}
                      disabled={i === 0 || !!busy}
                      aria-label={t("queue.moveUp", { track })}
                      onClick={() =>
                        void run(s.crateSongUuid, () =>
                          client.moveSong("queue", s.crateSongUuid, i - 1),
                        )
                      }
                      data-testid="queue-up"
                    >
                      <ArrowUp aria-hidden className="size-4" />
                    </button>
                    <button
                      type="button"
                      className={iconButton}
                      disabled={i === songs.length - 1 || !!busy}
                      aria-label={t("queue.moveDown", { track })}
                      onClick={() =>
                        void run(s.crateSongUuid, () =>
                          client.moveSong("queue", s.crateSongUuid, i + 1),
                        )
                      }
                      data-testid="queue-down"
                    >
                      <ArrowDown aria-hidden className="size-4" />
                    </button>
                    <button
                      type="button"
                      className={iconButton}
                      disabled={!!busy}
                      aria-label={t("queue.remove", { track })}
                      onClick={() =>
                        void run(s.crateSongUuid, () =>
                          client.removeSongs("queue", [s.crateSongUuid]),
                        )
                      }
                      data-testid="queue-remove"
                    >
                      <Trash2 aria-hidden className="size-4" />
                    </button>
                  </>
                )
              }
            />
          </li>
        );
      })}
    </ol>
  );
}
