import { useRevalidator } from "@remix-run/react";
import { useState, type FormEvent } from "react";
import { useToast } from "~/components/Toaster";
import { button } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { formatDateTime } from "~/lib/format";
import {
  MODERATION_PAGE,
  USER_SERVICE,
  type CursorPage,
  type ModerationComment,
} from "~/lib/moderation";

/** Notes moderators leave on an account (POST/GET /moderation-comments): moderators only. */
export function ModerationComments({
  uuid,
  first,
  canWrite,
}: {
  uuid: string;
  first: CursorPage<ModerationComment>;
  /** A moderator cannot keep notes on their own account (the API refuses). */
  canWrite: boolean;
}) {
  const t = useT();
  const locale = useLocale();
  const toast = useToast();
  const revalidator = useRevalidator();
  const [base, setBase] = useState(first);
  const [rows, setRows] = useState(first.data);
  const [next, setNext] = useState(first.nextBefore);
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  if (base !== first) {
    setBase(first);
    setRows(first.data);
    setNext(first.nextBefore);
  }
  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim() || busy) return;
    setBusy(true);
    try {
      await apiRequest(`${USER_SERVICE}/moderation-comments`, {
        method: "POST",
        json: { userUuid: uuid, comment: text.trim() },
      });
      setText("");
      toast.success(t("mod.commentAdded"));
      revalidator.revalidate();
    } catch (err) {
      toast.error(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };
  const more = async () => {
    if (next === null) return;
    try {
      const page = await apiRequest<CursorPage<ModerationComment>>(
        `${USER_SERVICE}/moderation-comments/${encodeURIComponent(uuid)}?limit=${MODERATION_PAGE}&before=${next}`,
      );
      setRows((r) => [...r, ...page.data]);
      setNext(page.nextBefore);
    } catch (err) {
      toast.error(errorText(err, t), more);
    }
  };

  return (
    <section
      aria-labelledby="mod-comments"
      className="rounded-2xl border border-line bg-panel/70 p-5"
    >
      <h2 id="mod-comments" className="text-lg font-bold text-white">
        {t("mod.comments")}
      </h2>
      <p className="text-sm text-ink-300">{t("mod.commentsHint")}</p>
      {canWrite && (
        <form onSubmit={add} className="mt-4 grid gap-2">
          <label htmlFor="mod-comment" className="text-sm font-semibold text-ink-50">
            {t("mod.commentLabel")}
          </label>
          <textarea
            id="mod-comment"
            value={text}
            onChange={(e) => setText(e.target.value)}
            maxLength={2000}
            rows={3}
            required
            className="block w-full rounded-xl border border-line bg-ink-900/70 px-3.5 py-2.5 text-base text-ink-50 focus:border-brand-light"
          />
          <button
            type="submit"
            disabled={busy}
            className={`${button("primary", "sm")} justify-self-end`}
          >
            {t("mod.commentAdd")}
          </button>
        </form>
      )}
      {rows.length === 0 ? (
        <p className="mt-3 text-sm text-ink-200">{t("mod.commentsEmpty")}</p>
      ) : (
        <ol className="mt-3 divide-y divide-line" data-testid="mod-comments">
          {rows.map((c) => (
            <li key={c.id} className="py-3">
              <p className="whitespace-pre-line break-words text-ink-50">{c.comment}</p>
              <p className="mt-1 text-xs text-ink-300">
                {t("mod.by", { name: c.authorNickname ?? t("mod.someone") })} ·{" "}
                {formatDateTime(c.createdAt, locale)}
              </p>
            </li>
          ))}
        </ol>
      )}
      {next !== null && (
        <button type="button" onClick={more} className={`${button("secondary", "sm")} mt-3`}>
          {t("mod.showMore")}
        </button>
      )}
    </section>
  );
}
