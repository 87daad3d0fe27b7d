import type { loader } from "~/routes/admin.ranking-status";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { AdminSearchButton } from "~/components/admin/AdminSearchButton";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminTable } from "~/components/admin/AdminTable";
import { Avatar } from "~/components/Avatar";
import { AdminPager } from "~/components/admin/AdminPager";
import { Field, PageTitle, Select } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatDateTime } from "~/lib/format";

export function RankingStatusScreen() {
  const t = useT();
  const locale = useLocale();
  const {
    seasons,
    scope,
    user,
    badUser,
    data: rows,
    total,
    page,
    pageCount,
  } = useLoaderData<typeof loader>();
  const nav = useNavigation();
  const busy = nav.state === "loading" && nav.location.pathname === "/admin/ranking-status";
  const num = new Intl.NumberFormat(locale);
  const seasonName = (id?: number) =>
    seasons.find((s) => s.id === id)?.name ??
    (id === undefined ? t("rankingStatus.lifetime") : `#${id}`);

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <PageTitle>{t("rankingStatus.heading")}</PageTitle>
        <p className="text-ink-200" data-testid="ranking-status-total">
          {t("rankingStatus.total", { total: num.format(total) })}
        </p>
      </div>

      <Form
        method="get"
        role="search"
        className="mt-6 grid gap-3 rounded-2xl border border-line bg-panel/70 p-4 sm:grid-cols-[16rem_1fr_auto] sm:items-end"
      >
        <Select
          label={t("rankingStatus.filter")}
          name="scope"
          defaultValue={scope}
          key={`scope-${scope}`}
        >
          {seasons.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
          <option value="lifetime">{t("rankingStatus.lifetime")}</option>
        </Select>
        <Field
          label={t("rankingStatus.user")}
          name="user"
          type="search"
          defaultValue={user}
          key={`u-${user}`}
          error={badUser ? t("rankingStatus.invalidUser") : null}
        />
        <AdminSearchButton busy={busy} />
      </Form>

      <AdminTable
        label={t("rankingStatus.heading")}
        columns={[
          { label: t("rankingStatus.col.user") },
          { label: t("rankingStatus.col.season") },
          { label: t("rankingStatus.col.balance"), align: "right" },
          { label: t("rankingStatus.col.updated") },
        ]}
        empty={t("rankingStatus.empty")}
        isEmpty={rows.length === 0}
        busy={busy}
        minWidth="min-w-[36rem]"
      >
        {rows.map((r) => (
          <tr key={r.id} className="transition hover:bg-white/5" data-testid="ranking-status-row">
            <td className="px-4 py-3">
              <Link
                to={`/admin/users/${r.userUuid}`}
                className="flex items-center gap-3 font-semibold text-white hover:underline"
              >
                <Avatar name={r.nickname ?? "?"} size={28} />
                <span className="max-w-[22ch] truncate">{r.nickname ?? r.userUuid}</span>
              </Link>
            </td>
            <td className="px-4 py-3 text-ink-100">{seasonName(r.seasonId)}</td>
            <td className="px-4 py-3 text-right font-bold tabular-nums text-white">
              {num.format(r.balance)}
            </td>
            <td className="whitespace-nowrap px-4 py-3 text-ink-200">
              {formatDateTime(r.updatedAt, locale)}
            </td>
          </tr>
        ))}
      </AdminTable>

      <AdminPager page={page} pageCount={pageCount} />
    </div>
  );
}
