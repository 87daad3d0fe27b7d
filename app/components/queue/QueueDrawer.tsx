import { ListMusic, X } from "lucide-react";
import { useModalDialog } from "~/hooks/useModalDialog";
import { EmptyState, SongRowSkeleton } from "~/components/songs/SongRow";
import { button } from "~/components/ui";
import { plural, useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import { ROOM_PILL } from "~/components/room/StatusPill";
import { QueueList } from "./QueueList";
import { QueueSearch } from "./QueueSearch";
import { RefillPicker } from "./RefillPicker";
import { useQueue } from "./useQueue";

/** The room header's button that opens the queue drawer. */
export function QueueButton({ onOpen }: { onOpen: () => void }) {
  const t = useT();
  return (
    <button
      type="button"
      onClick={onOpen}
      className={`${ROOM_PILL} hover:bg-black/60`}
      data-testid="open-queue"
    >
      <ListMusic aria-hidden className="size-4" />
      {t("queue.open")}
    </button>
  );
}

/**
 * The queue inside the room (issue 20): see it, reorder it, remove songs, search and add
 * without leaving the room, and choose the crate it refills from. A native modal <dialog>
 * (focus stays inside, Escape closes, focus returns to the opener), drawn as a side sheet.
 */
export function QueueDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const t = useT();
  const ref = useModalDialog(open);
  const { songs, total, error, reload } = useQueue(open);

  return (
    <dialog
      ref={ref}
      aria-labelledby="queue-drawer-title"
      onClose={onClose}
      onCancel={onClose}
      onClick={(e) => e.target === ref.current && onClose()}
      className="fixed inset-y-0 left-auto right-0 m-0 h-dvh max-h-dvh w-[min(32rem,100vw)] max-w-none border-l border-line bg-panel p-0 text-ink-50 shadow-2xl shadow-black/60 backdrop:bg-ink-950/60 backdrop:backdrop-blur-sm"
      data-testid="queue-drawer"
    >
      {open && (
        <div className="flex h-full flex-col">
          <header className="flex items-center justify-between gap-3 border-b border-line px-4 py-3 sm:px-5">
            <div className="min-w-0">
              <h2 id="queue-drawer-title" className="text-lg font-bold text-white">
                {t("queue.drawerTitle")}
              </h2>
              {songs && (
                <p className="text-sm text-ink-200" data-testid="queue-count">
                  {plural(t, "queue.count", total)}
                </p>
              )}
            </div>
            <button
              type="button"
              onClick={onClose}
              className={button("ghost")}
              aria-label={t("queue.close")}
              data-testid="close-queue"
            >
              <X aria-hidden className="size-5" />
            </button>
          </header>
          <div className="min-h-0 flex-1 space-y-5 overflow-y-auto px-3 py-4 pb-28 sm:px-4">
            <QueueSearch />
            {!songs && !error && <SongRowSkeleton rows={3} />}
            {!!error && (
              <p role="alert" className="text-sm text-danger">
                {errorText(error, t)}
              </p>
            )}
            {songs && songs.length === 0 && (
              <EmptyState
                icon={<ListMusic aria-hidden className="size-7" />}
                title={t("queue.empty")}
                body={t("queue.emptyBody")}
              />
            )}
            {songs && songs.length > 0 && <QueueList songs={songs} reload={reload} />}
            <RefillPicker />
          </div>
        </div>
      )}
    </dialog>
  );
}
