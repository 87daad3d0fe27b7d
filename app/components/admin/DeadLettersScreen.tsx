import type { action, ActionResult, loader } from "~/routes/admin.points-dead-letters";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { RotateCcw, Trash2 } from "lucide-react";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminPager } from "~/components/admin/AdminPager";
import { AdminTable } from "~/components/admin/AdminTable";
import { Alert, PageTitle, SubmitButton, button, usePending } from "~/components/ui";
import { plural, useLocale, useT } from "~/i18n";
import { formatDateTime } from "~/lib/format";
import type { DeadLetter, DeadLetterStatus } from "~/lib/points";

const STATUS_STYLE: Record<DeadLetterStatus, string> = {
  dead: "bg-danger/20 text-danger",
  invalid: "bg-focus/15 text-focus",
  replayed: "bg-success/20 text-success",
  discarded: "bg-white/10 text-ink-200",
};

/** Replay and discard for one row: small forms, so they work before the page hydrates. */
/** One row's action button (replay or discard): a form of its own posting the row's id. */
function RowAction({
  row,
  intent,
  busy,
}: {
  row: DeadLetter;
  intent: "replay" | "discard";
  busy: boolean;
}) {
  const t = useT();
  const Icon = intent === "replay" ? RotateCcw : Trash2;
  return (
    <Form method="post">
      <input type="hidden" name="id" value={row.id} />
      <button
        type="submit"
        name="intent"
        value={intent}
        disabled={busy}
        className={`relative ${button("ghost")} ${intent === "discard" ? "hover:text-danger" : ""}`}
        aria-label={t(`deadLetters.${intent}One`, { event: row.eventId ?? row.id })}
        title={t(`deadLetters.${intent}`)}
        data-testid={`dead-letter-${intent}`}
      >
        <Icon aria-hidden className="size-4" />
        <span className="sr-only">{t(`deadLetters.${intent}`)}</span>
      </button>
    </Form>
  );
}

function RowActions({ row }: { row: DeadLetter }) {
  const nav = useNavigation();
  const busy = nav.state === "submitting" && nav.formData?.get("id") === String(row.id);
  return (
    <div className="mt-1 flex gap-1 max-sm:-ml-2.5 sm:-ml-2.5">
      {row.status !== "invalid" && <RowAction row={row} intent="replay" busy={busy} />}
      {row.status !== "discarded" && <RowAction row={row} intent="discard" busy={busy} />}
    </div>
  );
}

/** What the last action did: replayed and skipped counts, a discard, or the API's error. */
function ResultNote({ result }: { result?: ActionResult }) {
  const t = useT();
  if (!result || (!result.ok && !result.error)) return null;
  if (result.error) return <Alert error={result.error} />;
  if (result.intent === "discard") return <Alert success>{t("deadLetters.discarded")}</Alert>;
  return (
    <Alert success={!result.skipped?.length}>
      <p>{plural(t, "deadLetters.replayed", result.replayed ?? 0)}</p>
      {!!result.skipped?.length && (
        <ul className="mt-1 list-disc pl-5 text-ink-200">
          {result.skipped.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
    </Alert>
  );
}

export function DeadLettersScreen() {
  const t = useT();
  const locale = useLocale();
  const {
    data: rows,
    total,
    counts,
    statuses,
    status,
    page,
    pageCount,
  } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionResult | undefined;
  const nav = useNavigation();
  const loading = nav.state === "loading" && nav.location.pathname === "/admin/points-dead-letters";
  const replayingAll = usePending("replayShown");
  const replayable = rows.filter((r) => r.status !== "invalid");
  const num = new Intl.NumberFormat(locale);
  const all = Object.values(counts).reduce((n, c) => n + c, 0);
  const tab = (to: string, label: string, active: boolean) => (
    <Link
      to={to}
      aria-current={active ? "page" : undefined}
      className={`block whitespace-nowrap rounded-full px-3.5 py-1.5 text-sm font-semibold transition ${active ? "bg-white text-ink-950" : "text-ink-100 hover:bg-white/10"}`}
    >
      {label}
    </Link>
  );

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <PageTitle>{t("deadLetters.heading")}</PageTitle>
        <p className="text-ink-200" data-testid="dead-letters-total">
          {t("deadLetters.total", { total: num.format(total) })}
        </p>
      </div>
      <p className="mt-2 max-w-3xl text-ink-200">{t("deadLetters.lede")}</p>

      <div className="mt-6 flex flex-wrap items-center justify-between gap-3">
        <nav aria-label={t("deadLetters.filter")} className="min-w-0 max-w-full overflow-x-auto">
          <ul className="flex gap-1">
            <li>{tab("?", `${t("deadLetters.all")} (${num.format(all)})`, !status)}</li>
            {statuses.map((s) => (
              <li key={s}>
                {tab(
                  `?status=${s}`,
                  `${t(`deadLetters.status.${s}`)} (${num.format(counts[s])})`,
                  status === s,
                )}
              </li>
            ))}
          </ul>
        </nav>
        {replayable.length > 0 && (
          <Form method="post">
            {replayable.map((r) => (
              <input key={r.id} type="hidden" name="id" value={r.id} />
            ))}
            <SubmitButton
              label="deadLetters.replayShown"
              pendingLabel="deadLetters.replaying"
              intent="replayShown"
              variant="secondary"
            />
          </Form>
        )}
      </div>

      <div className="mt-4" aria-live="polite">
        <ResultNote result={result} />
      </div>

      <AdminTable
        label={t("deadLetters.heading")}
        columns={[
          { label: t("deadLetters.col.user") },
          { label: t("deadLetters.col.points"), align: "right" },
          { label: t("deadLetters.col.source") },
          { label: t("deadLetters.col.occurred") },
          { label: t("deadLetters.col.died") },
          { label: t("deadLetters.col.attempts"), align: "right" },
          { label: t("deadLetters.col.error") },
          { label: t("deadLetters.col.status") },
        ]}
        empty={t(status ? "deadLetters.emptyStatus" : "deadLetters.empty")}
        isEmpty={rows.length === 0}
        busy={loading || replayingAll}
        minWidth="min-w-[60rem]"
      >
        {rows.map((r) => (
          <tr
            key={r.id}
            className="align-top transition hover:bg-white/5"
            data-testid="dead-letter-row"
          >
            <td className="px-4 py-3">
              {r.userUuid ? (
                <Link
                  to={`/admin/users/${r.userUuid}`}
                  className="block max-w-[18ch] truncate font-semibold text-white hover:underline"
                  title={r.userUuid}
                >
                  {r.nickname ?? r.userUuid}
                </Link>
              ) : (
                <span className="text-ink-300">—</span>
              )}
              <p className="max-w-[22ch] truncate text-xs text-ink-300" title={r.eventId ?? ""}>
                {r.eventId ?? t("deadLetters.noEventId")}
              </p>
            </td>
            <td className="px-4 py-3 text-right font-bold tabular-nums text-white">
              {r.points === null ? "—" : num.format(r.points)}
            </td>
            <td className="px-4 py-3 text-ink-100">{r.source ?? "—"}</td>
            <td className="min-w-[9rem] px-3 py-3 text-ink-200">
              {r.occurredAt ? formatDateTime(r.occurredAt, locale) : "—"}
            </td>
            <td className="min-w-[9rem] px-3 py-3 text-ink-200">
              {formatDateTime(r.deadAt, locale)}
              {r.deadCount > 1 && (
                <p className="text-xs text-ink-300">
                  {plural(t, "deadLetters.deadTimes", r.deadCount)}
                </p>
              )}
            </td>
            <td className="px-4 py-3 text-right tabular-nums text-ink-100">{r.attempts || "—"}</td>
            <td className="px-4 py-3">
              <details className="w-[14rem] text-ink-200">
                <summary className="cursor-pointer truncate">
                  {r.lastError ?? t("deadLetters.noError")}
                </summary>
                <p className="mt-1 break-words text-xs [overflow-wrap:anywhere]">{r.lastError}</p>
                <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap break-all rounded-lg bg-ink-900/70 p-2 text-xs text-ink-100">
                  {r.body}
                </pre>
              </details>
            </td>
            <td className="px-4 py-3">
              <span
                className={`rounded-full px-2 py-0.5 text-xs font-semibold ${STATUS_STYLE[r.status]}`}
              >
                {t(`deadLetters.status.${r.status}`)}
              </span>
              {r.replayCount > 0 && (
                <p className="mt-1 text-xs text-ink-300">
                  {plural(t, "deadLetters.replayedTimes", r.replayCount)}
                </p>
              )}
              <RowActions row={r} />
            </td>
          </tr>
        ))}
      </AdminTable>

      <AdminPager page={page} pageCount={pageCount} />
    </div>
  );
}
