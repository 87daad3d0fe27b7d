import { Link } from "@remix-run/react";
import { ArrowLeft, Loader2, Send } from "lucide-react";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { useLocale, useT } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { formatDateTime } from "~/lib/format";
import {
  DM,
  DM_PAGE,
  DM_TEXT_MAX,
  POLL_MS,
  mergeMessages,
  type ConversationWith,
  type DmMessage,
  type MessagePage,
} from "~/lib/messages";
import { Avatar } from "~/components/Avatar";
import { useToast } from "~/components/Toaster";
import { button } from "~/components/ui";

const visible = () => document.visibilityState === "visible";

/**
 * /messages/{userUuid}: one conversation. New messages arrive by polling (every POLL_MS
 * while the tab is visible: `?after=<last id>`, an indexed read of nothing most times);
 * what arrives while the page is visible is marked read at once, and the header's count
 * is told (`dm:read`). Sending shows the stored message as soon as the server answers.
 */
export function ConversationScreen({
  me,
  peerUuid,
  info,
  initial,
}: {
  me: string;
  peerUuid: string;
  info: ConversationWith;
  initial: MessagePage;
}) {
  const t = useT();
  const locale = useLocale();
  const toast = useToast();
  const inputId = useId();
  const [conversation, setConversation] = useState(info.conversationUuid);
  const [messages, setMessages] = useState<DmMessage[]>(initial.data);
  const [hasMore, setHasMore] = useState(initial.hasMore);
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const bottom = useRef<HTMLDivElement>(null);
  const readUpTo = useRef(0);
  const name = info.peer?.nickname ?? "?";
  const lastId = messages.at(-1)?.id ?? 0;

  const markRead = useCallback(async (conv: string, upTo: number) => {
    if (upTo <= readUpTo.current || !visible()) return;
    readUpTo.current = upTo;
    try {
      await apiRequest(`${DM}/conversations/${conv}/read`, { json: { upTo } });
      window.dispatchEvent(new Event("dm:read"));
    } catch {
      readUpTo.current = 0; // the next poll tries again
    }
  }, []);

  // Read what is on screen: on open, and whenever newer messages arrive.
  useEffect(() => {
    if (conversation && lastId) void markRead(conversation, lastId);
  }, [conversation, lastId, markRead]);

  useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [lastId]);

  useEffect(() => {
    let stopped = false;
    const poll = async () => {
      if (!visible()) return;
      try {
        let conv = conversation;
        if (!conv) {
          // No conversation yet: the other side may start it.
          conv = (await apiRequest<ConversationWith>(`${DM}/with/${peerUuid}`)).conversationUuid;
          if (!conv || stopped) return;
          setConversation(conv);
        }
        const page = await apiRequest<MessagePage>(
          `${DM}/conversations/${conv}/messages?after=${lastId}&limit=100`,
        );
        if (!stopped && page.data.length) setMessages((m) => mergeMessages(m, page.data));
      } catch {
        /* a missed poll is retried by the next tick */
      }
    };
    const timer = setInterval(poll, POLL_MS);
    const onVisible = () => void poll();
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      stopped = true;
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [conversation, lastId, peerUuid]);

  const older = async () => {
    if (!conversation || !messages.length) return;
    setLoadingOlder(true);
    try {
      const page = await apiRequest<MessagePage>(
        `${DM}/conversations/${conversation}/messages?before=${messages[0].id}&limit=${DM_PAGE}`,
      );
      setMessages((m) => mergeMessages(m, page.data));
      setHasMore(page.hasMore);
    } catch (err) {
      toast.error(t("messages.loadFailed", { reason: errorText(err, t) }));
    } finally {
      setLoadingOlder(false);
    }
  };

  const send = async () => {
    const body = text.trim();
    if (!body || body.length > DM_TEXT_MAX) return;
    setSending(true);
    try {
      const m = await apiRequest<DmMessage>(DM, { json: { toUuid: peerUuid, text: body } });
      setConversation(m.conversationUuid);
      setMessages((list) => mergeMessages(list, [m]));
      setText("");
    } catch (err) {
      toast.error(t("messages.sendFailed", { reason: errorText(err, t) }));
    } finally {
      setSending(false);
    }
  };

  const over = text.trim().length - DM_TEXT_MAX;
  return (
    <div className="mx-auto flex max-w-3xl flex-col px-4 py-6 sm:px-6 sm:py-8">
      <Link to="/messages" className={`${button("ghost", "sm")} -ml-3 self-start`}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("messages.back")}
      </Link>
      <header className="mt-3 flex items-center gap-3">
        <Avatar name={name} src={info.peer?.profilePicture} color={info.peer?.color} size={48} />
        <h1 className="min-w-0 truncate text-2xl font-bold text-white">
          <Link to={`/profile/${peerUuid}`} className="hover:underline">
            {name}
          </Link>
        </h1>
      </header>
      <section
        aria-label={t("messages.with", { name })}
        className="mt-5 flex min-h-[50vh] flex-col rounded-3xl border border-line bg-panel/70 p-3 sm:p-5"
      >
        {hasMore && (
          <button
            type="button"
            onClick={older}
            disabled={loadingOlder}
            className={`${button("ghost", "sm")} self-center`}
          >
            {loadingOlder && <Loader2 aria-hidden className="size-4 animate-spin" />}
            {t("messages.older")}
          </button>
        )}
        {!messages.length && <p className="m-auto text-ink-300">{t("messages.start", { name })}</p>}
        <ol className="flex flex-col gap-2" aria-live="polite" data-testid="messages">
          {messages.map((m) => {
            const mine = m.senderUuid === me;
            return (
              <li
                key={m.id}
                data-testid="message"
                data-mine={mine ? "true" : "false"}
                className={`max-w-[80%] rounded-2xl px-4 py-2 ${
                  mine ? "self-end bg-brand text-white" : "self-start bg-ink-900 text-ink-50"
                }`}
              >
                <p className="whitespace-pre-wrap break-words">{m.text}</p>
                <time
                  dateTime={m.createdAt}
                  className={`mt-0.5 block text-[11px] ${mine ? "text-white/75" : "text-ink-300"}`}
                >
                  {formatDateTime(m.createdAt, locale)}
                </time>
              </li>
            );
          })}
        </ol>
        <div ref={bottom} />
      </section>
      <p className="sr-only">{t("messages.live")}</p>
      {info.canMessage ? (
        <form
          className="mt-3 flex items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <label htmlFor={inputId} className="sr-only">
            {t("messages.label", { name })}
          </label>
          <textarea
            id={inputId}
            value={text}
            rows={2}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                void send();
              }
            }}
            placeholder={t("messages.placeholder")}
            aria-invalid={over > 0}
            className="block min-h-12 flex-1 resize-y rounded-2xl border border-line bg-ink-900/70 px-4 py-3 text-base text-ink-50 placeholder:text-ink-300 focus:border-brand-light"
            data-testid="message-input"
          />
          <button
            type="submit"
            disabled={sending || !text.trim() || over > 0}
            className={button("primary")}
            data-testid="send-message"
          >
            {sending ? (
              <Loader2 aria-hidden className="size-4 animate-spin" />
            ) : (
              <Send aria-hidden className="size-4" />
            )}
            {t("messages.send")}
          </button>
        </form>
      ) : (
        <p role="status" className="mt-3 rounded-2xl border border-line px-4 py-3 text-ink-200">
          {t("messages.cannot", { name, reason: info.reason ?? "" })}
        </p>
      )}
      {over > 0 && (
        <p role="alert" className="mt-2 text-sm text-danger">
          {t("messages.tooLong", { count: over })}
        </p>
      )}
    </div>
  );
}
