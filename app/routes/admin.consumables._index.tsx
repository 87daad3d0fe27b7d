import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { MERCH, SHOP_PAGE, type Consumable, type ShopPage } from "~/lib/shop";
import { AdminConsumablesScreen } from "~/components/admin/AdminConsumablesScreen";

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
  return <AdminConsumablesScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
