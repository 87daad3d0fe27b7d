import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { ChevronDown, ChevronRight, ShieldOff } from "lucide-react";
import { Fragment, useState } from "react";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminPager } from "~/components/admin/AdminPager";
import { AdminSearchButton } from "~/components/admin/AdminSearchButton";
import { AdminTable } from "~/components/admin/AdminTable";
import { DetailRow } from "~/components/admin/DetailRow";
import { Field, PageTitle, Select } from "~/components/ui";
import { plural, useLocale, useT } from "~/i18n";
import { formatDateTime } from "~/lib/format";
import { AUDIT_PAGE, type AuditEvent } from "~/lib/moderation";
import type { loader } from "~/routes/admin.audit";

/** The admin audit trail (issue 15): filters, newest events first, each one's details on demand. */
export function AuditScreen() {
  const t = useT();
  const locale = useLocale();
  const d = useLoaderData<typeof loader>();
  const nav = useNavigation();
  const busy = nav.state === "loading" && nav.location.pathname === "/admin/audit";
  const [openId, setOpenId] = useState<number | null>(null);
  const topics =
    d.filters.topic && !d.topics.includes(d.filters.topic)
      ? [d.filters.topic, ...d.topics]
      : d.topics;
  const who = (uuid: string | null) =>
    uuid ? (
      <Link to={`/moderation/${uuid}`} className="font-semibold text-white hover:underline">
        {d.names[uuid] ?? uuid.slice(0, 8)}
      </Link>
    ) : (
      <span className="text-ink-300">—</span>
    );
  const place = (e: AuditEvent) =>
    [e.city, e.region, e.country].filter(Boolean).join(", ") || t("audit.unknownPlace");

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <PageTitle>{t("audit.title")}</PageTitle>
        {d.available && (
          <p className="text-ink-200" data-testid="audit-total">
            {plural(t, "audit.total", d.total)}
          </p>
        )}
      </div>

      <Form
        method="get"
        role="search"
        className="mt-6 grid gap-3 rounded-2xl border border-line bg-panel/70 p-4 sm:grid-cols-2 lg:grid-cols-[1fr_14rem_12rem_12rem_auto] lg:items-end"
      >
        <Field
          label={t("audit.user")}
          name="user"
          defaultValue={d.filters.user}
          key={`u-${d.filters.user}`}
        />
        <Select
          label={t("audit.topic")}
          name="topic"
          defaultValue={d.filters.topic}
          key={`t-${d.filters.topic}`}
        >
          <option value="">{t("audit.allTopics")}</option>
          {topics.map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </Select>
        <Field
          label={t("audit.from")}
          name="from"
          type="datetime-local"
          defaultValue={d.filters.from}
        />
        <Field label={t("audit.to")} name="to" type="datetime-local" defaultValue={d.filters.to} />
        <AdminSearchButton busy={busy} />
      </Form>

      {d.unknownUser && (
        <p className="mt-4 text-ink-100" role="status">
          {t("audit.noUser", { name: d.filters.user })}
        </p>
      )}

      {!d.available ? (
        <div
          className="mt-6 grid place-items-center rounded-2xl border border-line bg-panel/70 px-6 py-14 text-center"
          data-testid="audit-unavailable"
        >
          <ShieldOff aria-hidden className="size-10 text-ink-300" />
          <h2 className="mt-3 text-xl font-bold text-white">{t("audit.unavailable")}</h2>
          <p className="mt-2 max-w-md text-ink-200">{t("audit.unavailableBody")}</p>
        </div>
      ) : (
        <>
          <AdminTable
            label={t("audit.title")}
            columns={[
              { label: t("audit.col.time") },
              { label: t("audit.col.topic") },
              { label: t("audit.col.actor") },
              { label: t("audit.col.target") },
              { label: t("audit.col.place") },
            ]}
            empty={t("audit.empty")}
            isEmpty={d.events.length === 0}
            busy={busy}
            minWidth="min-w-[48rem]"
          >
            {d.events.map((e) => {
              const open = openId === e.id;
              return (
                <Fragment key={e.id}>
                  <tr className="transition hover:bg-white/5" data-testid="audit-row">
                    <td className="whitespace-nowrap px-4 py-3 text-ink-100">
                      <button
                        type="button"
                        aria-expanded={open}
                        aria-controls={`audit-${e.id}`}
                        onClick={() => setOpenId(open ? null : e.id)}
                        className="inline-flex items-center gap-1.5 rounded-lg text-left hover:text-white"
                      >
                        {open ? (
                          <ChevronDown aria-hidden className="size-4" />
                        ) : (
                          <ChevronRight aria-hidden className="size-4" />
                        )}
                        <span className="sr-only">{t("audit.details")}</span>
                        {formatDateTime(e.occurredAt, locale)}
                      </button>
                    </td>
                    <td className="px-4 py-3">
                      <code className="font-mono text-xs text-ink-50">{e.topic}</code>
                    </td>
                    <td className="px-4 py-3">{who(e.actorUuid ?? e.userUuid)}</td>
                    <td className="px-4 py-3">{who(e.targetUuid)}</td>
                    <td className="px-4 py-3 text-ink-100">{place(e)}</td>
                  </tr>
                  {open && (
                    <tr id={`audit-${e.id}`} className="bg-ink-900/50">
                      <td colSpan={5} className="px-4 pb-4">
                        <dl className="divide-y divide-line">
                          <DetailRow label={t("audit.eventId")}>
                            <code className="break-all font-mono text-xs">{e.eventId}</code>
                          </DetailRow>
                          <DetailRow label={t("audit.userField")}>{who(e.userUuid)}</DetailRow>
                          <DetailRow label={t("audit.col.actor")}>{who(e.actorUuid)}</DetailRow>
                          <DetailRow label={t("audit.col.target")}>{who(e.targetUuid)}</DetailRow>
                          <DetailRow label={t("audit.col.place")}>{place(e)}</DetailRow>
                          <DetailRow label={t("audit.requestId")}>
                            <code className="break-all font-mono text-xs">
                              {e.requestId ?? "—"}
                            </code>
                          </DetailRow>
                          <DetailRow label={t("audit.data")}>
                            <pre className="max-h-80 overflow-auto whitespace-pre-wrap break-all rounded-xl bg-ink-950/70 p-3 font-mono text-xs text-ink-50">
                              {JSON.stringify(e.data, null, 2)}
                            </pre>
                          </DetailRow>
                        </dl>
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </AdminTable>
          <AdminPager page={d.page} pageCount={Math.max(1, Math.ceil(d.total / AUDIT_PAGE))} />
        </>
      )}
    </div>
  );
}
