import { Link } from "@remix-run/react";
import { Bell, CheckCheck, Settings } from "lucide-react";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { useT } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { SOCIAL, type NotificationDto, type NotificationList } from "~/lib/social";
import { NotificationItem } from "~/components/social/NotificationItem";

/** How often the bell asks while the page is visible (never faster: one small read each). */
const REFRESH_MS = 30_000;

/**
 * The notification centre's bell (issue 14): the unread count, read on mount, on focus and
 * every 30 s while the tab is visible; a dropdown of the newest 10 where clicking one marks
 * it read and goes to its page; "mark all read"; links to the full list and the settings.
 */
export function NotificationBell() {
  const t = useT();
  const id = useId();
  const [list, setList] = useState<NotificationList | null>(null);
  const [open, setOpen] = useState(false);
  // Open toward the side with room: the bell sits at the left of the header's second row
  // on wide screens and at the right on narrower ones.
  const [alignRight, setAlignRight] = useState(true);
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  const refresh = useCallback(async () => {
    try {
      setList(await apiRequest<NotificationList>(`${SOCIAL}/notifications?take=10`));
    } catch {
      /* the bell keeps its last count; the next tick tries again */
    }
  }, []);

  useEffect(() => {
    void refresh();
    let timer: ReturnType<typeof setInterval> | undefined;
    const schedule = () => {
      clearInterval(timer);
      if (document.visibilityState === "visible") timer = setInterval(refresh, REFRESH_MS);
    };
    const onVisible = () => {
      if (document.visibilityState === "visible") void refresh();
      schedule();
    };
    const onFocus = () => void refresh();
    schedule();
    document.addEventListener("visibilitychange", onVisible);
    window.addEventListener("focus", onFocus);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
      window.removeEventListener("focus", onFocus);
    };
  }, [refresh]);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);

  const markRead = async (body: { uuids: string[] } | { all: true }) => {
    const now = new Date().toISOString();
    const hit = (n: NotificationDto) => ("all" in body ? true : body.uuids.includes(n.uuid));
    setList((l) =>
      l
        ? {
            ...l,
            items: l.items.map((n) => (hit(n) && !n.readAt ? { ...n, readAt: now } : n)),
            unreadCount:
              "all" in body
                ? 0
                : Math.max(0, l.unreadCount - l.items.filter((n) => hit(n) && !n.readAt).length),
          }
        : l,
    );
    try {
      const r = await apiRequest<{ unreadCount: number }>(`${SOCIAL}/notifications/read`, {
        method: "POST",
        json: body,
      });
      setList((l) => (l ? { ...l, unreadCount: r.unreadCount } : l));
    } catch {
      void refresh();
    }
  };

  const unread = list?.unreadCount ?? 0;
  return (
    <div className="relative" ref={wrap}>
      <button
        ref={button}
        type="button"
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        aria-label={unread ? t("notif.bellUnread", { count: unread }) : t("notif.bell")}
        title={t("notif.bell")}
        onClick={() => {
          if (!open) {
            void refresh();
            const r = button.current?.getBoundingClientRect();
            setAlignRight(!r || r.left + 400 > window.innerWidth);
          }
          setOpen(!open);
        }}
        className="relative grid size-9 place-items-center rounded-full text-ink-100 transition hover:bg-white/10 hover:text-white"
        data-testid="bell"
      >
        <Bell aria-hidden className="size-5" />
        {unread > 0 && (
          <span
            className="absolute -right-0.5 -top-0.5 grid h-4.5 min-w-4.5 place-items-center rounded-full bg-neon px-1 text-[10px] font-bold leading-none text-ink-950"
            data-testid="bell-count"
          >
            {unread > 99 ? "99+" : unread}
          </span>
        )}
      </button>
      {open && (
        <div
          id={id}
          role="dialog"
          aria-label={t("notif.title")}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              setOpen(false);
              button.current?.focus();
            }
          }}
          className={`fixed inset-x-2 top-16 z-40 max-h-[75vh] overflow-y-auto rounded-3xl border border-white/15 bg-ink-950/97 p-2 shadow-2xl shadow-black/60 backdrop-blur sm:absolute sm:inset-x-auto ${alignRight ? "sm:right-0" : "sm:left-0"} sm:top-full sm:mt-2 sm:w-96`}
          data-testid="bell-panel"
        >
          <div className="flex items-center justify-between gap-2 px-3 pb-2 pt-1.5">
            <h2 className="font-bold text-white">{t("notif.title")}</h2>
            <div className="flex items-center gap-1">
              <button
                type="button"
                disabled={!unread}
                onClick={() => markRead({ all: true })}
                className="inline-flex items-center gap-1.5 rounded-full px-2.5 py-1.5 text-xs font-semibold text-brand-light hover:bg-white/10 disabled:opacity-40"
                data-testid="mark-all-read"
              >
                <CheckCheck aria-hidden className="size-4" />
                {t("notif.markAllRead")}
              </button>
              <Link
                to="/settings/notifications"
                onClick={() => setOpen(false)}
                className="grid size-8 place-items-center rounded-full text-ink-200 hover:bg-white/10 hover:text-white"
                aria-label={t("notif.settingsTitle")}
                title={t("notif.settingsTitle")}
                data-testid="bell-settings"
              >
                <Settings aria-hidden className="size-4" />
              </Link>
            </div>
          </div>
          {list?.items.length ? (
            <ul className="space-y-0.5">
              {list.items.map((n) => (
                <li key={n.uuid}>
                  <NotificationItem
                    n={n}
                    compact
                    onOpen={(x) => {
                      setOpen(false);
                      if (!x.readAt) void markRead({ uuids: [x.uuid] });
                    }}
                  />
                </li>
              ))}
            </ul>
          ) : (
            <p className="px-3 py-6 text-center text-sm text-ink-300">{t("notif.empty")}</p>
          )}
          <Link
            to="/notifications"
            onClick={() => setOpen(false)}
            className="mt-1 block rounded-2xl px-3 py-2.5 text-center text-sm font-semibold text-brand-light hover:bg-white/8"
            data-testid="bell-all"
          >
            {t("notif.seeAll")}
          </Link>
        </div>
      )}
    </div>
  );
}
