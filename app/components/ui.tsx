import { useNavigation } from "@remix-run/react";
import { AlertCircle, CheckCircle2, Loader2, RotateCcw } from "lucide-react";
import {
  useEffect,
  useId,
  type HTMLAttributes,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";
import { useT, type MessageKey } from "~/i18n";
import type { DisplayError } from "~/lib/errors";

/** Shared class lists, so every page's controls look and focus the same. */
const buttonBase = {
  primary:
    "inline-flex items-center justify-center gap-2 whitespace-nowrap rounded-full bg-brand font-semibold text-white shadow-[0_0_24px_-6px] shadow-brand transition hover:bg-brand-hover disabled:cursor-not-allowed disabled:opacity-70",
  secondary:
    "inline-flex items-center justify-center gap-2 whitespace-nowrap rounded-full border border-white/25 font-semibold text-ink-50 transition hover:border-white/50 hover:bg-white/10 disabled:cursor-not-allowed disabled:opacity-70",
  ghost:
    "inline-flex items-center justify-center gap-2 whitespace-nowrap rounded-full font-medium text-ink-100 transition hover:bg-white/10",
} as const;

/** Paddings (kept apart from the looks: two padding classes on one element fight). */
const buttonSize = {
  md: "px-5 py-2.5",
  sm: "px-4 py-2 text-sm",
  lg: "px-6 py-3",
  compact: "px-2.5 py-2 sm:px-3",
  nav: "px-3.5 py-2 sm:px-4",
} as const;

/** A button's classes: `button("primary", "sm")`. */
export const button = (
  variant: keyof typeof buttonBase,
  size: keyof typeof buttonSize = variant === "ghost" ? "compact" : "md",
) => `${buttonBase[variant]} ${buttonSize[size]}`;

export const buttonClass = {
  primary: button("primary"),
  secondary: button("secondary"),
  ghost: button("ghost"),
  link: "font-medium text-brand-light underline decoration-brand-light/40 underline-offset-4 hover:decoration-brand-light",
} as const;

const inputClass =
  "block w-full rounded-xl border border-line bg-ink-900/70 px-3.5 py-2.5 text-base text-ink-50 placeholder:text-ink-300 transition hover:border-white/30 focus:border-brand-light aria-[invalid=true]:border-danger";

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  name: string;
  hint?: string;
  /** A validation message key, or an already-translated string. */
  error?: string | null;
}

/** A labelled input with its hint and error tied to it for screen readers. */
export function Field({ label, name, hint, error, className = "", id, ...rest }: FieldProps) {
  const autoId = useId();
  const inputId = id ?? `${name}-${autoId}`;
  const hintId = hint ? `${inputId}-hint` : undefined;
  const errorId = error ? `${inputId}-error` : undefined;
  return (
    <div className={className}>
      <label htmlFor={inputId} className="mb-1.5 block text-sm font-medium text-ink-100">
        {label}
      </label>
      <input
        id={inputId}
        name={name}
        aria-invalid={error ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(" ") || undefined}
        className={inputClass}
        {...rest}
      />
      {hint && (
        <p id={hintId} className="mt-1.5 text-sm text-ink-300">
          {hint}
        </p>
      )}
      {error && <FieldError id={errorId!}>{error}</FieldError>}
    </div>
  );
}

interface TextAreaProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
  label: string;
  name: string;
  hint?: string;
  error?: string | null;
}

export function TextArea({ label, name, hint, error, className = "", ...rest }: TextAreaProps) {
  const autoId = useId();
  const inputId = `${name}-${autoId}`;
  const hintId = hint ? `${inputId}-hint` : undefined;
  const errorId = error ? `${inputId}-error` : undefined;
  return (
    <div className={className}>
      <label htmlFor={inputId} className="mb-1.5 block text-sm font-medium text-ink-100">
        {label}
      </label>
      <textarea
        id={inputId}
        name={name}
        aria-invalid={error ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(" ") || undefined}
        className={`${inputClass} min-h-28 resize-y`}
        {...rest}
      />
      {hint && (
        <p id={hintId} className="mt-1.5 text-sm text-ink-300">
          {hint}
        </p>
      )}
      {error && <FieldError id={errorId!}>{error}</FieldError>}
    </div>
  );
}

interface SelectProps extends SelectHTMLAttributes<HTMLSelectElement> {
  label: string;
  name: string;
  children: ReactNode;
}

export function Select({ label, name, className = "", children, ...rest }: SelectProps) {
  const autoId = useId();
  const inputId = `${name}-${autoId}`;
  return (
    <div className={className}>
      <label htmlFor={inputId} className="mb-1.5 block text-sm font-medium text-ink-100">
        {label}
      </label>
      <select id={inputId} name={name} className={`${inputClass} appearance-auto`} {...rest}>
        {children}
      </select>
    </div>
  );
}

function FieldError({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p id={id} className="mt-1.5 flex items-start gap-1.5 text-sm font-medium text-danger">
      <AlertCircle aria-hidden className="mt-0.5 size-4 shrink-0" />
      <span>{children}</span>
    </p>
  );
}

/** A form-level message: an API error (in the spec's words) or a success note. */
export function Alert({
  error,
  success,
  children,
}: {
  error?: DisplayError | null;
  success?: boolean;
  children?: ReactNode;
}) {
  const t = useT();
  if (error) {
    return (
      <div
        role="alert"
        tabIndex={-1}
        className="flex items-start gap-2.5 rounded-xl border border-danger/50 bg-danger/10 px-4 py-3 text-sm text-ink-50"
      >
        <AlertCircle aria-hidden className="mt-0.5 size-4 shrink-0 text-danger" />
        <p data-testid="form-error">{error.generic ? t("errors.generic") : error.message}</p>
      </div>
    );
  }
  if (!children) return null;
  return (
    <div
      role="status"
      className={`flex items-start gap-2.5 rounded-xl border px-4 py-3 text-sm text-ink-50 ${success ? "border-success/50 bg-success/10" : "border-line bg-white/5"}`}
    >
      {success && <CheckCircle2 aria-hidden className="mt-0.5 size-4 shrink-0 text-success" />}
      <div>{children}</div>
    </div>
  );
}

/**
 * Is a POST from this page in flight? With `intent`, only the submission whose `intent`
 * field has that value (pages with two buttons show two separate pending states).
 */
/** A failed load: what went wrong (the spec's words) and a way to try again. */
export function LoadError({
  error,
  onRetry,
  className = "",
}: {
  error: DisplayError;
  onRetry: () => void;
  className?: string;
}) {
  const t = useT();
  return (
    <div className={`space-y-3 ${className}`}>
      <Alert error={error} />
      <button type="button" onClick={onRetry} className={button("secondary", "sm")}>
        <RotateCcw aria-hidden className="size-4" />
        {t("errors.retry")}
      </button>
    </div>
  );
}

export function usePending(intent?: string): boolean {
  const nav = useNavigation();
  if (nav.state === "idle" || nav.formMethod?.toUpperCase() !== "POST") return false;
  return intent === undefined || nav.formData?.get("intent") === intent;
}

interface SubmitProps {
  label: MessageKey;
  pendingLabel: MessageKey;
  intent?: string;
  variant?: keyof typeof buttonClass;
  className?: string;
  /** Form to submit, for a button outside its form. */
  form?: string;
}

/** A submit button that shows a spinner and "…ing" text while its form is submitting. */
export function SubmitButton({
  label,
  pendingLabel,
  intent,
  variant = "primary",
  className = "",
  form,
}: SubmitProps) {
  const t = useT();
  const pending = usePending(intent);
  return (
    <button
      type="submit"
      name={intent ? "intent" : undefined}
      value={intent}
      form={form}
      aria-disabled={pending || undefined}
      onClick={(e) => pending && e.preventDefault()}
      className={`${buttonClass[variant]} ${pending ? "cursor-progress opacity-80" : ""} ${className}`}
    >
      {pending && <Loader2 aria-hidden className="size-4 animate-spin" />}
      <span>{t(pending ? pendingLabel : label)}</span>
    </button>
  );
}

/** The panel most forms sit in. */
export function Card({ children, className = "" }: { children: ReactNode; className?: string }) {
  return (
    <div
      className={`rounded-3xl border border-line bg-panel/80 p-6 shadow-2xl shadow-black/40 backdrop-blur sm:p-8 ${className}`}
    >
      {children}
    </div>
  );
}

/** The page title's sizes: a page's (default), a card's (the auth pages), or one that stays put. */
const PAGE_TITLE = {
  page: "text-3xl font-extrabold tracking-tight text-white sm:text-4xl",
  card: "text-2xl font-bold tracking-tight text-white sm:text-3xl",
  fixed: "text-3xl font-extrabold tracking-tight text-white",
} as const;

/** The page's <h1>, the same on every page; `className` adds spacing or layout before it. */
export function PageTitle({
  size = "page",
  className,
  children,
  ...rest
}: { size?: keyof typeof PAGE_TITLE } & HTMLAttributes<HTMLHeadingElement>) {
  return (
    <h1 className={className ? `${className} ${PAGE_TITLE[size]}` : PAGE_TITLE[size]} {...rest}>
      {children}
    </h1>
  );
}

/** A narrow centred column with a card: the auth pages. */
export function AuthLayout({
  title,
  lede,
  children,
}: {
  title: string;
  lede?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="mx-auto w-full max-w-md px-4 py-10 sm:py-16">
      <Card>
        <PageTitle size="card">{title}</PageTitle>
        {lede && <p className="mt-2 text-ink-200">{lede}</p>}
        <div className="mt-6">{children}</div>
      </Card>
    </div>
  );
}

/**
 * After a failed submit, move focus to the first invalid field (or the form's error) so
 * keyboard and screen-reader users land on what needs fixing.
 */
export function useFocusFirstError(result: unknown) {
  useEffect(() => {
    if (!result) return;
    const el = document.querySelector<HTMLElement>(
      '#main [aria-invalid="true"], #main [role="alert"]',
    );
    el?.focus();
  }, [result]);
}

/** A round icon-only button; the label is read out and shown as a tooltip. */
export function IconButton({
  label,
  onClick,
  children,
  danger,
  testId,
  disabled,
}: {
  label: string;
  onClick: () => void;
  children: ReactNode;
  danger?: boolean;
  testId?: string;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      onClick={onClick}
      aria-label={label}
      title={label}
      disabled={disabled}
      data-testid={testId}
      className={`grid size-9 shrink-0 place-items-center rounded-full text-ink-200 transition hover:bg-white/10 disabled:cursor-not-allowed disabled:opacity-40 ${
        danger ? "hover:text-danger" : "hover:text-white"
      }`}
    >
      {children}
    </button>
  );
}
