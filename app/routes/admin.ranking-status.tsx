import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { POINTS_API, type RankingStatusRow, type Season } from "~/lib/points";
import type { Paged } from "~/lib/types";
import { RankingStatusScreen } from "~/components/admin/RankingStatusScreen";

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
  return <RankingStatusScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
