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
  PAYMENT_SERVICE,
  type CheckoutStarted,
  type MySubscriptions,
  type Product,
} from "~/lib/payments";
import { requireUser } from "~/lib/session.server";
import { SubscriptionScreen } from "~/components/payments/SubscriptionScreen";

export const meta = pageMeta("subscription.title");

/**
 * The caller's subscription level and plans. "Subscribe" starts a subscription checkout;
 * "Manage subscription" opens the portal (Stripe's, or the local test portal). Checkout
 * returns here with `session_id` or `canceled`; the local portal with `ended`.
 */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  const url = new URL(args.request.url);
  const [mine, plans] = await Promise.all([
    callApi<MySubscriptions>(args, `${PAYMENT_SERVICE}/subscription`, { token }),
    callApi<{ data: Product[] }>(args, `${PAYMENT_SERVICE}/subscription/products`, { token }),
  ]);
  if (!mine.ok)
    throw data({ message: mine.generic ? null : mine.message }, { status: mine.status });
  if (!plans.ok)
    throw data({ message: plans.generic ? null : plans.message }, { status: plans.status });
  const p = url.searchParams;
  return {
    ...mine.data,
    plans: plans.data.data,
    // The local portal comes back with `ended`.
    returned: checkoutReturn(p) ?? (p.get("ended") ? ("ended" as const) : null),
  };
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireUser(args);
  const form = await args.request.formData();
  const intent = formString(form, "intent");
  const res =
    intent === "portal"
      ? await callApi<{ url: string }>(args, `${PAYMENT_SERVICE}/subscription/portal`, {
          method: "POST",
          token,
        })
      : await callApi<CheckoutStarted>(
          args,
          `${PAYMENT_SERVICE}/subscription/checkout/${encodeURIComponent(formString(form, "productId"))}`,
          { method: "POST", token },
        );
  if (!res.ok) return data({ error: res }, { status: res.status });
  return redirect(res.data.url);
}

export default function SubscriptionPage() {
  return <SubscriptionScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
