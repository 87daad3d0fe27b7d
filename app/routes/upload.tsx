import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Await, useLoaderData, useRevalidator } from "@remix-run/react";
import {
  CheckCircle2,
  CircleAlert,
  Clock,
  FileMusic,
  Loader2,
  RotateCcw,
  UploadCloud,
  X,
} from "lucide-react";
import {
  Suspense,
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
  type DragEvent,
  type FormEvent,
} from "react";
import { AddToCrateMenu, AddToQueueButton, PlayButton } from "~/components/SongActions";
import { EmptyState, SongRow, SongRowSkeleton, Tag } from "~/components/SongRow";
import { useToast } from "~/components/Toaster";
import { Alert, Field, button, LoadError } from "~/components/ui";
import { pageMeta, useT, type MessageKey } from "~/i18n";
import { uploadSong, type UploadHandle } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { useSongsClient } from "~/hooks/useSongsClient";
import { requireUser } from "~/lib/session.server";
import {
  MAX_SONG_BYTES,
  PENDING_STATUSES,
  SONG_EXTENSIONS,
  SONG_TYPES,
  checkSongFile,
  type ListPage,
  type SongStatus,
  type UploadDto,
} from "~/lib/songs";
import { loaded, uploadApi } from "~/lib/songs.server";
import { useGenres } from "~/hooks/useGenres";
import { useRootData } from "~/hooks/useRootData";

export const meta = pageMeta("songUpload.title");

/** Polling while a song's status is still moving (PENDING_UPLOAD, VALID_FILE_TYPE, VERIFICATION_POSTPONED). */
const POLL_MS = 5000;

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  // Streamed: the form paints at once; "My uploads" follows.
  return {
    uploads: uploadApi<ListPage<UploadDto>>(args, "/songs?limit=50&offset=0", { token }).then(
      loaded,
    ),
  };
}

const STATUS_TONE: Record<SongStatus, "neutral" | "brand" | "success" | "warning" | "danger"> = {
  PENDING_UPLOAD: "neutral",
  VALID_FILE_TYPE: "brand",
  MISSING_METADATA: "warning",
  VERIFIED: "success",
  UNVERIFIED: "danger",
  VERIFICATION_ERROR: "danger",
  VERIFICATION_POSTPONED: "warning",
};
const isPending = (s: UploadDto) => PENDING_STATUSES.includes(s.status);

export default function UploadPage() {
  const t = useT();
  const { uploads } = useLoaderData<typeof loader>();
  const revalidator = useRevalidator();
  const client = useSongsClient();
  // Songs seen on this page, newest version by id; `added` lists this visit's uploads, newest first.
  const [songs, setSongs] = useState<Record<string, UploadDto>>({});
  const [added, setAdded] = useState<string[]>([]);
  const [current, setCurrent] = useState<string | null>(null);

  const upsert = useCallback((s: UploadDto) => setSongs((m) => ({ ...m, [s.songId]: s })), []);
  const track = useCallback(
    (list: UploadDto[]) =>
      setSongs((m) => ({ ...Object.fromEntries(list.map((s) => [s.songId, s])), ...m })),
    [],
  );

  // One poller for every song still being checked: every 5 s until its status changes.
  const pendingIds = Object.values(songs)
    .filter(isPending)
    .map((s) => s.songId)
    .sort()
    .join(",");
  useEffect(() => {
    if (!pendingIds) return;
    const timer = setInterval(() => {
      for (const id of pendingIds.split(",")) client.song(id).then(upsert, () => {});
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [pendingIds, client, upsert]);

  const currentSong = current ? songs[current] : null;

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      <h1 className="text-3xl font-extrabold tracking-tight text-white sm:text-4xl">
        {t("songUpload.heading")}
      </h1>
      <p className="mt-2 text-ink-200">{t("songUpload.lede")}</p>

      {currentSong ? (
        <UploadStatus song={currentSong} onChange={upsert} onAnother={() => setCurrent(null)} />
      ) : (
        <UploadForm
          onUploaded={(s) => {
            upsert(s);
            setAdded((a) => [s.songId, ...a.filter((x) => x !== s.songId)]);
            setCurrent(s.songId);
          }}
        />
      )}

      <section aria-labelledby="my-uploads" className="mt-12">
        <h2 id="my-uploads" className="text-xl font-bold text-white">
          {t("songUpload.mine")}
        </h2>
        <div className="mt-4">
          <Suspense fallback={<SongRowSkeleton rows={4} />}>
            <Await resolve={uploads}>
              {(res) =>
                res.ok ? (
                  <MyUploads
                    initial={res.data.data}
                    songs={songs}
                    added={added}
                    track={track}
                    onChange={upsert}
                  />
                ) : (
                  <LoadError error={res} onRetry={() => revalidator.revalidate()} />
                )
              }
            </Await>
          </Suspense>
        </div>
      </section>
    </div>
  );
}

type Phase =
  | { phase: "idle" }
  | { phase: "uploading"; percent: number }
  | { phase: "error"; message: string; retry: boolean };

/** Pick or drop an MP3, add the details, upload with a progress bar. */
function UploadForm({ onUploaded }: { onUploaded: (s: UploadDto) => void }) {
  const t = useT();
  const token = useRootData()?.token ?? null;
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
    const h = uploadSong(token, body, (percent) => setState({ phase: "uploading", percent }));
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

/** The song just uploaded: its status in words, and what to do next. */
function UploadStatus({
  song,
  onChange,
  onAnother,
}: {
  song: UploadDto;
  onChange: (s: UploadDto) => void;
  onAnother: () => void;
}) {
  const t = useT();
  const pending = isPending(song);
  const ok = song.status === "VERIFIED";
  const failed = song.status === "UNVERIFIED" || song.status === "VERIFICATION_ERROR";
  const Icon = ok ? CheckCircle2 : failed ? CircleAlert : pending ? Clock : FileMusic;
  return (
    <div
      className="mt-6 rounded-3xl border border-line bg-panel/70 p-5 shadow-2xl shadow-black/30 sm:p-8"
      data-testid="upload-status"
      data-status={song.status}
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
            {t(`songStatus.${song.status}` as MessageKey)}
          </p>
          <p className="text-sm text-ink-200">
            {t(`songStatus.${song.status}.body` as MessageKey)}
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

/** MISSING_METADATA: the track and artist, sent with POST /metadata. */
function MetadataForm({ song, onSaved }: { song: UploadDto; onSaved: (s: UploadDto) => void }) {
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

function MyUploads({
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

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
