import { Loader2 } from "lucide-react";
import { useT } from "~/i18n";
import type { RoomConnection } from "~/hooks/useRoom";

/** The pill style of the room header's badges (listeners, chat, connection). */
export const ROOM_PILL =
  "inline-flex items-center gap-1.5 rounded-full bg-black/40 px-3 py-1.5 text-sm font-semibold text-white";

/** Live, connecting or reconnecting: the room header's connection badge. */
export function StatusPill({ status }: { status: RoomConnection["status"] }) {
  const t = useT();
  if (status === "open")
    return (
      <span className={ROOM_PILL} data-testid="room-live">
        <span className="size-2 rounded-full bg-success" aria-hidden />
        {t("room.live")}
      </span>
    );
  return (
    <span role="status" className={ROOM_PILL}>
      <Loader2 aria-hidden className="size-4 animate-spin" />
      {status === "reconnecting" ? t("room.reconnectingShort") : t("room.connecting")}
    </span>
  );
}
