import { Loader2, UploadCloud } from "lucide-react";
import { useEffect, useState } from "react";
import { AddToCrateMenu, AddToQueueButton, PlayButton } from "~/components/songs/SongActions";
import { EmptyState, SongRow, Tag } from "~/components/songs/SongRow";
import { button } from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";
import type { UploadDto } from "~/lib/songs";
import { MetadataForm } from "./MetadataForm";
import { isPending, STATUS_TONE } from "./status";

/** "My uploads": this visit's uploads first, then the listed ones, each with its status. */
export function MyUploads({
  initial,
  songs,
  added,
  track,
  onChange,
}: {
  initial: UploadDto[];
  songs: Record<string, UploadDto>;
  added: string[];
  track: (list: UploadDto[]) => void;
  onChange: (s: UploadDto) => void;
}) {
  const t = useT();
  const [open, setOpen] = useState<string | null>(null);
  // Hand the listed songs to the page, which polls the pending ones.
  useEffect(() => track(initial), [initial, track]);
  const list = [
    ...added.map((id) => songs[id]).filter(Boolean),
    ...initial.filter((s) => !added.includes(s.songId)).map((s) => songs[s.songId] ?? s),
  ];
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
        <li key={s.songId} data-testid="my-upload" data-status={s.status}>
          <SongRow
            song={s}
            tag={
              <Tag tone={STATUS_TONE[s.status]}>
                {isPending(s) && <Loader2 aria-hidden className="size-3 animate-spin" />}
                {t(`songStatus.${s.status}.tag` as MessageKey)}
              </Tag>
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
