import { Link, useRevalidator } from "@remix-run/react";
import { useEffect, useId, useState } from "react";
import { useLocale, useT } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { formatDateTime } from "~/lib/format";
import {
  DM,
  TAB_ORDER,
  UNREAD_POLL_MS,
  type ConversationDto,
  type ConversationPage,
  type DmTab,
  type UnreadCounts,
} from "~/lib/messages";
import { Avatar } from "~/components/Avatar";
import { useToast } from "~/components/Toaster";
import { PageTitle } from "~/components/ui";

/** One row: the other person, the last line, when, and how many are unread. */
function ConversationRow({ c, me }: { c: ConversationDto; me: string }) {
  const t = useT();
  const locale = useLocale();
  const name = c.peer?.nickname ?? "?";
  const last = c.lastMessage;
  const preview = last
    ? last.senderUuid === me
      ? t("messages.you", { text: last.text })
      : last.text
    : "";
  return (
    <li data-testid="conversation" data-peer={c.peerUuid}>
      <Link
        to={`/messages/${c.peerUuid}`}
        className={`flex min-w-0 items-center gap-3 rounded-2xl border p-3 transition hover:border-white/30 hover:bg-white/5 focus-visible:outline-2 focus-visible:outline-white ${
          c.unread ? "border-brand-light/50 bg-brand/10" : "border-line bg-ink-900/50"
        }`}
      >
        <Avatar name={name} src={c.peer?.profilePicture} color={c.peer?.color} size={44} />
        <span className="min-w-0 flex-1">
          <span className="flex items-baseline justify-between gap-3">
            <span className="truncate font-semibold text-white">{name}</span>
            <time className="shrink-0 text-xs text-ink-300" dateTime={c.lastMessageAt}>
              {formatDateTime(c.lastMessageAt, locale)}
            </time>
          </span>
          <span
            className={`block truncate text-sm ${c.unread ? "font-semibold text-ink-50" : "text-ink-300"}`}
          >
            {preview}
          </span>
        </span>
        {c.unread > 0 && (
          <span
            className="grid h-6 min-w-6 place-items-center rounded-full bg-neon px-1.5 text-xs font-bold text-ink-950"
            aria-label={t("messages.unread", { count: c.unread })}
            data-testid="conversation-unread"
          >
            {c.unread > 99 ? "99+" : c.unread}
          </span>
        )}
      </Link>
    </li>
  );
}

/** "Only friends can message me" (PUT /direct-messages/settings), saved on change. */
function FriendsOnlyToggle({ initial }: { initial: boolean }) {
  const t = useT();
  const id = useId();
  const toast = useToast();
  const [on, setOn] = useState(initial);
  const [busy, setBusy] = useState(false);
  return (
    <div className="flex items-start gap-3 rounded-2xl border border-line bg-panel/70 p-4">
      <input
        id={id}
        type="checkbox"
        checked={on}
        disabled={busy}
        className="mt-1 size-4 accent-brand"
        data-testid="friends-only"
        onChange={async (e) => {
          const next = e.target.checked;
          setOn(next);
          setBusy(true);
          try {
            await apiRequest(`${DM}/settings`, { method: "PUT", json: { friendsOnly: next } });
          } catch (err) {
            setOn(!next);
            toast.error(t("messages.settingFailed", { reason: errorText(err, t) }));
          } finally {
            setBusy(false);
          }
        }}
      />
      <label htmlFor={id} className="text-sm">
        <span className="block font-semibold text-white">{t("messages.friendsOnly")}</span>
        <span className="text-ink-300">{t("messages.friendsOnlyHint")}</span>
      </label>
    </div>
  );
}

/**
 * /messages: the conversation tabs seed 001 names (All = UNSET, Friends, Others), each with
 * its unread count, and the conversations newest first. The list refreshes itself every
 * 15 s while visible, so a new conversation shows up without a reload.
 */
export function ConversationsScreen({
  me,
  tab,
  page,
  counts,
  friendsOnly,
  failed,
}: {
  me: string;
  tab: DmTab;
  page: ConversationPage;
  counts: UnreadCounts;
  friendsOnly: boolean;
  failed: string | null;
}) {
  const t = useT();
  const revalidator = useRevalidator();
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible" && revalidator.state === "idle")
        revalidator.revalidate();
    }, UNREAD_POLL_MS);
    return () => clearInterval(timer);
  }, [revalidator]);
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-10">
      <PageTitle>{t("messages.title")}</PageTitle>
      <p className="mt-2 text-ink-200">{t("messages.lede")}</p>
      <nav aria-label={t("messages.tabs")} className="mt-6">
        <ul className="flex gap-1 rounded-full border border-line bg-ink-900/60 p-1">
          {TAB_ORDER.map((k) => (
            <li key={k} className="flex-1">
              <Link
                to={k === "UNSET" ? "/messages" : `/messages?tab=${k}`}
                aria-current={k === tab ? "page" : undefined}
                data-testid={`tab-${k}`}
                className={`flex items-center justify-center gap-2 rounded-full px-3 py-2 text-sm font-semibold transition ${
                  k === tab ? "bg-white text-ink-950" : "text-ink-200 hover:bg-white/10"
                }`}
              >
                {t(`messages.tab.${k}`)}
                {counts.tabs[k] > 0 && (
                  <span
                    className={`rounded-full px-1.5 text-xs ${k === tab ? "bg-brand text-white" : "bg-neon text-ink-950"}`}
                    data-testid={`tab-${k}-unread`}
                  >
                    {counts.tabs[k]}
                  </span>
                )}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {failed && (
        <p
          role="alert"
          className="mt-4 rounded-2xl border border-danger/40 bg-danger/10 px-4 py-3 text-sm text-ink-50"
        >
          {t("messages.loadFailed", { reason: failed })}
        </p>
      )}
      {page.data.length ? (
        <ul className="mt-5 space-y-2" data-testid="conversations">
          {page.data.map((c) => (
            <ConversationRow key={c.conversationUuid} c={c} me={me} />
          ))}
        </ul>
      ) : (
        <p className="mt-6 rounded-2xl border border-dashed border-line px-4 py-8 text-center text-ink-300">
          {t(`messages.empty.${tab}`)}
        </p>
      )}
      <div className="mt-8">
        <FriendsOnlyToggle initial={friendsOnly} />
      </div>
    </div>
  );
}
