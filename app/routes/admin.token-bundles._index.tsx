import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { Coins, Plus } from "lucide-react";
import { AdminNav } from "~/components/AdminNav";
import { AdminTable } from "~/components/admin/AdminTable";
import { AdminPager } from "~/components/admin/AdminPager";
import { buttonClass } from "~/components/ui";
import { pageMeta, useLocale, useT } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { formatPrice } from "~/lib/payments";
import { MERCH, STORE_PAGE, type StorePage, type TokenBundle } from "~/lib/store";

export const meta = pageMeta("adminStore.bundlesTitle");

/** Every token bundle, newest first, 32 a page (`?page=`), with its product's price. */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const page = Math.max(
    1,
    Number.parseInt(new URL(args.request.url).searchParams.get("page") ?? "1", 10) || 1,
  );
  const res = await callApi<StorePage<TokenBundle>>(
    args,
    `${MERCH}/token-bundles?limit=${STORE_PAGE}&offset=${(page - 1) * STORE_PAGE}`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return { ...res.data, page, pageCount: Math.max(1, Math.ceil(res.data.total / STORE_PAGE)) };
}

export default function AdminTokenBundles() {
  const t = useT();
  const locale = useLocale();
  const { data: bundles, total, page, pageCount } = useLoaderData<typeof loader>();
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <AdminNav />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-3xl font-extrabold tracking-tight text-white sm:text-4xl">
            {t("adminStore.bundlesHeading")}
          </h1>
          <p className="mt-1 text-ink-200" data-testid="bundles-total">
            {t("adminStore.total", { total })}
          </p>
        </div>
        <Link to="/admin/token-bundles/new" className={buttonClass.primary}>
          <Plus aria-hidden className="size-4" />
          {t("adminStore.newBundle")}
        </Link>
      </div>
      <AdminTable
        label={t("adminStore.bundlesHeading")}
        columns={[
          { label: t("adminStore.col.name") },
          { label: t("adminStore.col.tokens") },
          { label: t("adminStore.col.product") },
          { label: t("adminStore.col.price") },
        ]}
        empty={t("adminStore.noBundles")}
        isEmpty={bundles.length === 0}
        minWidth="min-w-[40rem]"
      >
        {bundles.map((b) => (
          <tr key={b.id} className="transition hover:bg-white/5" data-testid="admin-bundle-row">
            <td className="px-4 py-3">
              <Link
                to={`/admin/token-bundles/${b.id}`}
                className="flex items-center gap-3 font-semibold text-white hover:underline"
                aria-label={t("adminStore.edit", { name: b.name })}
              >
                {b.thumbnailUrl ? (
                  <img src={b.thumbnailUrl} alt="" className="size-10 rounded-lg object-cover" />
                ) : (
                  <Coins aria-hidden className="size-10 rounded-lg bg-white/5 p-2 text-amber-300" />
                )}
                {b.name}
              </Link>
            </td>
            <td className="px-4 py-3 text-ink-50">{t("store.cost", { count: b.tokenAmount })}</td>
            <td className="max-w-[24ch] truncate px-4 py-3 text-ink-200">{b.productId}</td>
            <td className="whitespace-nowrap px-4 py-3 text-ink-50">
              {b.price !== null && b.currency
                ? formatPrice(b.price, b.currency, locale)
                : t("adminStore.noProduct")}
            </td>
          </tr>
        ))}
      </AdminTable>
      {pageCount > 1 && <AdminPager page={page} pageCount={pageCount} />}
    </div>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
