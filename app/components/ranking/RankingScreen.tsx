import type { loader } from "~/routes/ranking";
import { Link, useLoaderData, useNavigation } from "@remix-run/react";
import { ChevronLeft, ChevronRight, Crown, Trophy } from "lucide-react";
import { Avatar } from "~/components/Avatar";
import { AvatarArt } from "~/components/avatars/AvatarArt";
import { button, buttonClass, PageTitle } from "~/components/ui";
import { plural, useLocale, useT } from "~/i18n";
import { formatDate } from "~/lib/format";
import { RANKING_LAST_PAGE, RANKING_PAGE, type RankingRow, type Season } from "~/lib/points";

const MEDALS = ["#F5C542", "#C9D1E0", "#E0955A"];

function RankBadge({ rank }: { rank: number }) {
  const medal = rank <= 3 ? MEDALS[rank - 1] : null;
  return (
    <span
      className={`grid size-9 shrink-0 place-items-center rounded-full text-sm font-extrabold tabular-nums ${medal ? "text-ink-950" : "bg-white/8 text-ink-100"}`}
      style={medal ? { backgroundColor: medal } : undefined}
    >
      {rank === 1 ? <Crown aria-hidden className="size-4" /> : rank}
      {rank === 1 && <span className="sr-only">1</span>}
    </span>
  );
}

function Row({ row, mine, points }: { row: RankingRow; mine: boolean; points: string }) {
  const t = useT();
  const name = row.nickname ?? t("ranking.unknownUser");
  return (
    <li
      data-testid={mine ? "ranking-row-me" : "ranking-row"}
      aria-current={mine ? "true" : undefined}
      className={`flex items-center gap-3 px-3 py-2.5 sm:gap-4 sm:px-5 ${mine ? "bg-brand/20 ring-1 ring-inset ring-brand-light/60" : ""}`}
    >
      <RankBadge rank={row.rank} />
      {/* The avatar they wear, as in rooms (issue 20: "avatars with art"), else the initial. */}
      {row.avatarId ? (
        <AvatarArt slug={row.avatarId} size={36} className="max-[359px]:hidden" />
      ) : (
        <Avatar name={name} size={36} className="max-[359px]:hidden" />
      )}
      <span className="min-w-0 flex-1">
        {row.nickname ? (
          <Link
            to={`/profile/${row.userUuid}`}
            className="block truncate font-semibold text-white hover:underline"
          >
            {name}
          </Link>
        ) : (
          <span className="block truncate font-semibold text-ink-200">{name}</span>
        )}
      </span>
      {mine && (
        <span className="shrink-0 rounded-full bg-brand-light px-2 py-0.5 text-xs font-bold text-ink-950">
          {t("ranking.you")}
        </span>
      )}
      <span
        className="w-14 shrink-0 text-right font-bold tabular-nums text-white sm:w-24"
        data-testid="ranking-points"
      >
        {points}
      </span>
    </li>
  );
}

export function RankingScreen() {
  const t = useT();
  const locale = useLocale();
  const { scope, ranking, prev, next, page, signedIn } = useLoaderData<typeof loader>();
  const nav = useNavigation();
  const busy = nav.state === "loading" && nav.location.pathname === "/ranking";
  const num = new Intl.NumberFormat(locale);
  const pageCount = Math.max(
    1,
    Math.min(RANKING_LAST_PAGE, Math.ceil(ranking.total / RANKING_PAGE)),
  );
  const me = ranking.me ?? null;
  const meOnPage = !!me && ranking.data.some((r) => r.userUuid === me.userUuid);
  const season = ranking.season;
  const seasonHref = (s: Season) => `/ranking?season=${encodeURIComponent(s.name)}`;
  const pageHref = (p: number) => {
    const q = new URLSearchParams();
    if (scope === "lifetime") q.set("scope", "lifetime");
    else if (season) q.set("season", season.name);
    q.set("page", String(p));
    return `/ranking?${q}`;
  };
  const tab = (active: boolean) =>
    `rounded-full px-4 py-2 text-sm font-semibold transition ${active ? "bg-white text-ink-950" : "text-ink-100 hover:bg-white/10"}`;

  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <nav
          aria-label={t("ranking.scope")}
          className="flex rounded-full border border-white/15 bg-white/5 p-1"
        >
          <Link
            to="/ranking"
            className={tab(scope === "season")}
            aria-current={scope === "season" ? "page" : undefined}
          >
            {t("ranking.tabSeason")}
          </Link>
          <Link
            to="/ranking?scope=lifetime"
            className={tab(scope === "lifetime")}
            aria-current={scope === "lifetime" ? "page" : undefined}
          >
            {t("ranking.tabLifetime")}
          </Link>
        </nav>
        {scope === "season" && (prev || next) && (
          <nav aria-label={t("ranking.seasons")} className="flex gap-2">
            {prev && (
              <Link
                to={seasonHref(prev)}
                className={button("secondary", "sm")}
                rel="prev"
                data-testid="ranking-prev-season"
              >
                <ChevronLeft aria-hidden className="size-4" />
                {t("ranking.prevSeason")}
              </Link>
            )}
            {next && (
              <Link
                to={seasonHref(next)}
                className={button("secondary", "sm")}
                rel="next"
                data-testid="ranking-next-season"
              >
                {t("ranking.nextSeason")}
                <ChevronRight aria-hidden className="size-4" />
              </Link>
            )}
          </nav>
        )}
      </div>

      <header className="mt-8 flex items-start gap-4">
        <span className="grid size-14 shrink-0 place-items-center rounded-2xl bg-gradient-to-br from-brand to-[#FF4FA3] shadow-[0_0_32px_-8px] shadow-brand">
          <Trophy aria-hidden className="size-7 text-white" />
        </span>
        <div className="min-w-0">
          <PageTitle data-testid="ranking-heading">
            {scope === "lifetime"
              ? t("ranking.lifetimeHeading")
              : (season?.name ?? t("ranking.heading"))}
          </PageTitle>
          {season && (
            <p className="mt-1 text-ink-200">
              {t("ranking.dates", {
                start: formatDate(season.startDate, locale),
                end: formatDate(season.endDate, locale),
              })}
            </p>
          )}
          <p className="mt-2 text-sm text-ink-300">{t("ranking.lede")}</p>
        </div>
      </header>

      <section
        aria-label={t("ranking.yourRank")}
        className="mt-6 flex flex-wrap items-center justify-between gap-3 rounded-2xl border border-brand-light/40 bg-brand/10 px-5 py-4"
      >
        <span className="text-sm font-semibold uppercase tracking-wide text-brand-light">
          {t("ranking.yourRank")}
        </span>
        {!signedIn ? (
          <Link to="/login?redirectTo=/ranking" className={buttonClass.link}>
            {t("ranking.signInForRank")}
          </Link>
        ) : me ? (
          <span className="flex items-baseline gap-3" data-testid="ranking-my-rank">
            <span className="text-2xl font-extrabold text-white">
              {t("ranking.rankValue", { rank: me.rank })}
            </span>
            <span className="text-ink-100" data-testid="ranking-my-points" data-points={me.balance}>
              {plural(t, "ranking.pointsValue", me.balance, { points: num.format(me.balance) })}
            </span>
          </span>
        ) : (
          <span className="text-ink-100" data-testid="ranking-my-rank">
            {t("ranking.notRanked")}
          </span>
        )}
      </section>

      {scope === "season" && !season ? (
        <div
          className="mt-6 rounded-2xl border border-line bg-panel/70 px-6 py-10 text-center"
          data-testid="ranking-no-season"
        >
          <p className="text-lg font-semibold text-white">{t("ranking.noSeason")}</p>
          <p className="mt-1 text-ink-200">{t("ranking.noSeasonHint")}</p>
          <Link to="/ranking?scope=lifetime" className={`${buttonClass.secondary} mt-5`}>
            {t("ranking.tabLifetime")}
          </Link>
        </div>
      ) : (
        <div
          className={`mt-6 overflow-hidden rounded-2xl border border-line bg-panel/70 transition-opacity ${busy ? "opacity-60" : ""}`}
          aria-busy={busy}
        >
          <div className="flex items-center justify-between border-b border-line px-3 py-2.5 text-xs font-semibold uppercase tracking-wide text-ink-300 sm:px-5">
            <span>{t("ranking.col.dj")}</span>
            <span>{t("ranking.col.points")}</span>
          </div>
          {ranking.data.length === 0 ? (
            <p className="px-6 py-10 text-center text-ink-200">{t("ranking.empty")}</p>
          ) : (
            <ol
              className="divide-y divide-line"
              aria-label={t("ranking.total", { total: num.format(ranking.total) })}
            >
              {ranking.data.map((r) => (
                <Row
                  key={r.userUuid}
                  row={r}
                  mine={r.userUuid === me?.userUuid}
                  points={num.format(r.balance)}
                />
              ))}
            </ol>
          )}
          {me && !meOnPage && (
            <div className="border-t border-dashed border-white/20">
              <p className="px-5 pt-2 text-xs text-ink-300">{t("ranking.offPage")}</p>
              <ol>
                <Row row={me} mine points={num.format(me.balance)} />
              </ol>
            </div>
          )}
        </div>
      )}

      {(season || scope === "lifetime") && pageCount > 1 && (
        <nav
          aria-label={t("ranking.pagination")}
          className="mt-5 flex items-center justify-between gap-3"
        >
          {page > 1 ? (
            <Link to={pageHref(page - 1)} className={buttonClass.secondary} rel="prev">
              <ChevronLeft aria-hidden className="size-4" />
              {t("ranking.prevPage")}
            </Link>
          ) : (
            <span />
          )}
          <p className="text-sm text-ink-200">{t("ranking.pageOf", { page, pageCount })}</p>
          {page < pageCount ? (
            <Link to={pageHref(page + 1)} className={buttonClass.secondary} rel="next">
              {t("ranking.nextPage")}
              <ChevronRight aria-hidden className="size-4" />
            </Link>
          ) : (
            <span />
          )}
        </nav>
      )}
    </div>
  );
}
