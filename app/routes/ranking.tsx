import { data, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import {
  POINTS_API,
  RANKING_LAST_PAGE,
  RANKING_PAGE,
  type Ranking,
  type Season,
} from "~/lib/points";
import { getToken } from "~/lib/session.server";
import { RankingScreen } from "~/components/ranking/RankingScreen";

export const meta = pageMeta("ranking.title");

type Args = LoaderFunctionArgs;

/** The season before or after `season` (by start), or null: the page's season links. */
async function beside(args: Args, start: string, dir: "prev" | "next"): Promise<Season | null> {
  const res = await callApi<Ranking>(
    args,
    `${POINTS_API}/points/season-ranking/${dir}-season/${encodeURIComponent(start)}?take=1`,
  );
  return res.ok ? res.data.season : null;
}

/**
 * The current season's ranking, 20 a page (`?page=`), or a named season (`?season=`), or
 * the all-time board (`?scope=lifetime`). A signed-in reader also gets their own row (the
 * API's `me`), shown even when it is off the page.
 */
export async function loader(args: Args) {
  const url = new URL(args.request.url);
  const scope = url.searchParams.get("scope") === "lifetime" ? "lifetime" : "season";
  const seasonName = url.searchParams.get("season");
  const page = Math.max(
    1,
    Math.min(RANKING_LAST_PAGE, Number.parseInt(url.searchParams.get("page") ?? "1", 10) || 1),
  );
  const q = `take=${RANKING_PAGE}&skip=${(page - 1) * RANKING_PAGE}`;
  const path =
    scope === "lifetime"
      ? `/points/all-seasons-ranking?${q}`
      : seasonName
        ? `/points/season-ranking/${encodeURIComponent(seasonName)}?${q}`
        : `/points/season-ranking?${q}`;
  const token = getToken(args);
  let res = await callApi<Ranking>(args, `${POINTS_API}${path}`, { token });
  // A stale session must not hide a public page: read it as a guest.
  if (!res.ok && res.status === 401) res = await callApi<Ranking>(args, `${POINTS_API}${path}`);
  if (!res.ok) throw data({ message: res.generic ? null : res.message }, { status: res.status });
  const ranking = res.data;
  const anchor = ranking.season?.startDate ?? new Date().toISOString();
  const [prev, next] =
    scope === "lifetime"
      ? [null, null]
      : await Promise.all([
          beside(args, anchor, "prev"),
          ranking.season ? beside(args, anchor, "next") : null,
        ]);
  return { scope, ranking, prev, next, page, signedIn: ranking.me !== undefined };
}

export default function RankingPage() {
  return <RankingScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
