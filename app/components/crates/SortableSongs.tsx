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
  SortableContext,
  sortableKeyboardCoordinates,
  verticalListSortingStrategy,
} from "@dnd-kit/sortable";
import { useMemo } from "react";
import { useT } from "~/i18n";
import { type CrateSongDto } from "~/lib/songs";
import type { CrateKind } from "./kind";
import { SortableRow } from "./SortableRow";

/** Rows only move up and down. */
const restrictToVerticalAxis: Modifier = ({ transform }) => ({ ...transform, x: 0 });

export function SortableSongs({
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
