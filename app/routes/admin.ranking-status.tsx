import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { AdminSearchButton } from "~/components/admin/AdminSearchButton";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminTable } from "~/components/admin/AdminTable";
import { Avatar } from "~/components/Avatar";
import { AdminPager } from "~/components/admin/AdminPager";
import { Field, PageTitle, Select } from "~/components/ui";
import { pageMeta, useLocale, useT } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { formatDateTime } from "~/lib/format";
import { POINTS_API, type RankingStatusRow, type Season } from "~/lib/points";
import type { Paged } from "~/lib/types";

export const meta = pageMeta("rankingStatus.title");

const PAGE_SIZE = 25;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The ranking status mirrors for admins: one season's rows (`/admin/ranking-status` with
 * `seasonId`) or the lifetime ones (`/admin/ranking-status-lifetime`), optionally one
 * user's, highest balance first.
 */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const url = new URL(args.request.url);
  const seasonsRes = await callApi<Paged<Season>>(
    args,
    `${POINTS_API}/admin/seasons?sort=startDate,DESC&limit=100`,
    { token },
  );
  if (!seasonsRes.ok) adminFailure(args.request, seasonsRes);
  const seasons = seasonsRes.data.data;
  const now = Date.now();
  const running = seasons.find(
    (s) => Date.parse(s.startDate) <= now && now < Date.parse(s.endDate),
  );
  const scope =
    url.searchParams.get("scope") ?? String(running?.id ?? seasons[0]?.id ?? "lifetime");
  const user = (url.searchParams.get("user") ?? "").trim();
  const badUser = !!user && !UUID.test(user);
  const page = Math.max(1, Number.parseInt(url.searchParams.get("page") ?? "1", 10) || 1);

  const q = new URLSearchParams({
    limit: String(PAGE_SIZE),
    page: String(page),
    sort: "balance,DESC",
  });
  if (user && !badUser) q.set("userUuid", user);
  const lifetime = scope === "lifetime" || !seasons.some((s) => String(s.id) === scope);
  if (!lifetime) q.set("seasonId", scope);
  const res = await callApi<Paged<RankingStatusRow>>(
    args,
    `${POINTS_API}/admin/${lifetime ? "ranking-status-lifetime" : "ranking-status"}?${q}`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return {
    seasons,
    scope: lifetime ? "lifetime" : scope,
    user,
    badUser,
    ...res.data,
    page: res.data.page || page,
    pageCount: Math.max(1, res.data.pageCount || 1),
  };
}

export default function AdminRankingStatus() {
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

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
