import type { ReactNode } from "react";
import { useT } from "~/i18n";
import { formatDuration, type AnySong } from "~/lib/songs";
import { Artwork } from "~/components/songs/Artwork";
import { usePlayer } from "~/components/songs/Player";

interface Props {
  song: AnySong;
  /** Before the artwork: a drag handle, a position number. */
  leading?: ReactNode;
  /** After the duration: the row's buttons. */
  actions?: ReactNode;
  /** A small tag under the title (the provider a search hit came from, a status). */
  tag?: ReactNode;
  className?: string;
}

/** One song on a line: artwork, track, artist, album, explicit badge, duration, then buttons. */
export function SongRow({ song, leading, actions, tag, className = "" }: Props) {
  const t = useT();
  const player = usePlayer();
  const current = player.isCurrent(song);
  const album = song.albumName;
  return (
    <div
      className={`group flex min-w-0 items-center gap-2.5 rounded-2xl px-2 py-2 transition sm:gap-3.5 sm:px-3 ${
        current ? "bg-brand/15 ring-1 ring-brand/40" : "hover:bg-white/[0.04]"
      } ${className}`}
    >
      {leading}
      <Artwork song={song} size={48} />
      <div className="min-w-0 flex-1">
        <p className="flex min-w-0 items-center gap-1.5">
          <span
            className={`truncate font-semibold ${current ? "text-neon" : "text-white"}`}
            data-testid="song-track"
          >
            {song.trackName || t("song.untitled")}
          </span>
          {song.explicit && <ExplicitBadge />}
        </p>
        <p className="truncate text-sm text-ink-300">
          <span data-testid="song-artist">{song.artistName || t("song.unknownArtist")}</span>
          {album && <span className="max-sm:hidden"> · {album}</span>}
          <span className="sm:hidden"> · {formatDuration(song.duration)}</span>
        </p>
        {tag && <div className="mt-1 flex flex-wrap gap-1.5">{tag}</div>}
      </div>
      <span className="w-12 shrink-0 text-right text-sm tabular-nums text-ink-300 max-sm:hidden">
        <span className="sr-only">{t("song.duration")} </span>
        {formatDuration(song.duration)}
      </span>
      {actions && <div className="flex shrink-0 items-center gap-1.5">{actions}</div>}
    </div>
  );
}

export function ExplicitBadge() {
  const t = useT();
  return (
    <span
      title={t("song.explicit")}
      className="inline-grid h-4 shrink-0 place-items-center rounded-[4px] bg-ink-200 px-1 text-[10px] font-extrabold leading-none text-ink-950"
    >
      <span aria-hidden>E</span>
      <span className="sr-only">{t("song.explicit")}</span>
    </span>
  );
}

/** A small pill: provider names, statuses. */
export function Tag({
  children,
  tone = "neutral",
}: {
  children: ReactNode;
  tone?: "neutral" | "brand" | "success" | "warning" | "danger";
}) {
  const tones = {
    neutral: "border-white/15 bg-white/5 text-ink-200",
    brand: "border-brand-light/40 bg-brand/20 text-ink-50",
    success: "border-success/40 bg-success/10 text-success",
    warning: "border-[#ffb020]/40 bg-[#ffb020]/10 text-[#ffc85a]",
    danger: "border-danger/40 bg-danger/10 text-danger",
  } as const;
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium ${tones[tone]}`}
    >
      {children}
    </span>
  );
}

/** Placeholder rows while songs load. */
export function SongRowSkeleton({ rows = 6 }: { rows?: number }) {
  const t = useT();
  return (
    <div role="status" aria-live="polite" data-testid="skeleton">
      <span className="sr-only">{t("common.loading")}</span>
      <ul aria-hidden className="space-y-1">
        {Array.from({ length: rows }, (_, i) => (
          <li key={i} className="flex items-center gap-3.5 px-3 py-2">
            <div className="size-12 shrink-0 animate-pulse rounded-lg bg-white/10" />
            <div className="flex-1 space-y-2">
              <div
                className="h-4 animate-pulse rounded bg-white/10"
                style={{ width: `${55 + ((i * 17) % 35)}%` }}
              />
              <div className="h-3 w-1/3 animate-pulse rounded bg-white/[0.07]" />
            </div>
            <div className="h-8 w-20 animate-pulse rounded-full bg-white/[0.07]" />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A friendly empty state with an icon and a way forward. */
export function EmptyState({
  icon,
  title,
  body,
  children,
}: {
  icon: ReactNode;
  title: string;
  body?: string;
  children?: ReactNode;
}) {
  return (
    <div
      className="flex flex-col items-center rounded-3xl border border-dashed border-white/15 bg-white/[0.02] px-6 py-12 text-center"
      data-testid="empty-state"
    >
      <div className="grid size-16 place-items-center rounded-full bg-linear-to-br from-brand/60 to-neon/50 text-white shadow-[0_0_40px_-10px] shadow-brand">
        {icon}
      </div>
      <h2 className="mt-4 text-lg font-bold text-white">{title}</h2>
      {body && <p className="mt-1 max-w-sm text-ink-200">{body}</p>}
      {children && <div className="mt-5 flex flex-wrap justify-center gap-2">{children}</div>}
    </div>
  );
}
