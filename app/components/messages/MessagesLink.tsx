import { NavLink, useLocation } from "@remix-run/react";
import { MessageCircle } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { useT } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { DM, UNREAD_POLL_MS, type UnreadCounts } from "~/lib/messages";

/**
 * The header's link to /messages with the unread count: read on mount, on every page
 * change, on focus, when the conversation page marks something read (`dm:read`), and
 * every 15 s while the tab is visible.
 */
export function MessagesLink() {
  const t = useT();
  const location = useLocation();
  const [unread, setUnread] = useState(0);
  const refresh = useCallback(async () => {
    try {
      setUnread((await apiRequest<UnreadCounts>(`${DM}/unread-count`)).unread);
    } catch {
      /* keep the last count; the next tick tries again */
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh, location.pathname]);
  useEffect(() => {
    const tick = () => {
      if (document.visibilityState === "visible") void refresh();
    };
    const timer = setInterval(tick, UNREAD_POLL_MS);
    window.addEventListener("focus", tick);
    window.addEventListener("dm:read", tick);
    return () => {
      clearInterval(timer);
      window.removeEventListener("focus", tick);
      window.removeEventListener("dm:read", tick);
    };
  }, [refresh]);
  const label = unread ? t("nav.messagesUnread", { count: unread }) : t("nav.messages");
  return (
    <NavLink
      to="/messages"
      prefetch="intent"
      aria-label={label}
      title={t("nav.messages")}
      data-testid="nav-messages"
      className={({ isActive }) =>
        `relative grid size-9 place-items-center rounded-full transition hover:bg-white/10 hover:text-white ${
          isActive ? "bg-white/12 text-white ring-1 ring-white/20" : "text-ink-100"
        }`
      }
    >
      <MessageCircle aria-hidden className="size-5" />
      {unread > 0 && (
        <span
          className="absolute -right-0.5 -top-0.5 grid h-4.5 min-w-4.5 place-items-center rounded-full bg-neon px-1 text-[10px] font-bold leading-none text-ink-950"
          data-testid="nav-messages-unread"
        >
          {unread > 99 ? "99+" : unread}
        </span>
      )}
    </NavLink>
  );
}
