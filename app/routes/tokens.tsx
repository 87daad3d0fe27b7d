import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import {
  checkoutReturn,
  MERCH_SERVICE,
  PAYMENT_SERVICE,
  type CheckoutStarted,
  type Product,
} from "~/lib/payments";
import { requireUser } from "~/lib/session.server";
import { TokensScreen } from "~/components/payments/TokensScreen";

export const meta = pageMeta("tokens.title");

/**
 * Token bundles with their prices (the one-time products a bundle sells) and the buyer's
 * balance (and any debt a refund left). Buying starts a checkout and follows its URL: Stripe's page, or the local test
 * page. Checkout returns here with `session_id` (paid) or `canceled`.
 */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  const url = new URL(args.request.url);
  const [products, account] = await Promise.all([
    callApi<{ data: Product[] }>(
      args,
      `${PAYMENT_SERVICE}/api/v1/products?paymentType=one_time&limit=100`,
      { token },
    ),
    callApi<{ balance: number; debt: number }>(
      args,
      `${MERCH_SERVICE}/api/v1/token-accounts/self`,
      { token },
    ),
  ]);
  if (!products.ok)
    throw data(
      { message: products.generic ? null : products.message },
      { status: products.status },
    );
  const bundles = products.data.data.filter((p) => p.tokenBundle).sort((a, b) => a.price - b.price);
  return {
    bundles,
    balance: account.ok ? account.data.balance : null,
    // Tokens owed after a refund; the page says why and that buying pays it first.
    debt: account.ok ? account.data.debt : 0,
    returned: checkoutReturn(url.searchParams),
  };
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireUser(args);
  const form = await args.request.formData();
  const productId = formString(form, "productId");
  const res = await callApi<CheckoutStarted>(
    args,
    `${PAYMENT_SERVICE}/api/v1/products/${encodeURIComponent(productId)}/checkout`,
    { method: "POST", token },
  );
  if (!res.ok) return data({ productId, error: res }, { status: res.status });
  return redirect(res.data.url);
}

export default function TokensPage() {
  return <TokensScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
