import { Loader2, UploadCloud } from "lucide-react";
import { useEffect, useState } from "react";
import { AddToCrateMenu, AddToQueueButton, PlayButton } from "~/components/songs/SongActions";
import { EmptyState, SongRow, Tag } from "~/components/songs/SongRow";
import { button } from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";
import type { UploadDto } from "~/lib/songs";
import { MetadataForm } from "./MetadataForm";
import { RecoverActions } from "./RecoverActions";
import { isFailed, isStalled, shouldPoll, STATUS_TONE } from "./status";

/** "My uploads": this visit's uploads first, then the listed ones, each with its status. */
export function MyUploads({
  initial,
  songs,
  added,
  track,
  onChange,
  onDeleted,
}: {
  initial: UploadDto[];
  songs: Record<string, UploadDto>;
  added: string[];
  track: (list: UploadDto[]) => void;
  onChange: (s: UploadDto) => void;
  onDeleted: (songId: string) => void;
}) {
  // Songs deleted here leave the list at once (the loader's list is not reloaded).
  const [gone, setGone] = useState<string[]>([]);
  const deleted = (songId: string) => {
    setGone((g) => [...g, songId]);
    onDeleted(songId);
  };
  const t = useT();
  const [open, setOpen] = useState<string | null>(null);
  // Hand the listed songs to the page, which polls the pending ones.
  useEffect(() => track(initial), [initial, track]);
  const list = [
    ...added.map((id) => songs[id]).filter(Boolean),
    ...initial.filter((s) => !added.includes(s.songId)).map((s) => songs[s.songId] ?? s),
  ].filter((s) => !gone.includes(s.songId));
  const playable = list.filter((s) => s.status === "VERIFIED");
  if (!list.length) {
    return (
      <EmptyState
        icon={<UploadCloud aria-hidden className="size-7" />}
        title={t("songUpload.emptyTitle")}
        body={t("songUpload.emptyBody")}
      />
    );
  }
  return (
    <ul className="space-y-1" data-testid="my-uploads">
      {list.map((s) => (
        <li
          key={s.songId}
          data-testid="my-upload"
          data-status={s.status}
          data-stalled={isStalled(s) || undefined}
        >
          <SongRow
            song={s}
            tag={
              isStalled(s) ? (
                <Tag tone="danger">{t("songUpload.stalledTag")}</Tag>
              ) : (
                <Tag tone={STATUS_TONE[s.status]}>
                  {shouldPoll(s) && <Loader2 aria-hidden className="size-3 animate-spin" />}
                  {t(`songStatus.${s.status}.tag` as MessageKey)}
                </Tag>
              )
            }
            actions={
              s.status === "VERIFIED" ? (
                <>
                  <PlayButton song={s} list={playable} />
                  <AddToQueueButton song={s} />
                  <AddToCrateMenu song={s} />
                </>
              ) : s.status === "MISSING_METADATA" ? (
                <button
                  type="button"
                  onClick={() => setOpen(open === s.songId ? null : s.songId)}
                  aria-expanded={open === s.songId}
                  className={button("secondary", "sm")}
                >
                  {t("songUpload.addDetails")}
                </button>
              ) : isFailed(s) || isStalled(s) ? (
                <RecoverActions song={s} onChange={onChange} onDeleted={deleted} />
              ) : undefined
            }
          />
          {open === s.songId && s.status === "MISSING_METADATA" && (
            <div className="px-3 pb-3">
              <MetadataForm
                song={s}
                onSaved={(saved) => {
                  onChange(saved);
                  setOpen(null);
                }}
              />
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}
