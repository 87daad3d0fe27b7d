import { Armchair, Flame, Heart, Star, ThumbsDown, ThumbsUp } from "lucide-react";
import type { ReactNode } from "react";
import { useT } from "~/i18n";
import type { RoomProfile } from "~/lib/rooms";
import { Avatar } from "../Avatar";
import { AvatarArt } from "~/components/avatars/AvatarArt";

/** Seat, avatar and vote pieces shared by the room page (app/routes/rooms.$slug.tsx). */

export function UserAvatar({
  profile,
  fallbackName,
  size = 40,
  alt = "",
}: {
  profile?: RoomProfile | null;
  fallbackName: string;
  size?: number;
  alt?: string;
}) {
  // The avatar a user wears is how they show up in rooms; without one, their picture or initial.
  if (profile?.avatarId) return <AvatarArt slug={profile.avatarId} size={size} alt={alt} />;
  return (
    <Avatar
      name={profile?.nickname ?? fallbackName}
      src={profile?.profilePicture ?? null}
      color={profile?.color ?? null}
      size={size}
      alt={alt}
    />
  );
}

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

/** The vibe meter: -1 (the floor hates it) to 1 (the floor loves it). */
export function VibeMeter({ value, accent }: { value: number; accent: string }) {
  const t = useT();
  const v = Math.max(-1, Math.min(1, Number.isFinite(value) ? value : 0));
  const pct = Math.round(((v + 1) / 2) * 100);
  return (
    <div>
      <div className="mb-1.5 flex items-center justify-between text-sm text-ink-100">
        <span className="inline-flex items-center gap-1.5 font-semibold">
          <Flame aria-hidden className="size-4" style={{ color: accent }} />
          {t("room.vibe")}
        </span>
        <span className="tabular-nums">
          {t(v > 0.25 ? "room.vibeHot" : v < -0.25 ? "room.vibeCold" : "room.vibeMild")}
        </span>
      </div>
      <div
        role="meter"
        aria-label={t("room.vibe")}
        aria-valuemin={-100}
        aria-valuemax={100}
        aria-valuenow={Math.round(v * 100)}
        className="relative h-2.5 overflow-hidden rounded-full bg-white/15"
      >
        <div
          className="absolute inset-y-0 left-0 rounded-full transition-[width] duration-500"
          style={{ width: `${pct}%`, background: `linear-gradient(90deg, #3ee0ff, ${accent})` }}
        />
        <div aria-hidden className="absolute inset-y-0 left-1/2 w-px bg-white/60" />
      </div>
    </div>
  );
}

export function Seat({
  children,
  lit,
  accent,
  testId,
}: {
  children: ReactNode;
  lit?: boolean;
  accent: string;
  testId?: string;
}) {
  return (
    <li
      data-testid={testId}
      data-lit={lit ? "true" : undefined}
      className="relative flex h-36 has-[[role=menu]]:z-30 min-w-0 flex-col items-center justify-center gap-2 rounded-2xl border border-white/15 bg-black/35 p-2 text-center backdrop-blur-sm"
      style={lit ? { borderColor: accent, boxShadow: `0 0 22px -4px ${accent}` } : undefined}
    >
      {children}
    </li>
  );
}

export const SeatIcon = Armchair;
export const HeartIcon = Heart;
