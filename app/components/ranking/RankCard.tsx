import { Link } from "@remix-run/react";
import { Trophy } from "lucide-react";
import { plural, useLocale, useT } from "~/i18n";
import type { MyStanding } from "~/lib/points";

/** A user's rank this season and all time, under their profile, with a way to the ranking. */
export function RankCard({ standing }: { standing: MyStanding }) {
  const t = useT();
  const locale = useLocale();
  const num = new Intl.NumberFormat(locale);
  const cell = (
    label: string,
    sub: string | null,
    value: { balance: number; rank: number | null } | null,
    testId: string,
  ) => (
    <div className="min-w-0 rounded-2xl bg-white/5 px-4 py-3" data-testid={testId}>
      <p className="text-xs font-semibold uppercase tracking-wide text-ink-300">{label}</p>
      {sub && <p className="truncate text-sm text-ink-200">{sub}</p>}
      {value ? (
        <p className="mt-1 flex flex-wrap items-baseline gap-x-3">
          <span className="text-2xl font-extrabold text-white">
            {value.rank
              ? t("ranking.profileRank", { rank: value.rank })
              : t("ranking.profileUnranked")}
          </span>
          <span className="text-ink-100">
            {plural(t, "ranking.pointsValue", value.balance, { points: num.format(value.balance) })}
          </span>
        </p>
      ) : (
        <p className="mt-1 text-ink-200">{t("ranking.profileNoSeason")}</p>
      )}
    </div>
  );
  return (
    <section
      aria-labelledby="rank-heading"
      className="rounded-3xl border border-line bg-panel/70 p-6"
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="rank-heading" className="flex items-center gap-2 text-lg font-bold text-white">
          <Trophy aria-hidden className="size-5 text-brand-light" />
          {t("ranking.profileHeading")}
        </h2>
        <Link
          to="/ranking"
          className="text-sm font-medium text-brand-light underline underline-offset-4"
        >
          {t("ranking.profileLink")}
        </Link>
      </div>
      <div className="mt-4 grid gap-3 sm:grid-cols-2">
        {cell(
          t("ranking.profileSeason"),
          standing.season?.name ?? null,
          standing.current,
          "rank-season",
        )}
        {cell(t("ranking.profileLifetime"), null, standing.lifetime, "rank-lifetime")}
      </div>
    </section>
  );
}
