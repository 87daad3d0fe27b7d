import { CornerUpLeft, Pencil, Pin, Send, Trash2, X } from "lucide-react";
import { useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { useLocale, useT } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { ROOM_SERVICE } from "~/lib/rooms";
import { useToast } from "../Toaster";
import type { RoomProfile } from "~/lib/rooms";
import type { ChatMod } from "./RoomChat";
import type { RoomConnection } from "~/hooks/useRoom";
import type { ChatMessage } from "../../../shared/protocol";
import { CHAT_MAX_CHARS } from "../../../shared/protocol";
import { Avatar } from "../Avatar";
import { UserAvatar } from "./UserAvatar";
import { SendSomething } from "../shop/SendSomething";
import { ConsumableMessage } from "./ConsumableMessage";
import { useMentionPicker } from "./MentionPicker";
import { splitMentions } from "./mentions";

/** Reactions offered on every line (any emoji the room accepts would do). */
export const REACTIONS = ["❤️", "🔥", "😂", "👏"] as const;
/** One's own text lines can be edited this long after they were sent (seed 001). */
export const EDIT_WINDOW_MS = 20_000;

interface Pending {
  clientId: string;
  message: string;
  replyTo: string | null;
  failed?: string;
}

/**
 * The room's chat (UI.md): avatars, names in the user's colour (default 562DF9), replies,
 * reactions and edits inside 20 s. Lines send at once as a pending copy that the room's own
 * line (same clientId) replaces; a refused line stays, marked, with its reason.
 */
export function ChatPanel({
  conn,
  me,
  profiles,
  disabled,
  mod,
}: {
  conn: RoomConnection;
  me: { uuid: string; nickname: string; guest: boolean } | null;
  profiles: Record<string, RoomProfile>;
  disabled?: boolean;
  /** Moderators delete any line and pin lines to the room (issue 4, "moderator actions"). */
  mod?: ChatMod;
}) {
  const t = useT();
  const toast = useToast();
  const pinned = conn.state?.settings.pinnedMessages ?? [];
  const pin = async (message: string) => {
    if (!mod) return;
    try {
      await apiRequest(
        `${ROOM_SERVICE}/rooms/${encodeURIComponent(mod.roomUuid)}/pinned-messages`,
        { method: "POST", json: { message: message.slice(0, 300) } },
      );
      toast.success(t("room.chatPinnedToast"));
    } catch (err) {
      toast.error(errorText(err, t));
    }
  };
  const unpin = async (pinId: string) => {
    if (!mod) return;
    try {
      await apiRequest(
        `${ROOM_SERVICE}/rooms/${encodeURIComponent(mod.roomUuid)}/pinned-messages/${encodeURIComponent(pinId)}`,
        { method: "DELETE" },
      );
      toast.success(t("room.unpinnedToast"));
    } catch (err) {
      toast.error(errorText(err, t));
    }
  };
  const remove = (messageId: string) => {
    if (conn.send({ action: "deleteChat", messageId })) toast.success(t("room.chatDeleted"));
    else toast.error(t("room.mod.offline"));
  };
  const roomChat = conn.state?.chat;
  const chat = useMemo(() => roomChat ?? [], [roomChat]);
  const [text, setText] = useState("");
  const [replyTo, setReplyTo] = useState<ChatMessage | null>(null);
  const [editing, setEditing] = useState<ChatMessage | null>(null);
  const [pending, setPending] = useState<Pending[]>([]);
  const listRef = useRef<HTMLOListElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const locale = useLocale();
  // Chat lines show their time, short and in the reader's own clock and language.
  const clock = useMemo(
    () => new Intl.DateTimeFormat(locale, { hour: "numeric", minute: "2-digit" }),
    [locale],
  );
  // The names @mentions match: everyone with an account in the room now, by the chat name
  // the room knows them by (what it matches when it notifies, durable/room/notices.ts).
  const state = conn.state;
  const roomNames = useMemo(() => {
    const out = new Map<string, string>();
    for (const u of state?.allUsers ?? []) {
      if (u.tokenRole === "guest") continue;
      const n = state?.allUserData?.[u.uuid]?.userProfile.nickname || profiles[u.uuid]?.nickname;
      if (n) out.set(u.uuid, n);
    }
    return out;
  }, [state?.allUsers, state?.allUserData, profiles]);
  const myName = me ? (roomNames.get(me.uuid) ?? me.nickname) : null;
  const allNames = useMemo(() => [...new Set(roomNames.values())], [roomNames]);
  const others = useMemo(
    () => [...new Set([...roomNames].filter(([u]) => u !== me?.uuid).map(([, n]) => n))],
    [roomNames, me?.uuid],
  );
  const picker = useMentionPicker({ names: others, text, setText, inputRef });

  // The room's copy arrived: drop the pending one.
  useEffect(() => {
    const seen = new Set(chat.map((m) => m.clientId).filter(Boolean));
    setPending((p) =>
      p.some((x) => seen.has(x.clientId)) ? p.filter((x) => !seen.has(x.clientId)) : p,
    );
  }, [chat]);
  // A refused line: mark the newest pending one with the reason.
  useEffect(() => {
    if (
      conn.error?.action !== "sendChat" &&
      conn.error?.action !== "editChat" &&
      conn.error?.action !== "reactChat"
    )
      return;
    const reason = conn.error.message;
    if (conn.error.action === "sendChat")
      setPending((p) =>
        p.map((x, i) => (i === p.length - 1 && !x.failed ? { ...x, failed: reason } : x)),
      );
    else
      setPending((p) => [
        ...p,
        { clientId: `err-${conn.error!.id}`, message: "", replyTo: null, failed: reason },
      ]);
  }, [conn.error]);
  // Follow the newest line when already at the bottom.
  const count = chat.length + pending.length;
  useEffect(() => {
    const el = listRef.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 120)
      el.scrollTop = el.scrollHeight;
  }, [count]);

  const byId = new Map(chat.map((m) => [m.id, m]));
  const nameOf = (m: ChatMessage) =>
    m.userName ?? (m.userUuid ? profiles[m.userUuid]?.nickname : null) ?? t("room.listener");

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const message = text.trim();
    if (!message) return;
    if (editing) {
      if (conn.send({ action: "editChat", messageId: editing.id, message })) {
        setEditing(null);
        setText("");
      }
      return;
    }
    const clientId = crypto.randomUUID();
    if (
      !conn.send({
        action: "sendChat",
        message,
        clientId,
        ...(replyTo ? { replyTo: replyTo.id } : {}),
      })
    )
      return;
    setPending((p) => [...p, { clientId, message, replyTo: replyTo?.id ?? null }]);
    setText("");
    setReplyTo(null);
  };

  const canWrite = !!me && !me.guest && !disabled;
  const now = conn.serverNow();

  return (
    <div className="flex h-full min-h-0 flex-col rounded-3xl border border-white/10 bg-black/40">
      <h2 className="border-b border-white/10 px-4 py-3 text-lg font-bold text-white">
        {t("room.chat")}
      </h2>
      {pinned.length > 0 && (
        <section
          aria-label={t("room.pinned")}
          className="max-h-32 space-y-1.5 overflow-y-auto border-b border-white/10 bg-white/5 px-4 py-2.5"
          data-testid="pinned-messages"
        >
          {pinned.map((p) => (
            <p key={p.id} className="flex gap-2 text-sm text-ink-50" data-testid="pinned-message">
              <Pin aria-hidden className="mt-0.5 size-3.5 shrink-0 text-ink-100" />
              <span className="sr-only">{t("room.pinned")}: </span>
              <span className="min-w-0 flex-1 break-words">{p.message}</span>
              {mod?.moderate && (
                <button
                  type="button"
                  onClick={() => void unpin(p.id)}
                  aria-label={t("room.unpin")}
                  title={t("room.unpin")}
                  className="grid size-6 shrink-0 place-items-center rounded-full text-ink-100 hover:bg-white/10 hover:text-white focus-visible:outline-2 focus-visible:outline-white"
                  data-testid="unpin"
                >
                  <X aria-hidden className="size-3.5" />
                </button>
              )}
            </p>
          ))}
        </section>
      )}
      <ol
        ref={listRef}
        className="min-h-0 flex-1 space-y-3 overflow-y-auto px-4 py-3"
        aria-live="polite"
        aria-relevant="additions"
        data-testid="chat-list"
      >
        {chat.length === 0 && pending.length === 0 && (
          <li className="text-sm text-ink-100">{t("room.chatEmpty")}</li>
        )}
        {chat.map((m) => {
          if (m.type === "consumable")
            return <ConsumableMessage key={m.id} message={m} profiles={profiles} />;
          if (m.type === "room") {
            return (
              <li key={m.id} className="text-center text-xs font-medium italic text-ink-200">
                {m.message}
              </li>
            );
          }
          const mine = !!me && m.userUuid === me.uuid;
          const quoted = m.replyTo ? byId.get(m.replyTo) : null;
          const color = `#${(m.color ?? profiles[m.userUuid ?? ""]?.color ?? "562DF9").replace(/^#/, "")}`;
          const parts = splitMentions(m.message ?? "", allNames);
          const forMe =
            !mine &&
            !!myName &&
            parts.some((x) => x.mention?.toLowerCase() === myName.toLowerCase());
          return (
            <li
              key={m.id}
              className={`group flex gap-2.5 ${forMe ? "-mx-2 rounded-xl bg-amber-300/10 px-2 py-1 ring-1 ring-amber-300/40" : ""}`}
              data-testid="chat-line"
              data-mentions-me={forMe || undefined}
            >
              {m.userUuid && profiles[m.userUuid] ? (
                <UserAvatar profile={profiles[m.userUuid]} fallbackName={nameOf(m)} size={32} />
              ) : (
                <Avatar name={nameOf(m)} src={null} color={m.color} size={32} />
              )}
              <div className="min-w-0 flex-1">
                <p className="text-sm">
                  <span className="font-bold" style={{ color: readable(color) }}>
                    {nameOf(m)}
                  </span>
                  <time
                    dateTime={new Date(m.date).toISOString()}
                    className="ml-1.5 text-xs tabular-nums text-ink-300"
                    data-testid="chat-time"
                  >
                    {clock.format(m.date)}
                  </time>
                  {forMe && <span className="sr-only"> ({t("room.mentionsYou")})</span>}
                  {m.edited && (
                    <span className="ml-1.5 text-xs text-ink-200">{t("room.chatEdited")}</span>
                  )}
                </p>
                {quoted && (
                  <p className="mt-0.5 truncate border-l-2 border-white/30 pl-2 text-xs text-ink-200">
                    {t("room.chatReplyTo", { name: nameOf(quoted) })}: {quoted.message}
                  </p>
                )}
                <p className="whitespace-pre-wrap break-words text-sm text-ink-50">
                  {parts.map((x, i) =>
                    x.mention ? (
                      <mark
                        key={i}
                        className="rounded bg-brand/40 px-0.5 font-semibold text-white"
                        data-testid="chat-mention"
                      >
                        {x.text}
                      </mark>
                    ) : (
                      x.text
                    ),
                  )}
                </p>
                <div className="mt-1 flex flex-wrap items-center gap-1">
                  {Object.entries(m.reactions ?? {})
                    .filter(([, who]) => who.length > 0)
                    .map(([emoji, who]) => (
                      <button
                        key={emoji}
                        type="button"
                        onClick={() => conn.send({ action: "reactChat", messageId: m.id, emoji })}
                        disabled={!canWrite}
                        aria-pressed={!!me && who.includes(me.uuid)}
                        aria-label={t("room.chatReaction", { emoji, count: who.length })}
                        className="rounded-full border border-white/15 bg-white/10 px-2 py-0.5 text-xs text-white aria-pressed:border-brand-light"
                      >
                        {emoji} {who.length}
                      </button>
                    ))}
                  {canWrite && (
                    <span className="flex gap-0.5 opacity-100 sm:opacity-0 sm:group-focus-within:opacity-100 sm:group-hover:opacity-100">
                      {REACTIONS.map((emoji) => (
                        <button
                          key={emoji}
                          type="button"
                          onClick={() => conn.send({ action: "reactChat", messageId: m.id, emoji })}
                          aria-label={t("room.chatReact", { emoji })}
                          className="rounded-full px-1 text-sm hover:bg-white/10"
                        >
                          {emoji}
                        </button>
                      ))}
                      <button
                        type="button"
                        onClick={() => {
                          setEditing(null);
                          setReplyTo(m);
                          inputRef.current?.focus();
                        }}
                        aria-label={t("room.chatReply", { name: nameOf(m) })}
                        className="rounded-full p-1 text-ink-100 hover:bg-white/10 hover:text-white"
                      >
                        <CornerUpLeft aria-hidden className="size-3.5" />
                      </button>
                      {mod?.moderate && m.message && (
                        <button
                          type="button"
                          onClick={() => pin(m.message ?? "")}
                          aria-label={t("room.chatPin")}
                          title={t("room.chatPin")}
                          className="rounded-full p-1 text-ink-100 hover:bg-white/10 hover:text-white"
                          data-testid="chat-pin"
                        >
                          <Pin aria-hidden className="size-3.5" />
                        </button>
                      )}
                      {(mod?.moderate || mine) && (
                        <button
                          type="button"
                          onClick={() => remove(m.id)}
                          aria-label={t("room.chatDelete")}
                          title={t("room.chatDelete")}
                          className="rounded-full p-1 text-ink-100 hover:bg-white/10 hover:text-red-300"
                          data-testid="chat-delete"
                        >
                          <Trash2 aria-hidden className="size-3.5" />
                        </button>
                      )}
                      {mine && m.message && now - m.date < EDIT_WINDOW_MS && (
                        <button
                          type="button"
                          onClick={() => {
                            setReplyTo(null);
                            setEditing(m);
                            setText(m.message ?? "");
                            inputRef.current?.focus();
                          }}
                          aria-label={t("room.chatEdit")}
                          className="rounded-full p-1 text-ink-100 hover:bg-white/10 hover:text-white"
                        >
                          <Pencil aria-hidden className="size-3.5" />
                        </button>
                      )}
                    </span>
                  )}
                </div>
              </div>
            </li>
          );
        })}
        {pending.map((p) => (
          <li key={p.clientId} className="flex gap-2.5 opacity-80" data-testid="chat-pending">
            <UserAvatar
              profile={me ? profiles[me.uuid] : null}
              fallbackName={me?.nickname ?? "?"}
              size={32}
            />
            <div className="min-w-0 flex-1">
              {p.message && (
                <p className="whitespace-pre-wrap break-words text-sm text-ink-50">{p.message}</p>
              )}
              <p
                className={`text-xs ${p.failed ? "font-semibold text-danger" : "text-ink-200"}`}
                role={p.failed ? "alert" : undefined}
              >
                {p.failed ? t("room.chatFailed", { reason: p.failed }) : t("room.chatSending")}
              </p>
              {p.failed && (
                <button
                  type="button"
                  className="text-xs font-semibold text-white underline"
                  onClick={() => setPending((x) => x.filter((y) => y.clientId !== p.clientId))}
                >
                  {t("room.chatDismiss")}
                </button>
              )}
            </div>
          </li>
        ))}
      </ol>
      {canWrite ? (
        <form onSubmit={submit} className="border-t border-white/10 p-3">
          {(replyTo || editing) && (
            <div className="mb-2 flex items-center justify-between gap-2 rounded-lg bg-white/10 px-2.5 py-1.5 text-xs text-ink-50">
              <span className="truncate">
                {editing
                  ? t("room.chatEditing")
                  : t("room.chatReplyTo", { name: replyTo ? nameOf(replyTo) : "" })}
              </span>
              <button
                type="button"
                onClick={() => {
                  setReplyTo(null);
                  if (editing) setText("");
                  setEditing(null);
                }}
                aria-label={t("room.chatCancel")}
                className="rounded-full p-0.5 hover:bg-white/10"
              >
                <X aria-hidden className="size-3.5" />
              </button>
            </div>
          )}
          <div className="relative flex items-end gap-2">
            {picker.list}
            <label className="sr-only" htmlFor="chat-input">
              {t("room.chatLabel")}
            </label>
            <textarea
              id="chat-input"
              ref={inputRef}
              value={text}
              {...picker.inputProps}
              onChange={(e) => {
                setText(e.target.value);
                picker.track(e.target);
              }}
              onKeyDown={(e) => {
                if (picker.onKeyDown(e)) return;
                if (e.key === "Enter" && !e.shiftKey) {
                  e.preventDefault();
                  e.currentTarget.form?.requestSubmit();
                }
              }}
              rows={1}
              maxLength={CHAT_MAX_CHARS}
              placeholder={t("room.chatPlaceholder")}
              className="block max-h-28 min-h-10 flex-1 resize-none rounded-xl border border-line bg-ink-900/70 px-3 py-2 text-sm text-ink-50 placeholder:text-ink-300"
              data-testid="chat-input"
            />
            {mod?.roomUuid && <SendSomething roomUuid={mod.roomUuid} />}
            <button
              type="submit"
              aria-label={t("room.chatSend")}
              data-testid="chat-send"
              className="grid size-10 shrink-0 place-items-center rounded-full bg-brand text-white hover:bg-brand-hover"
            >
              <Send aria-hidden className="size-4" />
            </button>
          </div>
        </form>
      ) : (
        <p className="border-t border-white/10 p-3 text-sm text-ink-100">
          {me?.guest ? t("room.chatGuest") : t("room.chatReadOnly")}
        </p>
      )}
    </div>
  );
}

/** A name colour readable on the dark panel: very dark colours are lifted (AA on ~#100c18). */
function readable(hex: string): string {
  const n = parseInt(hex.slice(1, 7), 16);
  if (Number.isNaN(n)) return "#b3a0ff";
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // Below ~0.18 luminance the contrast on near-black drops under 4.5: mix toward white.
  if (lum >= 0.18) return hex;
  const mix = (c: number) => Math.round(c + (255 - c) * 0.55);
  return `#${[(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => mix(c).toString(16).padStart(2, "0")).join("")}`;
}
