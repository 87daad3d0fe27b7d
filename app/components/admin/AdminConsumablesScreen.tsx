import type { loader } from "~/routes/admin.consumables._index";
import { Link, useLoaderData } from "@remix-run/react";
import { Gift, Plus } from "lucide-react";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminTable } from "~/components/admin/AdminTable";
import { AdminPager } from "~/components/admin/AdminPager";
import { buttonClass, PageTitle } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatDate } from "~/lib/format";

export function AdminConsumablesScreen() {
  const t = useT();
  const locale = useLocale();
  const { data: items, total, page, pageCount } = useLoaderData<typeof loader>();
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>{t("adminShop.consumablesHeading")}</PageTitle>
          <p className="mt-1 text-ink-200" data-testid="consumables-total">
            {t("adminShop.total", { total })}
          </p>
        </div>
        <Link to="/admin/consumables/new" className={buttonClass.primary}>
          <Plus aria-hidden className="size-4" />
          {t("adminShop.newConsumable")}
        </Link>
      </div>

      <AdminTable
        label={t("adminShop.consumablesHeading")}
        columns={[
          { label: t("adminShop.col.name") },
          { label: t("adminShop.col.cost") },
          { label: t("adminShop.col.display") },
          { label: t("adminShop.col.created") },
        ]}
        empty={t("shop.empty")}
        isEmpty={items.length === 0}
        minWidth="min-w-[40rem]"
      >
        {items.map((c) => (
          <tr key={c.id} className="transition hover:bg-white/5" data-testid="admin-consumable-row">
            <td className="px-4 py-3">
              <Link
                to={`/admin/consumables/${c.id}`}
                className="flex items-center gap-3 font-semibold text-white hover:underline"
                aria-label={t("adminShop.edit", { name: c.name })}
              >
                {c.imageUrl ? (
                  <img src={c.imageUrl} alt="" className="size-10 rounded-lg object-cover" />
                ) : (
                  <Gift aria-hidden className="size-10 rounded-lg bg-white/5 p-2 text-amber-300" />
                )}
                {c.name}
              </Link>
            </td>
            <td className="px-4 py-3 text-ink-50">{t("shop.cost", { count: c.tokenCost })}</td>
            <td className="px-4 py-3 text-ink-100">{t(`adminShop.display.${c.displayType}`)}</td>
            <td className="whitespace-nowrap px-4 py-3 text-ink-200">
              {formatDate(c.createdAt, locale)}
            </td>
          </tr>
        ))}
      </AdminTable>
      {pageCount > 1 && <AdminPager page={page} pageCount={pageCount} />}
    </div>
  );
}
