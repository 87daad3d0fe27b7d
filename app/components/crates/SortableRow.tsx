import { useSortable } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { GripVertical, Trash2 } from "lucide-react";
import { useT } from "~/i18n";
import { type CrateSongDto } from "~/lib/songs";
import { AddToQueueButton, PlayButton } from "~/components/songs/SongActions";
import { SongRow } from "~/components/songs/SongRow";
import { IconButton } from "~/components/ui";
import type { CrateKind } from "./kind";

export function SortableRow({
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
