import type { LucideIcon } from "lucide-react";

const itemClass =
  "flex w-full items-center gap-2 rounded-lg px-3 py-2 text-left text-sm font-medium text-ink-50 hover:bg-white/10 focus:bg-white/15 focus:outline-none disabled:opacity-60";

/** One action of a room user's moderation menu: an icon and its label; `danger` reads red. */
export function MenuItem({
  icon: Icon,
  label,
  onClick,
  testId,
  disabled,
  danger,
}: {
  icon: LucideIcon;
  label: string;
  onClick: () => void;
  testId: string;
  disabled?: boolean;
  danger?: boolean;
}) {
  return (
    <button
      type="button"
      role="menuitem"
      disabled={disabled}
      className={danger ? `${itemClass} text-red-300` : itemClass}
      onClick={onClick}
      data-testid={testId}
    >
      <Icon aria-hidden className="size-4" />
      {label}
    </button>
  );
}
