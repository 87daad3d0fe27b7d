import { AlertTriangle } from "lucide-react";
import { useModalDialog } from "~/hooks/useModalDialog";
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { button } from "~/components/ui";
import { useT } from "~/i18n";

/**
 * A moderation action's confirmation (issue 15): says what will happen, asks for a reason
 * (required where the person is told it) and any other input, and stays open until the
 * server answered so a failure can be fixed and sent again. Native <dialog> (showModal): the
 * browser traps focus, Escape closes it.
 */
export function ActionDialog({
  open,
  title,
  body,
  confirmLabel,
  reason,
  danger,
  children,
  onSubmit,
  onClose,
}: {
  open: boolean;
  title: string;
  body: string;
  confirmLabel: string;
  /** "required": the person sees it; "optional": kept as a moderator note. */
  reason: "required" | "optional";
  danger?: boolean;
  children?: ReactNode;
  /** Resolves true when done (the dialog closes), false to stay open. */
  onSubmit: (reason: string, form: FormData) => Promise<boolean>;
  onClose: () => void;
}) {
  const t = useT();
  const ref = useModalDialog(open);
  const titleId = useId();
  const bodyId = useId();
  const reasonId = useId();
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (busy) return;
    const form = new FormData(e.currentTarget);
    setBusy(true);
    try {
      if (await onSubmit(String(form.get("reason") ?? "").trim(), form)) onClose();
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onClose={onClose}
      onCancel={onClose}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-3xl border border-line bg-panel p-0 text-ink-50 shadow-2xl shadow-black/60 backdrop:bg-ink-950/70 backdrop:backdrop-blur-sm"
      data-testid="action-dialog"
    >
      {open && (
        <form onSubmit={submit} className="p-6">
          <div className="flex items-start gap-3">
            {danger && (
              <span className="grid size-10 shrink-0 place-items-center rounded-full bg-danger/15 text-danger">
                <AlertTriangle aria-hidden className="size-5" />
              </span>
            )}
            <div className="min-w-0">
              <h2 id={titleId} className="text-lg font-bold text-white">
                {title}
              </h2>
              <p id={bodyId} className="mt-1.5 text-sm text-ink-200">
                {body}
              </p>
            </div>
          </div>
          <div className="mt-5 grid gap-4">
            {children}
            <div>
              <label htmlFor={reasonId} className="mb-1.5 block text-sm font-semibold text-ink-50">
                {reason === "required" ? t("mod.reasonRequired") : t("mod.reasonOptional")}
              </label>
              <textarea
                id={reasonId}
                name="reason"
                required={reason === "required"}
                maxLength={500}
                rows={3}
                className="block w-full rounded-xl border border-line bg-ink-900/70 px-3.5 py-2.5 text-base text-ink-50 placeholder:text-ink-300 focus:border-brand-light"
                data-testid="action-reason"
              />
            </div>
          </div>
          <div className="mt-6 flex flex-wrap justify-end gap-2">
            <button type="button" onClick={onClose} className={button("secondary", "sm")}>
              {t("common.cancel")}
            </button>
            <button
              type="submit"
              disabled={busy}
              aria-busy={busy}
              className={
                danger
                  ? "inline-flex items-center justify-center gap-2 rounded-full bg-danger px-4 py-2 text-sm font-semibold text-ink-950 transition hover:brightness-110 disabled:opacity-60"
                  : `${button("primary", "sm")} disabled:opacity-60`
              }
              data-testid="action-confirm"
            >
              {confirmLabel}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
