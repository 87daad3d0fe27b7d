import { useRevalidator } from "@remix-run/react";
import { CheckCircle2, ImageUp, RotateCcw } from "lucide-react";
import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from "react";
import { useT, type MessageKey } from "~/i18n";
import { displayError, type DisplayError } from "~/lib/errors";
import { Avatar } from "~/components/Avatar";
import { Cover } from "~/components/profile/ProfileView";
import { Alert, button } from "~/components/ui";

/** What the API takes (and what we check first, to fail fast). */
export const IMAGE_TYPES = ["image/jpeg", "image/png", "image/webp", "image/gif"];
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const UPLOAD_PATH = "/api/user-service/users/images";

export type ImageKind = "profilePicture" | "coverPicture";

/** Why a file can't be uploaded, as a message key and values; null when it can. */
export function checkImage(
  file: { type: string; size: number } | null | undefined,
): { key: MessageKey; vars?: Record<string, string> } | null {
  if (!file || file.size === 0) return { key: "upload.noFile" };
  if (!IMAGE_TYPES.includes(file.type)) return { key: "upload.badType" };
  if (file.size > MAX_IMAGE_BYTES)
    return { key: "upload.tooBig", vars: { size: (file.size / 1024 / 1024).toFixed(1) } };
  return null;
}

type State =
  | { phase: "idle" }
  | { phase: "uploading"; percent: number }
  | { phase: "done" }
  | { phase: "error"; error: DisplayError; retry: boolean };

interface Props {
  kind: ImageKind;
  current?: string | null;
  nickname: string;
  color?: string | null;
  /** A result from the no-JavaScript path (the page's action), if this kind was just posted. */
  serverResult?: { ok?: boolean; error?: DisplayError; message?: MessageKey };
}

/**
 * Picks, checks and uploads a picture. With JavaScript: straight to the API with
 * XMLHttpRequest (so there is a progress bar with a percentage), then the page's data is
 * reloaded so the header avatar changes too. Without: a plain multipart form the page's
 * action forwards.
 */
export function ImageUpload({ kind, current, nickname, color, serverResult }: Props) {
  const t = useT();
  const revalidator = useRevalidator();
  const [hydrated, setHydrated] = useState(false);
  const [state, setState] = useState<State>({ phase: "idle" });
  const [preview, setPreview] = useState<string | null | undefined>(current);
  const lastFile = useRef<File | null>(null);
  const xhr = useRef<XMLHttpRequest | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => setHydrated(true), []);
  useEffect(() => setPreview(current), [current]);
  useEffect(() => () => xhr.current?.abort(), []);

  const label = t(kind === "profilePicture" ? "upload.profilePicture" : "upload.coverPicture");

  function start(file: File) {
    const problem = checkImage(file);
    if (problem) {
      setState({
        phase: "error",
        error: { status: 400, message: t(problem.key, problem.vars), generic: false },
        retry: false,
      });
      return;
    }
    lastFile.current = file;
    const body = new FormData();
    body.append("kind", kind);
    body.append("file", file, file.name);
    const req = new XMLHttpRequest();
    xhr.current = req;
    req.open("POST", UPLOAD_PATH);
    req.setRequestHeader("Accept", "application/json");
    req.upload.onprogress = (e) => {
      if (e.lengthComputable)
        setState({
          phase: "uploading",
          percent: Math.min(100, Math.round((e.loaded / e.total) * 100)),
        });
    };
    req.onload = () => {
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(req.responseText);
      } catch {
        /* not JSON: handled as a failure below */
      }
      if (
        req.status >= 200 &&
        req.status < 300 &&
        parsed &&
        typeof (parsed as { url?: unknown }).url === "string"
      ) {
        setPreview((parsed as { url: string }).url);
        setState({ phase: "done" });
        if (input.current) input.current.value = "";
        revalidator.revalidate();
      } else {
        setState({
          phase: "error",
          error: displayError(req.status >= 200 && req.status < 300 ? 502 : req.status, parsed),
          retry: req.status >= 500 || req.status === 429,
        });
      }
    };
    req.onerror = () =>
      setState({
        phase: "error",
        error: { status: 0, message: t("upload.network"), generic: false },
        retry: true,
      });
    setState({ phase: "uploading", percent: 0 });
    req.send(body);
  }

  function onChange(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    if (hydrated && file) start(file);
  }

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    if (!hydrated) return;
    e.preventDefault();
    const file = input.current?.files?.[0];
    if (file) start(file);
    else
      setState({
        phase: "error",
        error: { status: 400, message: t("upload.noFile"), generic: false },
        retry: false,
      });
  }

  const uploading = state.phase === "uploading";
  const fromServer = state.phase === "idle" ? serverResult : undefined;
  const inputId = `upload-${kind}`;

  return (
    <form
      method="post"
      encType="multipart/form-data"
      onSubmit={onSubmit}
      className="rounded-2xl border border-line bg-ink-900/50 p-4"
      aria-busy={uploading}
    >
      <input type="hidden" name="intent" value="upload" />
      <input type="hidden" name="kind" value={kind} />
      <h3 className="font-semibold text-white">{label}</h3>
      <div className="mt-3">
        {kind === "profilePicture" ? (
          <Avatar name={nickname} src={preview} color={color} size={96} alt={label} />
        ) : (
          <Cover src={preview} color={color} alt={label} className="h-24" />
        )}
      </div>
      <p className="mt-3 text-sm text-ink-300" id={`${inputId}-hint`}>
        {t("upload.hint")}
      </p>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <label
          htmlFor={inputId}
          className={`${button("secondary", "sm")} cursor-pointer focus-within:outline-3 focus-within:outline-offset-2 focus-within:outline-focus ${uploading ? "pointer-events-none opacity-60" : ""}`}
        >
          <ImageUp aria-hidden className="size-4" />
          {t("upload.choose")}
          <input
            ref={input}
            id={inputId}
            type="file"
            name="file"
            accept={IMAGE_TYPES.join(",")}
            aria-label={t("upload.chooseFor", { kind: label.toLowerCase() })}
            aria-describedby={`${inputId}-hint`}
            disabled={uploading}
            onChange={onChange}
            className="sr-only"
          />
        </label>
        {!hydrated && (
          <button type="submit" className={button("primary", "sm")}>
            {t("upload.submit")}
          </button>
        )}
      </div>

      <div aria-live="polite" className="mt-3 space-y-3 empty:hidden">
        {uploading && (
          <div>
            <div className="mb-1 flex justify-between text-sm text-ink-100">
              <span>{t("upload.uploading", { percent: state.percent })}</span>
            </div>
            <div
              role="progressbar"
              aria-label={t("upload.progress")}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={state.percent}
              className="h-2.5 overflow-hidden rounded-full bg-white/10"
            >
              <div
                className="h-full rounded-full bg-linear-to-r from-brand to-neon transition-[width] duration-150"
                style={{ width: `${state.percent}%` }}
              />
            </div>
          </div>
        )}
        {(state.phase === "done" || fromServer?.ok) && (
          <p className="flex items-center gap-1.5 text-sm font-medium text-success">
            <CheckCircle2 aria-hidden className="size-4" />
            {t("upload.done")}
          </p>
        )}
        {state.phase === "error" && (
          <>
            <Alert error={state.error} />
            {state.retry && lastFile.current && (
              <button
                type="button"
                onClick={() => lastFile.current && start(lastFile.current)}
                className={button("secondary", "sm")}
              >
                <RotateCcw aria-hidden className="size-4" />
                {t("upload.retry")}
              </button>
            )}
          </>
        )}
        {fromServer?.error && <Alert error={fromServer.error} />}
        {fromServer?.message && (
          <Alert error={{ status: 400, message: t(fromServer.message), generic: false }} />
        )}
      </div>
    </form>
  );
}
