import { Link } from "@remix-run/react";
import { useState } from "react";
import { button } from "~/components/ui";
import { useLocale, useT, type MessageKey } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { formatDateTime } from "~/lib/format";
import { useToast } from "~/components/Toaster";
import {
  MODERATION_PAGE,
  USER_SERVICE,
  type CursorPage,
  type ModerationActionDto,
} from "~/lib/moderation";

/** The account's moderation history, newest first, a page at a time (a `before` cursor). */
export function ModerationHistory({
  uuid,
  first,
  names,
}: {
  uuid: string;
  first: CursorPage<ModerationActionDto>;
  names: Record<string, string>;
}) {
  const t = useT();
  const locale = useLocale();
  const toast = useToast();
  const [base, setBase] = useState(first);
  const [rows, setRows] = useState(first.data);
  const [next, setNext] = useState(first.nextBefore);
  const [busy, setBusy] = useState(false);
  // A revalidation (after an action) starts again from the newest page.
  if (base !== first) {
    setBase(first);
    setRows(first.data);
    setNext(first.nextBefore);
  }
  const more = async () => {
    if (next === null) return;
    setBusy(true);
    try {
      const page = await apiRequest<CursorPage<ModerationActionDto>>(
        `${USER_SERVICE}/users/${encodeURIComponent(uuid)}/moderation-history?limit=${MODERATION_PAGE}&before=${next}`,
      );
      setRows((r) => [...r, ...page.data]);
      setNext(page.nextBefore);
    } catch (err) {
      toast.error(errorText(err, t), more);
    } finally {
      setBusy(false);
    }
  };
  const who = (actor: string) =>
    actor === "service" ? (
      t("mod.service")
    ) : (
      <Link to={`/profile/${actor}`} className="font-semibold text-white hover:underline">
        {names[actor] ?? actor.slice(0, 8)}
      </Link>
    );

  return (
    <section
      aria-labelledby="mod-history"
      className="rounded-2xl border border-line bg-panel/70 p-5"
    >
      <h2 id="mod-history" className="text-lg font-bold text-white">
        {t("mod.history")}
      </h2>
      {rows.length === 0 ? (
        <p className="mt-3 text-sm text-ink-200">{t("mod.historyEmpty")}</p>
      ) : (
        <ol className="mt-3 divide-y divide-line" data-testid="mod-history">
          {rows.map((a) => (
            <li key={a.uuid} className="py-3" data-testid="mod-history-row">
              <div className="flex flex-wrap items-baseline justify-between gap-x-3">
                <p className="font-semibold text-white">
                  {t(`mod.type.${a.actionType}` as MessageKey)}
                  {a.role ? ` · ${t(`role.${a.role}` as MessageKey)}` : ""}
                </p>
                <time dateTime={a.createdAt} className="text-xs text-ink-300">
                  {formatDateTime(a.createdAt, locale)}
                </time>
              </div>
              <p className="text-sm text-ink-200">
                {t("mod.by", { name: "" }).trim()} {who(a.actorUuid)}
                {a.until
                  ? ` · ${t("mod.bannedUntil", { until: formatDateTime(a.until, locale) })}`
                  : ""}
              </p>
              {a.reason && (
                <p className="mt-1 break-words text-sm text-ink-100">
                  {t("mod.banReason", { reason: a.reason })}
                </p>
              )}
              {a.details && a.actionType !== "deactivate" && (
                <code className="mt-1 block break-all font-mono text-xs text-ink-300">
                  {JSON.stringify(a.details)}
                </code>
              )}
            </li>
          ))}
        </ol>
      )}
      {next !== null && (
        <button
          type="button"
          onClick={more}
          disabled={busy}
          className={`${button("secondary", "sm")} mt-3`}
        >
          {t("mod.showMore")}
        </button>
      )}
    </section>
  );
}
