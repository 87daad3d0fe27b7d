import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { adminFailure, requireAdmin } from "~/lib/admin.server";
import { callApi } from "~/lib/api.server";
import { PAYMENT_SERVICE, type Product } from "~/lib/payments";
import { AdminProductsScreen } from "~/components/admin/AdminProductsScreen";

export const meta = pageMeta("adminProducts.title");

/** Every product (admins see hidden ones too), newest first. */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireAdmin(args);
  const res = await callApi<{ data: Product[]; total: number }>(
    args,
    `${PAYMENT_SERVICE}/api/v1/products?limit=100`,
    { token },
  );
  if (!res.ok) adminFailure(args.request, res);
  return res.data;
}

export default function AdminProducts() {
  return <AdminProductsScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
