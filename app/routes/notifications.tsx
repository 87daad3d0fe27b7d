import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData, useRevalidator } from "@remix-run/react";
import { CheckCheck, ChevronLeft, ChevronRight, Settings } from "lucide-react";
import { NotificationItem } from "~/components/social/NotificationItem";
import { PageTitle, button } from "~/components/ui";
import { pageMeta, useT } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { apiRequest } from "~/lib/api.client";
import { requireUser } from "~/lib/session.server";
import { SOCIAL, type NotificationList } from "~/lib/social";

export const meta = pageMeta("notif.title");

const PER_PAGE = 20;
/** The centre keeps a user's newest 200 (docs/NOTIFICATIONS.md), so 10 pages at most. */
const MAX_PAGE = 10;

/** The full notification centre, 20 a page (`?page=`). */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  const raw = Number(new URL(args.request.url).searchParams.get("page") ?? "1");
  const page = Number.isInteger(raw) && raw >= 1 && raw <= MAX_PAGE ? raw : 1;
  const res = await callApi<NotificationList>(
    args,
    `${SOCIAL}/notifications?take=${PER_PAGE}&skip=${(page - 1) * PER_PAGE}`,
    { token },
  );
  return { page, list: res.ok ? res.data : null, error: res.ok ? null : res };
}

export default function NotificationsPage() {
  const t = useT();
  const { page, list, error } = useLoaderData<typeof loader>();
  const revalidator = useRevalidator();
  const pages = list ? Math.max(1, Math.ceil(list.total / PER_PAGE)) : 1;
  const read = async (body: { uuids: string[] } | { all: true }) => {
    try {
      await apiRequest(`${SOCIAL}/notifications/read`, { method: "POST", json: body });
    } finally {
      revalidator.revalidate();
    }
  };
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-10">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <PageTitle>{t("notif.title")}</PageTitle>
        <div className="flex flex-wrap gap-2">
          <button
            type="button"
            disabled={!list?.unreadCount}
            onClick={() => read({ all: true })}
            className={button("secondary", "sm")}
            data-testid="page-mark-all-read"
          >
            <CheckCheck aria-hidden className="size-4" />
            {t("notif.markAllRead")}
          </button>
          <Link to="/settings/notifications" className={button("ghost", "sm")}>
            <Settings aria-hidden className="size-4" />
            {t("notif.settingsTitle")}
          </Link>
        </div>
      </div>
      {list && (
        <p className="mt-2 text-ink-200" data-testid="unread-summary">
          {t("notif.unreadSummary", { count: list.unreadCount, total: list.total })}
        </p>
      )}
      {error && (
        <p role="alert" className="mt-6 text-danger">
          {error.generic ? t("errors.generic") : error.message}
        </p>
      )}
      {list &&
        (list.items.length ? (
          <ul className="mt-6 space-y-1 rounded-3xl border border-line bg-panel/70 p-2">
            {list.items.map((n) => (
              <li key={n.uuid}>
                <NotificationItem
                  n={n}
                  onOpen={(x) => !x.readAt && void read({ uuids: [x.uuid] })}
                />
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-6 rounded-3xl border border-line bg-panel/70 p-8 text-center text-ink-300">
            {t("notif.empty")}
          </p>
        ))}
      {pages > 1 && (
        <nav aria-label={t("notif.pages")} className="mt-6 flex items-center justify-between gap-3">
          {page > 1 ? (
            <Link to={`?page=${page - 1}`} className={button("secondary", "sm")} rel="prev">
              <ChevronLeft aria-hidden className="size-4" />
              {t("notif.newer")}
            </Link>
          ) : (
            <span />
          )}
          <span className="text-sm text-ink-300">{t("notif.pageOf", { page, pages })}</span>
          {page < Math.min(pages, MAX_PAGE) ? (
            <Link
              to={`?page=${page + 1}`}
              className={button("secondary", "sm")}
              rel="next"
              data-testid="older"
            >
              {t("notif.older")}
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

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
