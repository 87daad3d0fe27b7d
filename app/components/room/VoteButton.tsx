import { Star, ThumbsDown, ThumbsUp } from "lucide-react";

/** One of the now-playing vote buttons (like, dislike, star) with its count. */
export function VoteButton({
  label,
  count,
  pressed,
  onClick,
  kind,
  disabled,
  accent,
}: {
  label: string;
  count: number;
  pressed: boolean;
  onClick: () => void;
  kind: "like" | "dislike" | "star";
  disabled?: boolean;
  accent: string;
}) {
  const Icon = kind === "like" ? ThumbsUp : kind === "dislike" ? ThumbsDown : Star;
  return (
    <button
      type="button"
      onClick={onClick}
      aria-pressed={pressed}
      aria-label={label}
      title={label}
      disabled={disabled}
      data-testid={`vote-${kind}`}
      className="group flex min-w-20 flex-1 flex-col items-center gap-1 rounded-2xl border border-white/15 bg-black/35 px-3 py-3 text-white transition hover:border-white/40 hover:bg-black/50 disabled:cursor-not-allowed disabled:opacity-50 aria-pressed:border-transparent sm:min-w-24"
      style={pressed ? { background: accent, color: "#0b0a12" } : undefined}
    >
      <Icon
        aria-hidden
        className="size-7"
        fill={pressed && kind === "star" ? "currentColor" : "none"}
      />
      <span className="text-lg font-bold tabular-nums" data-testid={`vote-${kind}-count`}>
        {count}
      </span>
    </button>
  );
}
