import { Link } from "@remix-run/react";
import { Bell, Heart, Mic2, Radio, UserCheck, UserPlus } from "lucide-react";
import { useLocale } from "~/i18n";
import { notificationHref, timeAgo, type NotificationDto } from "~/lib/social";

const ICONS = {
  dj_live: Radio,
  friend_invitation: UserPlus,
  friend_accepted: UserCheck,
  up_next: Mic2,
  mention: Heart,
} as const;

/**
 * One notification as a link to where it points; unread ones are lit. Clicking marks it
 * read (`onOpen`) on the way there.
 */
export function NotificationItem({
  n,
  onOpen,
  compact,
}: {
  n: NotificationDto;
  onOpen: (n: NotificationDto) => void;
  compact?: boolean;
}) {
  const locale = useLocale();
  const Icon = ICONS[n.kind as keyof typeof ICONS] ?? Bell;
  const unread = !n.readAt;
  return (
    <Link
      to={notificationHref(n)}
      onClick={() => onOpen(n)}
      className={`flex items-start gap-3 rounded-2xl px-3 ${compact ? "py-2.5" : "py-3.5"} transition hover:bg-white/8 focus-visible:bg-white/8 ${
        unread ? "bg-brand/12" : ""
      }`}
      data-testid="notification"
      data-unread={unread || undefined}
    >
      <span
        className={`mt-0.5 grid size-9 shrink-0 place-items-center rounded-full ${
          unread ? "bg-brand text-white" : "bg-white/10 text-ink-200"
        }`}
      >
        <Icon aria-hidden className="size-4" />
      </span>
      <span className="min-w-0 flex-1">
        <span className="flex items-baseline justify-between gap-2">
          <span className={`truncate font-semibold ${unread ? "text-white" : "text-ink-100"}`}>
            {n.title}
          </span>
          {/* "2 min ago" differs between the server's render and the browser's by the seconds between. */}
          <time
            dateTime={n.createdAt}
            className="shrink-0 text-xs text-ink-300"
            suppressHydrationWarning
          >
            {timeAgo(n.createdAt, locale)}
          </time>
        </span>
        <span className={`block text-sm text-ink-200 ${compact ? "line-clamp-2" : ""}`}>
          {n.body}
        </span>
      </span>
      {unread && <span aria-hidden className="mt-2 size-2 shrink-0 rounded-full bg-neon" />}
    </Link>
  );
}
