import { Loader2 } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useToast } from "~/components/Toaster";
import { Alert, Field, button } from "~/components/ui";
import { useSongsClient } from "~/hooks/useSongsClient";
import { useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import type { UploadDto } from "~/lib/songs";

/** MISSING_METADATA: the track and artist, sent with POST /metadata. */
export function MetadataForm({
  song,
  onSaved,
}: {
  song: UploadDto;
  onSaved: (s: UploadDto) => void;
}) {
  const t = useT();
  const client = useSongsClient();
  const toast = useToast();
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<{ trackName?: string; artistName?: string; form?: string }>(
    {},
  );
  const formRef = useRef<HTMLFormElement>(null);
  // After a failed save, focus lands on what needs fixing.
  useEffect(() => {
    if (errors.trackName || errors.artistName || errors.form)
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], [role="alert"]')?.focus();
  }, [errors]);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const trackName = String(data.get("trackName") ?? "").trim();
    const artistName = String(data.get("artistName") ?? "").trim();
    const next = {
      trackName: trackName ? undefined : t("songUpload.trackRequired"),
      artistName: artistName ? undefined : t("songUpload.artistRequired"),
    };
    setErrors(next);
    if (next.trackName || next.artistName) return;
    setSaving(true);
    try {
      const saved = await client.metadata({ songId: song.songId, trackName, artistName });
      onSaved(saved);
      toast.success(t("songUpload.detailsSaved"));
    } catch (err) {
      setErrors({ form: errorText(err, t) });
    } finally {
      setSaving(false);
    }
  }
  return (
    <form
      ref={formRef}
      onSubmit={submit}
      noValidate
      className="mt-4 grid gap-4 sm:grid-cols-2"
      data-testid="metadata-form"
    >
      {errors.form && (
        <div className="sm:col-span-2">
          <Alert error={{ status: 0, message: errors.form, generic: false }} />
        </div>
      )}
      <Field
        label={t("songUpload.trackName")}
        name="trackName"
        required
        defaultValue={song.trackName}
        error={errors.trackName}
        maxLength={200}
      />
      <Field
        label={t("songUpload.artistName")}
        name="artistName"
        required
        defaultValue={song.artistName}
        error={errors.artistName}
        maxLength={200}
      />
      <div className="sm:col-span-2">
        <button type="submit" className={button("primary", "sm")} disabled={saving}>
          {saving && <Loader2 aria-hidden className="size-4 animate-spin" />}
          {t(saving ? "songUpload.savingDetails" : "songUpload.saveDetails")}
        </button>
      </div>
    </form>
  );
}
