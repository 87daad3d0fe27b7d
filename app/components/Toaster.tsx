import { AlertCircle, CheckCircle2, Info, X } from "lucide-react";
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from "react";
import { useT } from "~/i18n";

type Kind = "success" | "error" | "info";
interface Toast {
  id: number;
  kind: Kind;
  message: string;
  action?: { label: string; onClick: () => void };
}

interface ToastApi {
  success: (message: string) => void;
  info: (message: string) => void;
  /** A failure; with `retry`, the toast offers a "Try again" button. */
  error: (message: string, retry?: () => void) => void;
}

const ToastContext = createContext<ToastApi | null>(null);

/** Toasts: short notes above the player, read out politely (errors assertively). */
export function ToastProvider({ children }: { children: ReactNode }) {
  const t = useT();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((ts) => ts.filter((x) => x.id !== id)), []);
  const push = useCallback((kind: Kind, message: string, action?: Toast["action"]) => {
    const id = next.current++;
    // At most four on screen: the oldest goes first.
    setToasts((ts) => [...ts.slice(-3), { id, kind, message, action }]);
  }, []);
  const api = useMemo<ToastApi>(
    () => ({
      success: (m) => push("success", m),
      info: (m) => push("info", m),
      error: (m, retry) =>
        push("error", m, retry ? { label: t("errors.retry"), onClick: retry } : undefined),
    }),
    [push, t],
  );
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div
        className="pointer-events-none fixed inset-x-0 bottom-24 z-50 flex flex-col items-center gap-2 px-3 sm:bottom-28 sm:items-end sm:px-6"
        data-testid="toasts"
      >
        {/* Two live regions, present from the first paint so screen readers announce additions. */}
        <div
          role="status"
          aria-live="polite"
          className="flex w-full flex-col items-center gap-2 sm:items-end"
        >
          {toasts
            .filter((x) => x.kind !== "error")
            .map((x) => (
              <ToastView key={x.id} toast={x} onDismiss={dismiss} />
            ))}
        </div>
        <div
          role="alert"
          aria-live="assertive"
          className="flex w-full flex-col items-center gap-2 sm:items-end"
        >
          {toasts
            .filter((x) => x.kind === "error")
            .map((x) => (
              <ToastView key={x.id} toast={x} onDismiss={dismiss} />
            ))}
        </div>
      </div>
    </ToastContext.Provider>
  );
}

function ToastView({ toast, onDismiss }: { toast: Toast; onDismiss: (id: number) => void }) {
  const t = useT();
  const [hover, setHover] = useState(false);
  const onClose = () => onDismiss(toast.id);
  useEffect(() => {
    if (hover) return;
    const id = setTimeout(() => onDismiss(toast.id), toast.kind === "error" ? 8000 : 5000);
    return () => clearTimeout(id);
  }, [hover, onDismiss, toast.id, toast.kind]);
  const Icon =
    toast.kind === "error" ? AlertCircle : toast.kind === "success" ? CheckCircle2 : Info;
  const tone =
    toast.kind === "error"
      ? "border-danger/60 text-danger"
      : toast.kind === "success"
        ? "border-success/50 text-success"
        : "border-line text-brand-light";
  return (
    <div
      className={`pointer-events-auto flex w-full max-w-sm items-start gap-3 rounded-2xl border bg-panel/95 px-4 py-3 shadow-2xl shadow-black/60 backdrop-blur ${tone}`}
      onMouseEnter={() => setHover(true)}
      onMouseLeave={() => setHover(false)}
      onFocus={() => setHover(true)}
      onBlur={() => setHover(false)}
      data-testid={`toast-${toast.kind}`}
    >
      <Icon aria-hidden className="mt-0.5 size-5 shrink-0" />
      <p className="min-w-0 flex-1 text-sm font-medium text-ink-50">{toast.message}</p>
      {toast.action && (
        <button
          type="button"
          onClick={() => {
            toast.action!.onClick();
            onClose();
          }}
          className="shrink-0 rounded-full px-2 py-0.5 text-sm font-semibold text-brand-light underline underline-offset-4 hover:text-white"
        >
          {toast.action.label}
        </button>
      )}
      <button
        type="button"
        onClick={onClose}
        aria-label={t("common.dismiss")}
        className="-mr-1 shrink-0 rounded-full p-1 text-ink-300 hover:bg-white/10 hover:text-white"
      >
        <X aria-hidden className="size-4" />
      </button>
    </div>
  );
}

/** `const toast = useToast(); toast.success("Added")`. Outside the provider it is a no-op. */
export function useToast(): ToastApi {
  return useContext(ToastContext) ?? NOOP;
}
const NOOP: ToastApi = { success: () => {}, info: () => {}, error: () => {} };
