import { RefreshCw, Trash2 } from "lucide-react";
import { useState } from "react";
import { button } from "~/components/ui";
import { useSongsClient } from "~/hooks/useSongsClient";
import { useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import type { UploadDto } from "~/lib/songs";
import { isStalled } from "./status";

/**
 * What the owner can do with an upload that will not play: check a stalled one once more
 * (the page stopped polling it), or delete it (then upload it again).
 */
export function RecoverActions({
  song,
  onChange,
  onDeleted,
}: {
  song: UploadDto;
  onChange: (s: UploadDto) => void;
  onDeleted: (songId: string) => void;
}) {
  const t = useT();
  const client = useSongsClient();
  const [busy, setBusy] = useState<"check" | "delete" | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function act(kind: "check" | "delete") {
    setBusy(kind);
    setError(null);
    try {
      if (kind === "check") onChange(await client.song(song.songId));
      else {
        await client.deleteSong(song.songId);
        onDeleted(song.songId);
      }
    } catch (err) {
      setError(errorText(err, t));
    } finally {
      setBusy(null);
    }
  }

  return (
    <>
      {isStalled(song) && (
        <button
          type="button"
          onClick={() => act("check")}
          disabled={busy !== null}
          className={button("secondary", "sm")}
          data-testid="upload-check-again"
        >
          <RefreshCw aria-hidden className={`size-4 ${busy === "check" ? "animate-spin" : ""}`} />
          {t("songUpload.checkAgain")}
        </button>
      )}
      <button
        type="button"
        onClick={() => act("delete")}
        disabled={busy !== null}
        className={button("secondary", "sm")}
        data-testid="upload-delete"
      >
        <Trash2 aria-hidden className="size-4" />
        {busy === "delete" ? t("songUpload.deleting") : t("songUpload.delete")}
      </button>
      {error && (
        <p role="alert" className="w-full text-sm text-danger">
          {error}
        </p>
      )}
    </>
  );
}
