import type { loader } from "~/routes/admin.products._index";
import { Link, useLoaderData } from "@remix-run/react";
import { AdminNav } from "~/components/admin/AdminNav";
import { AdminTable } from "~/components/admin/AdminTable";
import { Plus } from "lucide-react";
import { buttonClass, PageTitle } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatPrice } from "~/lib/payments";

export function AdminProductsScreen() {
  const t = useT();
  const locale = useLocale();
  const { data: products, total } = useLoaderData<typeof loader>();
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>{t("adminProducts.heading")}</PageTitle>
          <p className="mt-1 text-ink-200" data-testid="products-total">
            {t("adminProducts.total", { total })}
          </p>
        </div>
        <Link to="/admin/products/new" className={buttonClass.primary}>
          <Plus aria-hidden className="size-4" />
          {t("adminProducts.new")}
        </Link>
      </div>

      <AdminTable
        label={t("adminProducts.heading")}
        columns={[
          { label: t("adminProducts.col.name") },
          { label: t("adminProducts.col.type") },
          { label: t("adminProducts.col.price") },
          { label: t("adminProducts.col.level") },
          { label: t("adminProducts.col.bundle") },
          { label: t("adminProducts.col.status") },
        ]}
        empty={t("adminProducts.empty")}
        isEmpty={products.length === 0}
        minWidth="min-w-[44rem]"
      >
        {products.map((p) => (
          <tr key={p.id} className="transition hover:bg-white/5" data-testid="admin-product-row">
            <td className="px-4 py-3">
              <Link
                to={`/admin/products/${encodeURIComponent(p.id)}`}
                className="font-semibold text-white hover:underline"
                aria-label={t("adminProducts.edit", { name: p.name })}
              >
                {p.name}
              </Link>
              <span className="block max-w-[28ch] truncate text-xs text-ink-300">{p.id}</span>
            </td>
            <td className="px-4 py-3 text-ink-100">{t(`adminProducts.type.${p.paymentType}`)}</td>
            <td className="whitespace-nowrap px-4 py-3 text-ink-50">
              {formatPrice(p.price, p.currency, locale)}
            </td>
            <td className="px-4 py-3 text-ink-100">{p.subscriptionLevel ?? "—"}</td>
            <td className="px-4 py-3 text-ink-100">
              {p.tokenBundle ? t("tokens.bundleTokens", { count: p.tokenBundle.tokenAmount }) : "—"}
            </td>
            <td className="px-4 py-3">
              <span
                className={`rounded-full px-2 py-0.5 text-xs font-medium ${p.active ? "bg-success/15 text-success" : "bg-white/10 text-ink-200"}`}
              >
                {p.active ? t("adminProducts.active") : t("adminProducts.inactive")}
              </span>
            </td>
          </tr>
        ))}
      </AdminTable>
    </div>
  );
}
