import { AlertTriangle } from "lucide-react";
import { useModalDialog } from "~/hooks/useModalDialog";
import { useId, type ReactNode } from "react";
import { useT } from "~/i18n";
import { button } from "~/components/ui";

interface ConfirmProps {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  /** Red confirm button (deleting, clearing). */
  danger?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

/**
 * A modal confirmation on the native <dialog> (showModal): the browser traps focus, Escape
 * closes it, and focus returns to the button that opened it.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  danger,
  onConfirm,
  onClose,
}: ConfirmProps) {
  const t = useT();
  const ref = useModalDialog(open);
  const titleId = useId();
  const bodyId = useId();
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={children ? bodyId : undefined}
      onClose={onClose}
      onCancel={onClose}
      onClick={(e) => e.target === ref.current && onClose()}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-3xl border border-line bg-panel p-0 text-ink-50 shadow-2xl shadow-black/60 backdrop:bg-ink-950/70 backdrop:backdrop-blur-sm"
    >
      <div className="p-6">
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
            {children && (
              <div id={bodyId} className="mt-1.5 text-sm text-ink-200">
                {children}
              </div>
            )}
          </div>
        </div>
        <div className="mt-6 flex flex-wrap justify-end gap-2">
          <button type="button" autoFocus onClick={onClose} className={button("secondary", "sm")}>
            {t("common.cancel")}
          </button>
          <button
            type="button"
            onClick={() => {
              onConfirm();
              onClose();
            }}
            className={
              danger
                ? "inline-flex items-center justify-center gap-2 rounded-full bg-danger px-4 py-2 text-sm font-semibold text-ink-950 transition hover:brightness-110"
                : button("primary", "sm")
            }
            data-testid="confirm"
          >
            {confirmLabel}
          </button>
        </div>
      </div>
    </dialog>
  );
}
