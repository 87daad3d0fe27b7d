import { Link, useSearchParams } from "@remix-run/react";
import { ChevronLeft, ChevronRight } from "lucide-react";
import { buttonClass } from "~/components/ui";
import { useT } from "~/i18n";

/**
 * Previous / "page N of M" / next under an admin list. Links keep every other search
 * parameter (filters, sort), so paging never loses what the admin searched for.
 */
export function AdminPager({ page, pageCount }: { page: number; pageCount: number }) {
  const t = useT();
  const [params] = useSearchParams();
  const pageHref = (p: number) => {
    const next = new URLSearchParams(params);
    next.set("page", String(p));
    return `?${next}`;
  };
  return (
    <nav
      aria-label={t("admin.pagination")}
      className="mt-5 flex items-center justify-between gap-3"
    >
      {page > 1 ? (
        <Link to={pageHref(page - 1)} className={buttonClass.secondary} rel="prev">
          <ChevronLeft aria-hidden className="size-4" />
          {t("admin.prev")}
        </Link>
      ) : (
        <span />
      )}
      <p className="text-sm text-ink-200">{t("admin.pageOf", { page, pageCount })}</p>
      {page < pageCount ? (
        <Link to={pageHref(page + 1)} className={buttonClass.secondary} rel="next">
          {t("admin.next")}
          <ChevronRight aria-hidden className="size-4" />
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}
