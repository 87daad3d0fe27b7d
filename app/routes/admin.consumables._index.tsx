import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { Gift, Plus } from "lucide-react";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminTable } from "~/components/admin/AdminTable";
import { AdminPager } from "~/components/admin/AdminPager";
import { buttonClass, PageTitle } from "~/components/ui";
import { pageMeta, useLocale, useT } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { formatDate } from "~/lib/format";
import { MERCH, SHOP_PAGE, type Consumable, type ShopPage } from "~/lib/shop";

export const meta = pageMeta("adminShop.consumablesTitle");

/** Every consumable, newest first, 32 a page (`?page=`). */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const page = Math.max(
    1,
    Number.parseInt(new URL(args.request.url).searchParams.get("page") ?? "1", 10) || 1,
  );
  const res = await callApi<ShopPage<Consumable>>(
    args,
    `${MERCH}/consumables?limit=${SHOP_PAGE}&offset=${(page - 1) * SHOP_PAGE}`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return { ...res.data, page, pageCount: Math.max(1, Math.ceil(res.data.total / SHOP_PAGE)) };
}

export default function AdminConsumables() {
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

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
