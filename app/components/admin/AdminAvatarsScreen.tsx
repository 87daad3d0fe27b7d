import type { loader } from "~/routes/admin.avatars._index";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { AdminNav } from "~/components/admin/AdminNav";
import { Plus, Users } from "lucide-react";
import { AvatarArt } from "~/components/avatars/AvatarArt";
import { AdminPager } from "~/components/admin/AdminPager";
import { buttonClass, Select, PageTitle } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatDate } from "~/lib/format";

export function AdminAvatarsScreen() {
  const t = useT();
  const locale = useLocale();
  const {
    statuses,
    status,
    data: avatars,
    total,
    page,
    pageCount,
  } = useLoaderData<typeof loader>();

  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <Link to="/admin/users" className={buttonClass.ghost}>
            <Users aria-hidden className="size-4" />
            {t("adminAvatars.users")}
          </Link>
          <PageTitle className="mt-2">{t("adminAvatars.heading")}</PageTitle>
          <p className="mt-1 text-ink-200" data-testid="admin-avatars-total">
            {t("adminAvatars.total", { total })}
          </p>
        </div>
        <Link
          to="/admin/avatars/new"
          className={buttonClass.primary}
          data-testid="admin-avatar-new"
        >
          <Plus aria-hidden className="size-4" />
          {t("adminAvatars.new")}
        </Link>
      </div>

      <Form
        method="get"
        className="mt-6 flex flex-wrap items-end gap-3 rounded-2xl border border-line bg-panel/70 p-4"
        onChange={(e) => e.currentTarget.requestSubmit()}
      >
        <Select
          label={t("adminAvatars.filterStatus")}
          name="status"
          defaultValue={status}
          key={status}
          className="min-w-56"
        >
          <option value="">{t("adminAvatars.allStatuses")}</option>
          {statuses.map((s) => (
            <option key={s} value={s}>
              {t(`avatars.status.${s}`)}
            </option>
          ))}
        </Select>
        <noscript>
          <button type="submit" className={buttonClass.secondary}>
            {t("admin.searchButton")}
          </button>
        </noscript>
      </Form>

      {avatars.length === 0 ? (
        <p className="mt-8 rounded-2xl border border-dashed border-line p-10 text-center text-ink-200">
          {t("adminAvatars.empty")}
        </p>
      ) : (
        <ul className="mt-6 grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
          {avatars.map((a) => (
            <li key={a.slug}>
              <Link
                to={`/admin/avatars/${a.slug}`}
                data-testid="admin-avatar-row"
                className="flex items-center gap-4 rounded-2xl border border-line bg-panel/70 p-4 transition hover:border-white/40 hover:bg-white/5"
              >
                <AvatarArt slug={a.slug} src={a.thumbnails["128"]} size={56} />
                <span className="min-w-0 flex-1">
                  <span className="block truncate font-semibold text-white">{a.name}</span>
                  <span className="block truncate font-mono text-xs text-ink-300">{a.slug}</span>
                  <span className="mt-1.5 flex flex-wrap gap-1.5 text-xs">
                    <span className="rounded-full bg-white/10 px-2 py-0.5 font-medium text-ink-50">
                      {t(`avatars.status.${a.status}`)}
                    </span>
                    {a.discordOnly && (
                      <span className="rounded-full bg-cyan/15 px-2 py-0.5 font-medium text-cyan">
                        {t("avatars.discordOnly")}
                      </span>
                    )}
                    {a.status === "SEASON_AWARD" && (
                      <span className="rounded-full bg-neon/15 px-2 py-0.5 font-medium text-neon">
                        {t("adminAvatars.seasonRule", {
                          points: a.pointsThreshold ?? "?",
                          season: a.seasonId ?? "?",
                        })}
                      </span>
                    )}
                  </span>
                </span>
                <span className="hidden shrink-0 text-xs text-ink-300 sm:block">
                  {formatDate(a.createdAt, locale)}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}

      <AdminPager page={page} pageCount={pageCount} />
    </div>
  );
}
