import type { action, ActionResult, loader } from "~/routes/admin.seasons";
import { Form, Link, useActionData, useLoaderData, useSubmit } from "@remix-run/react";
import { CalendarPlus, Pencil, Trash2, Trophy, X } from "lucide-react";
import { useEffect, useState } from "react";
import { AdminNav } from "~/components/admin/AdminNav";
import { ConfirmDialog } from "~/components/Dialog";
import { Alert, Field, IconButton, SubmitButton, button, PageTitle } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatDateTime } from "~/lib/format";
import { toLocalInput, type Season } from "~/lib/points";

const STATUS_STYLE = {
  current: "bg-success/20 text-success",
  upcoming: "bg-brand/25 text-brand-light",
  ended: "bg-white/10 text-ink-200",
} as const;

function SeasonFields({ season, result }: { season?: Season; result?: ActionResult }) {
  const t = useT();
  const err = (k: "name" | "startDate" | "endDate") =>
    result?.fieldErrors?.[k] ? t(result.fieldErrors[k]!) : null;
  return (
    <>
      <Field
        label={t("seasons.name")}
        name="name"
        defaultValue={season?.name}
        required
        maxLength={100}
        error={err("name")}
      />
      <Field
        label={t("seasons.start")}
        name="startDate"
        type="datetime-local"
        defaultValue={season ? toLocalInput(season.startDate) : undefined}
        required
        error={err("startDate")}
      />
      <Field
        label={t("seasons.end")}
        name="endDate"
        type="datetime-local"
        defaultValue={season ? toLocalInput(season.endDate) : undefined}
        required
        error={err("endDate")}
      />
      {season && (
        <>
          <input type="hidden" name="id" value={season.id} />
          <input type="hidden" name="origName" value={season.name} />
          <input type="hidden" name="origStart" value={toLocalInput(season.startDate)} />
          <input type="hidden" name="origEnd" value={toLocalInput(season.endDate)} />
        </>
      )}
    </>
  );
}

export function SeasonsScreen() {
  const t = useT();
  const locale = useLocale();
  const { seasons, total, now } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionResult | undefined;
  const submit = useSubmit();
  const [editing, setEditing] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<Season | null>(null);
  const [createKey, setCreateKey] = useState(0);
  useEffect(() => {
    if (result?.ok && result.intent === "update") setEditing(null);
    if (result?.ok && result.intent === "create") setCreateKey((k) => k + 1); // a fresh, empty form
  }, [result]);
  const status = (s: Season) =>
    Date.parse(s.endDate) <= now
      ? "ended"
      : Date.parse(s.startDate) <= now
        ? "current"
        : "upcoming";
  const createResult = result?.intent === "create" ? result : undefined;

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <PageTitle>{t("seasons.heading")}</PageTitle>
        <p className="text-ink-200">{t("seasons.total", { total })}</p>
      </div>
      <p className="mt-2 max-w-3xl text-ink-200">{t("seasons.lede")}</p>

      <section
        aria-labelledby="new-season"
        className="mt-6 rounded-2xl border border-line bg-panel/70 p-5"
      >
        <h2 id="new-season" className="flex items-center gap-2 text-lg font-bold text-white">
          <CalendarPlus aria-hidden className="size-5 text-brand-light" />
          {t("seasons.new")}
        </h2>
        <Form
          method="post"
          key={createKey}
          className="mt-4 grid gap-3 lg:grid-cols-[1fr_16rem_16rem_auto] lg:items-start"
          data-testid="season-create"
        >
          <SeasonFields result={createResult} />
          <SubmitButton
            label="seasons.createButton"
            pendingLabel="seasons.creating"
            intent="create"
            className="lg:mt-7"
          />
        </Form>
        <div className="mt-3" aria-live="polite">
          {createResult?.error && <Alert error={createResult.error} />}
          {createResult?.ok && <Alert success>{t("seasons.created")}</Alert>}
        </div>
      </section>

      {result?.intent !== "create" && (result?.error || result?.ok) && (
        <div className="mt-4" aria-live="polite">
          {result.error ? (
            <Alert error={result.error} />
          ) : (
            <Alert success>
              {t(result.intent === "delete" ? "seasons.deleted" : "seasons.saved")}
            </Alert>
          )}
        </div>
      )}

      <ul
        className="mt-6 divide-y divide-line overflow-hidden rounded-2xl border border-line bg-panel/70"
        aria-label={t("seasons.heading")}
      >
        {seasons.length === 0 && (
          <li className="px-5 py-10 text-center text-ink-200">{t("seasons.empty")}</li>
        )}
        {seasons.map((s) => {
          const st = status(s);
          const rowResult =
            result?.intent === "update" && result.id === String(s.id) ? result : undefined;
          return (
            <li key={s.id} className="px-4 py-4 sm:px-5" data-testid="season-row">
              {editing === s.id ? (
                <Form
                  method="post"
                  className="grid gap-3 lg:grid-cols-[1fr_16rem_16rem_auto_auto] lg:items-start"
                >
                  <SeasonFields season={s} result={rowResult} />
                  <SubmitButton
                    label="seasons.save"
                    pendingLabel="seasons.saving"
                    intent="update"
                    className="lg:mt-7"
                  />
                  <button
                    type="button"
                    className={`${button("ghost")} lg:mt-7`}
                    onClick={() => setEditing(null)}
                  >
                    <X aria-hidden className="size-4" />
                    {t("seasons.cancel")}
                  </button>
                </Form>
              ) : (
                <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
                  <div className="w-full min-w-0 sm:w-auto sm:flex-1">
                    <p className="flex flex-wrap items-center gap-2">
                      <span className="break-words text-base font-semibold text-white [overflow-wrap:anywhere]">
                        {s.name}
                      </span>
                      <span
                        className={`rounded-full px-2 py-0.5 text-xs font-semibold ${STATUS_STYLE[st]}`}
                      >
                        {t(`seasons.status.${st}`)}
                      </span>
                    </p>
                    <p className="mt-0.5 text-sm text-ink-200">
                      {formatDateTime(s.startDate, locale)} – {formatDateTime(s.endDate, locale)}
                    </p>
                  </div>
                  <Link
                    to={`/ranking?season=${encodeURIComponent(s.name)}`}
                    className={`${button("ghost")} max-sm:-ml-2.5 sm:ml-0`}
                  >
                    <Trophy aria-hidden className="size-4" />
                    {t("seasons.viewRanking")}
                  </Link>
                  <IconButton
                    label={t("seasons.edit", { name: s.name })}
                    onClick={() => setEditing(s.id)}
                  >
                    <Pencil aria-hidden className="size-4" />
                  </IconButton>
                  <IconButton
                    label={`${t("seasons.delete")} ${s.name}`}
                    onClick={() => setDeleting(s)}
                    danger
                  >
                    <Trash2 aria-hidden className="size-4" />
                  </IconButton>
                </div>
              )}
            </li>
          );
        })}
      </ul>

      <ConfirmDialog
        open={!!deleting}
        title={t("seasons.delete")}
        confirmLabel={t("seasons.delete")}
        danger
        onConfirm={() => {
          if (deleting) submit({ intent: "delete", id: String(deleting.id) }, { method: "post" });
          setDeleting(null);
        }}
        onClose={() => setDeleting(null)}
      >
        {t("seasons.confirmDelete", { name: deleting?.name ?? "" })}
      </ConfirmDialog>
    </div>
  );
}
