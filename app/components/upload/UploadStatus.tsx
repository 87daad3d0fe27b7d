import { CheckCircle2, CircleAlert, Clock, FileMusic, Loader2, UploadCloud } from "lucide-react";
import { AddToCrateMenu, AddToQueueButton, PlayButton } from "~/components/songs/SongActions";
import { SongRow } from "~/components/songs/SongRow";
import { button } from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";
import type { UploadDto } from "~/lib/songs";
import { MetadataForm } from "./MetadataForm";
import { RecoverActions } from "./RecoverActions";
import { isFailed, isStalled, shouldPoll } from "./status";

/** The song just uploaded: its status in words, and what to do next. */
export function UploadStatus({
  song,
  onChange,
  onAnother,
  onDeleted,
}: {
  song: UploadDto;
  onChange: (s: UploadDto) => void;
  onAnother: () => void;
  onDeleted: (songId: string) => void;
}) {
  const t = useT();
  // Stalled: still pending past the service's bound; the page stopped checking.
  const stalled = isStalled(song);
  const pending = shouldPoll(song);
  const ok = song.status === "VERIFIED";
  const failed = isFailed(song) || stalled;
  const Icon = ok ? CheckCircle2 : failed ? CircleAlert : pending ? Clock : FileMusic;
  return (
    <div
      className="mt-6 rounded-3xl border border-line bg-panel/70 p-5 shadow-2xl shadow-black/30 sm:p-8"
      data-testid="upload-status"
      data-status={song.status}
      data-stalled={stalled || undefined}
    >
      <SongRow song={song} />
      <div
        role="status"
        className={`mt-4 flex items-start gap-3 rounded-2xl border px-4 py-3 ${
          ok
            ? "border-success/40 bg-success/10"
            : failed
              ? "border-danger/40 bg-danger/10"
              : "border-line bg-white/5"
        }`}
      >
        {pending ? (
          <Loader2 aria-hidden className="mt-0.5 size-5 shrink-0 animate-spin text-brand-light" />
        ) : (
          <Icon
            aria-hidden
            className={`mt-0.5 size-5 shrink-0 ${ok ? "text-success" : failed ? "text-danger" : "text-[#ffc85a]"}`}
          />
        )}
        <div>
          <p className="font-semibold text-white" data-testid="upload-status-title">
            {stalled ? t("songUpload.stalled") : t(`songStatus.${song.status}` as MessageKey)}
          </p>
          <p className="text-sm text-ink-200">
            {stalled
              ? t("songUpload.stalledBody")
              : t(`songStatus.${song.status}.body` as MessageKey)}
          </p>
          {song.detail && song.status !== "VERIFIED" && (
            <p className="mt-1 text-sm text-ink-300" data-testid="upload-detail">
              {song.detail}
            </p>
          )}
        </div>
      </div>
      {song.status === "MISSING_METADATA" && <MetadataForm song={song} onSaved={onChange} />}
      <div className="mt-5 flex flex-wrap items-center gap-2">
        {ok && (
          <>
            <PlayButton song={song} size="lg" />
            <AddToQueueButton song={song} />
            <AddToCrateMenu song={song} />
          </>
        )}
        {failed && <RecoverActions song={song} onChange={onChange} onDeleted={onDeleted} />}
        <button
          type="button"
          onClick={onAnother}
          className={`${button("secondary", "sm")} ml-auto`}
          data-testid="upload-another"
        >
          <UploadCloud aria-hidden className="size-4" />
          {t("songUpload.another")}
        </button>
      </div>
    </div>
  );
}
