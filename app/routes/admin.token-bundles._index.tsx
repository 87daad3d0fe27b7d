import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { MERCH, SHOP_PAGE, type ShopPage, type TokenBundle } from "~/lib/shop";
import { AdminTokenBundlesScreen } from "~/components/admin/AdminTokenBundlesScreen";

export const meta = pageMeta("adminShop.bundlesTitle");

/** Every token bundle, newest first, 32 a page (`?page=`), with its product's price. */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const page = Math.max(
    1,
    Number.parseInt(new URL(args.request.url).searchParams.get("page") ?? "1", 10) || 1,
  );
  const res = await callApi<ShopPage<TokenBundle>>(
    args,
    `${MERCH}/token-bundles?limit=${SHOP_PAGE}&offset=${(page - 1) * SHOP_PAGE}`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return { ...res.data, page, pageCount: Math.max(1, Math.ceil(res.data.total / SHOP_PAGE)) };
}

export default function AdminTokenBundles() {
  return <AdminTokenBundlesScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
