import { MessageCircle, X } from "lucide-react";
import { useEffect, useState } from "react";
import { button } from "~/components/ui";
import type { RoomConnection } from "~/hooks/useRoom";
import { useT } from "~/i18n";
import type { RoomProfile } from "~/lib/rooms";
import { ChatPanel } from "./ChatPanel";
import { ROOM_PILL } from "./StatusPill";

export type RoomMe = { uuid: string; nickname: string; guest: boolean } | null;
export type ChatMod = { moderate: boolean; roomUuid: string };
type ChatProps = {
  conn: RoomConnection;
  me: RoomMe;
  profiles: Record<string, RoomProfile>;
  mod: ChatMod;
};

/** The chat: beside the stage on desktop, a drawer on phones (ChatPanel.tsx). */
function RoomChat({ conn, me, profiles, mod }: ChatProps) {
  const off = conn.state ? conn.state.settings.hasChat === false : false;
  return (
    <ChatPanel
      conn={conn}
      me={me}
      profiles={profiles}
      disabled={off || conn.status !== "open"}
      mod={mod}
    />
  );
}

export function ChatAside(props: ChatProps) {
  const t = useT();
  return (
    <aside
      aria-label={t("room.chat")}
      className="hidden lg:sticky lg:top-20 lg:block lg:h-[calc(100dvh-var(--player-space)-var(--banner-space,0rem)-6.5rem)] lg:min-h-[20rem] lg:self-start"
      data-testid="chat-panel"
    >
      <RoomChat {...props} />
    </aside>
  );
}

export function ChatDrawer(props: ChatProps) {
  const t = useT();
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);
  const count = props.conn.state?.chat?.length ?? 0;
  return (
    <div className="lg:hidden">
      <button
        type="button"
        onClick={() => setOpen(true)}
        className={`${ROOM_PILL} hover:bg-black/60`}
        aria-expanded={open}
        aria-controls="chat-drawer"
        data-testid="open-chat"
      >
        <MessageCircle aria-hidden className="size-4" />
        {t("room.openChat")}
        {count > 0 && (
          <span className="rounded-full bg-white/20 px-1.5 text-xs tabular-nums">{count}</span>
        )}
      </button>
      {open && (
        <div
          aria-hidden
          className="fixed inset-0 z-50 bg-black/60"
          onClick={() => setOpen(false)}
        />
      )}
      {open && (
        <div
          id="chat-drawer"
          role="dialog"
          aria-modal="true"
          aria-label={t("room.chat")}
          className="fixed inset-x-0 bottom-0 z-[60] flex h-[75dvh] flex-col rounded-t-3xl border-t border-white/15 bg-ink-950/95 p-3 shadow-2xl"
        >
          <div className="mb-2 flex justify-end">
            <button
              type="button"
              onClick={() => setOpen(false)}
              className={button("ghost")}
              aria-label={t("room.closeChat")}
              autoFocus
            >
              <X aria-hidden className="size-5" />
            </button>
          </div>
          <div className="min-h-0 flex-1">
            <RoomChat {...props} />
          </div>
        </div>
      )}
    </div>
  );
}
