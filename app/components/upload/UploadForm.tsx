import { CircleAlert, FileMusic, RotateCcw, UploadCloud, X } from "lucide-react";
import { useEffect, useId, useRef, useState, type DragEvent, type FormEvent } from "react";
import { Alert, Field, button } from "~/components/ui";
import { useGenres } from "~/hooks/useGenres";
import { useT, type MessageKey } from "~/i18n";
import { uploadSong, type UploadHandle } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import {
  MAX_SONG_BYTES,
  SONG_EXTENSIONS,
  SONG_TYPES,
  checkSongFile,
  type UploadDto,
} from "~/lib/songs";

type Phase =
  | { phase: "idle" }
  | { phase: "uploading"; percent: number }
  | { phase: "error"; message: string; retry: boolean };

/** Pick or drop an MP3, add the details, upload with a progress bar. */
export function UploadForm({ onUploaded }: { onUploaded: (s: UploadDto) => void }) {
  const t = useT();
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<MessageKey | null>(null);
  const [over, setOver] = useState(false);
  const [state, setState] = useState<Phase>({ phase: "idle" });
  const [genre, setGenre] = useState("");
  const genres = useGenres(genre);
  const handle = useRef<UploadHandle | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const listId = useId();
  useEffect(() => () => handle.current?.abort(), []);

  function choose(f: File | null | undefined) {
    setState({ phase: "idle" });
    if (!f) return;
    const p = checkSongFile(f);
    setProblem(p);
    setFile(p ? null : f);
    if (p && input.current) input.current.value = "";
  }

  function onDrop(e: DragEvent) {
    e.preventDefault();
    setOver(false);
    choose(e.dataTransfer.files?.[0]);
  }

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!file) {
      setProblem("songUpload.noFile");
      input.current?.focus();
      return;
    }
    const data = new FormData(e.currentTarget);
    const body = new FormData();
    // The text fields go before the file: the service checks them before storing a byte.
    for (const k of ["trackName", "artistName", "albumName", "genre"]) {
      const v = String(data.get(k) ?? "").trim();
      if (v) body.append(k, v);
    }
    body.append("isPublic", data.get("isPublic") ? "true" : "false");
    body.append("file", file, file.name);
    setState({ phase: "uploading", percent: 0 });
    const h = uploadSong(body, (percent) => setState({ phase: "uploading", percent }));
    handle.current = h;
    try {
      const song = await h.promise;
      setState({ phase: "idle" });
      setFile(null);
      form.current?.reset();
      setGenre("");
      onUploaded(song);
    } catch (err) {
      if ((err as Error)?.name === "AbortError") {
        setState({ phase: "idle" });
        return;
      }
      const status = (err as { status?: number }).status ?? 0;
      setState({
        phase: "error",
        message: errorText(err, t),
        retry: status === 0 || status >= 500 || status === 429,
      });
    } finally {
      handle.current = null;
    }
  }

  const uploading = state.phase === "uploading";
  const sizeMb = (MAX_SONG_BYTES / 1024 / 1024).toFixed(0);
  return (
    <form
      ref={form}
      onSubmit={submit}
      noValidate
      className="mt-6 rounded-3xl border border-line bg-panel/70 p-5 shadow-2xl shadow-black/30 sm:p-8"
      aria-busy={uploading}
    >
      <label
        htmlFor="song-file"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        className={`flex cursor-pointer flex-col items-center justify-center gap-3 rounded-2xl border-2 border-dashed px-4 py-8 text-center transition has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-focus ${
          over
            ? "border-neon bg-neon/10"
            : file
              ? "border-success/60 bg-success/5"
              : "border-white/20 bg-ink-900/40 hover:border-white/40"
        } ${uploading ? "pointer-events-none opacity-60" : ""}`}
        data-testid="dropzone"
      >
        <span className="grid size-14 place-items-center rounded-full bg-linear-to-br from-brand to-neon text-white shadow-[0_0_40px_-8px] shadow-brand">
          {file ? (
            <FileMusic aria-hidden className="size-7" />
          ) : (
            <UploadCloud aria-hidden className="size-7" />
          )}
        </span>
        {file ? (
          <span>
            <span className="block break-all font-semibold text-white" data-testid="chosen-file">
              {file.name}
            </span>
            <span className="text-sm text-ink-300">
              {t("songUpload.size", { size: (file.size / 1024 / 1024).toFixed(1) })} ·{" "}
              {t("songUpload.change")}
            </span>
          </span>
        ) : (
          <span>
            <span className="block font-semibold text-white">{t("songUpload.drop")}</span>
            <span className="text-sm text-ink-300" id="song-file-hint">
              {t("songUpload.hint", { size: sizeMb })}
            </span>
          </span>
        )}
        <input
          ref={input}
          id="song-file"
          type="file"
          name="file"
          accept={[...SONG_TYPES, ...SONG_EXTENSIONS].join(",")}
          aria-label={t("songUpload.choose")}
          aria-describedby="song-file-hint"
          aria-invalid={problem ? true : undefined}
          disabled={uploading}
          onChange={(e) => choose(e.target.files?.[0])}
          className="sr-only"
          data-testid="song-file"
        />
      </label>
      {problem && (
        <p role="alert" className="mt-2 flex items-center gap-1.5 text-sm font-medium text-danger">
          <CircleAlert aria-hidden className="size-4" />
          {t(problem, { size: sizeMb })}
        </p>
      )}

      <div className="mt-6 grid gap-4 sm:grid-cols-2">
        <Field
          label={t("songUpload.trackName")}
          name="trackName"
          maxLength={200}
          disabled={uploading}
          autoComplete="off"
        />
        <Field
          label={t("songUpload.artistName")}
          name="artistName"
          maxLength={200}
          disabled={uploading}
          autoComplete="off"
        />
        <Field
          label={t("songUpload.albumName")}
          name="albumName"
          maxLength={200}
          disabled={uploading}
          autoComplete="off"
        />
        <Field
          label={t("songUpload.genre")}
          name="genre"
          maxLength={50}
          disabled={uploading}
          autoComplete="off"
          list={listId}
          value={genre}
          onChange={(e) => setGenre(e.target.value)}
        />
        <datalist id={listId}>
          {genres.slice(0, 50).map((g) => (
            <option key={g} value={g} />
          ))}
        </datalist>
      </div>
      <label className="mt-5 flex cursor-pointer items-center gap-3">
        <input
          type="checkbox"
          name="isPublic"
          value="true"
          role="switch"
          disabled={uploading}
          className="peer sr-only"
          data-testid="is-public"
        />
        <span
          aria-hidden
          className="relative h-6 w-11 shrink-0 rounded-full bg-white/20 transition peer-checked:bg-brand peer-focus-visible:outline-3 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-focus after:absolute after:left-0.5 after:top-0.5 after:size-5 after:rounded-full after:bg-white after:transition peer-checked:after:translate-x-5"
        />
        <span>
          <span className="block font-medium text-ink-50">{t("songUpload.public")}</span>
          <span className="block text-sm text-ink-300">{t("songUpload.publicHint")}</span>
        </span>
      </label>

      <div aria-live="polite" className="mt-6 space-y-3 empty:hidden">
        {uploading && (
          <div>
            <div className="mb-1.5 flex justify-between text-sm font-medium text-ink-100">
              <span>
                {state.percent < 100 ? t("songUpload.uploading") : t("songUpload.processing")}
              </span>
              <span className="tabular-nums" data-testid="upload-percent">
                {state.percent}%
              </span>
            </div>
            <div
              role="progressbar"
              aria-label={t("songUpload.progress")}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={state.percent}
              className="h-2.5 overflow-hidden rounded-full bg-white/10"
            >
              <div
                className={`h-full rounded-full bg-linear-to-r from-brand to-neon transition-[width] duration-150 ${
                  state.percent >= 100 ? "animate-pulse" : ""
                }`}
                style={{ width: `${state.percent}%` }}
              />
            </div>
          </div>
        )}
        {state.phase === "error" && (
          <Alert error={{ status: 0, message: state.message, generic: false }} />
        )}
      </div>

      <div className="mt-6 flex flex-wrap gap-2">
        {uploading ? (
          <button
            type="button"
            onClick={() => handle.current?.abort()}
            className={button("secondary")}
          >
            <X aria-hidden className="size-4" />
            {t("common.cancel")}
          </button>
        ) : (
          <button type="submit" className={button("primary")} data-testid="upload-submit">
            {state.phase === "error" && state.retry ? (
              <RotateCcw aria-hidden className="size-4" />
            ) : (
              <UploadCloud aria-hidden className="size-4" />
            )}
            {state.phase === "error" && state.retry
              ? t("songUpload.retry")
              : t("songUpload.submit")}
          </button>
        )}
      </div>
    </form>
  );
}
