import type { loader } from "~/routes/admin.token-bundles._index";
import { Link, useLoaderData } from "@remix-run/react";
import { Coins, Plus } from "lucide-react";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminTable } from "~/components/admin/AdminTable";
import { AdminPager } from "~/components/admin/AdminPager";
import { buttonClass, PageTitle } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatPrice } from "~/lib/payments";

export function AdminTokenBundlesScreen() {
  const t = useT();
  const locale = useLocale();
  const { data: bundles, total, page, pageCount } = useLoaderData<typeof loader>();
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>{t("adminShop.bundlesHeading")}</PageTitle>
          <p className="mt-1 text-ink-200" data-testid="bundles-total">
            {t("adminShop.total", { total })}
          </p>
        </div>
        <Link to="/admin/token-bundles/new" className={buttonClass.primary}>
          <Plus aria-hidden className="size-4" />
          {t("adminShop.newBundle")}
        </Link>
      </div>
      <AdminTable
        label={t("adminShop.bundlesHeading")}
        columns={[
          { label: t("adminShop.col.name") },
          { label: t("adminShop.col.tokens") },
          { label: t("adminShop.col.product") },
          { label: t("adminShop.col.price") },
        ]}
        empty={t("adminShop.noBundles")}
        isEmpty={bundles.length === 0}
        minWidth="min-w-[40rem]"
      >
        {bundles.map((b) => (
          <tr key={b.id} className="transition hover:bg-white/5" data-testid="admin-bundle-row">
            <td className="px-4 py-3">
              <Link
                to={`/admin/token-bundles/${b.id}`}
                className="flex items-center gap-3 font-semibold text-white hover:underline"
                aria-label={t("adminShop.edit", { name: b.name })}
              >
                {b.thumbnailUrl ? (
                  <img src={b.thumbnailUrl} alt="" className="size-10 rounded-lg object-cover" />
                ) : (
                  <Coins aria-hidden className="size-10 rounded-lg bg-white/5 p-2 text-amber-300" />
                )}
                {b.name}
              </Link>
            </td>
            <td className="px-4 py-3 text-ink-50">{t("shop.cost", { count: b.tokenAmount })}</td>
            <td className="max-w-[24ch] truncate px-4 py-3 text-ink-200">{b.productId}</td>
            <td className="whitespace-nowrap px-4 py-3 text-ink-50">
              {b.price !== null && b.currency
                ? formatPrice(b.price, b.currency, locale)
                : t("adminShop.noProduct")}
            </td>
          </tr>
        ))}
      </AdminTable>
      {pageCount > 1 && <AdminPager page={page} pageCount={pageCount} />}
    </div>
  );
}
