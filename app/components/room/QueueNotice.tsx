import { ListMusic } from "lucide-react";
import { useEffect, useState } from "react";
import { button } from "~/components/ui";
import type { RoomConnection } from "~/hooks/useRoom";
import { plural, useT, type T } from "~/i18n";
import { STAGE_MSG, WAITLIST_MSG } from "../../../durable/room/messages";

/** Whether a stage error is the room saying the queue is empty (the prompt opens the drawer). */
export const queueProblem = (message: string) =>
  message === STAGE_MSG.emptyQueue || message === WAITLIST_MSG.emptyQueue;

/** The room's waiting-list and queue refusals in the page's language; others as the room wrote them. */
export function stageErrorText(t: T, message: string): string {
  if (queueProblem(message)) return t("queue.emptyPrompt");
  if (message === WAITLIST_MSG.full) return t("waitlist.full");
  if (message === WAITLIST_MSG.notWaiting) return t("waitlist.notWaiting");
  return message;
}

/** How long a good-news notice stays; the warnings stay until the next notice. */
const FADE_MS = 8000;

/**
 * What the room said about this user's queue or seat (issue 20): refilled from their crate,
 * nothing left to play (add songs before your turn), dropped from the stage, or seated from
 * the waiting list. The warnings carry the way to fix them: the queue drawer.
 */
export function QueueNotice({
  notice,
  openQueue,
  accent,
}: {
  notice: RoomConnection["queueNotice"];
  openQueue: () => void;
  accent: string;
}) {
  const t = useT();
  const [hidden, setHidden] = useState<number | null>(null);
  const good = notice?.kind === "refilled" || notice?.kind === "seated";
  useEffect(() => {
    if (!notice || !good) return;
    const id = setTimeout(() => setHidden(notice.id), FADE_MS);
    return () => clearTimeout(id);
  }, [notice, good]);
  if (!notice || hidden === notice.id) return null;
  const text =
    notice.kind === "refilled"
      ? plural(t, "queue.notice.refilled", notice.songs)
      : notice.kind === "seated"
        ? t("queue.notice.seated")
        : notice.kind === "empty"
          ? t("queue.notice.empty")
          : t("queue.notice.dropped");
  return (
    <div
      role={good ? "status" : "alert"}
      className={`mt-3 flex flex-wrap items-center gap-2 rounded-xl px-3 py-2 text-sm font-bold ${
        good ? "text-ink-950" : "border border-danger/50 bg-danger/15 text-white"
      }`}
      style={good ? { background: accent } : undefined}
      data-testid="queue-notice"
      data-kind={notice.kind}
    >
      <span className="min-w-0 flex-1">{text}</span>
      {!good && (
        <button type="button" className={button("primary", "sm")} onClick={openQueue}>
          <ListMusic aria-hidden className="size-4" />
          {t("queue.fill")}
        </button>
      )}
    </div>
  );
}
