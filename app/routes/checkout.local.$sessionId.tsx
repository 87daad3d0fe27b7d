import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { PAYMENT_SERVICE, type Product } from "~/lib/payments";
import { requireUser } from "~/lib/session.server";
import { LocalCheckoutScreen } from "~/components/payments/LocalCheckoutScreen";

export const meta = pageMeta("checkout.title");

/**
 * The local test-mode checkout (no Stripe key configured): shows the product and price;
 * "Pay (test mode)" asks the payment-service to complete the session, which signs a
 * Stripe-shaped event and sends it through the real webhook verification. With a Stripe
 * key set the API refuses (403) and this page shows that error.
 */
interface LocalSession {
  session: {
    id: string;
    mode: "payment" | "subscription";
    status: "open" | "complete" | "expired";
    /** A bundle's tokens, fixed when checkout started (null for a plan). */
    tokenAmount: number | null;
  };
  product: Product;
  returnTo: string;
}

const path = (id: string) => `${PAYMENT_SERVICE}/checkout/local/${encodeURIComponent(id)}`;

export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  const res = await callApi<LocalSession>(args, path(args.params.sessionId ?? ""), { token });
  if (!res.ok) throw data({ message: res.generic ? null : res.message }, { status: res.status });
  return res.data;
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireUser(args);
  const intent = formString(await args.request.formData(), "intent");
  const res = await callApi<{ redirectTo: string }>(
    args,
    `${path(args.params.sessionId ?? "")}/${intent === "cancel" ? "cancel" : "complete"}`,
    { method: "POST", token },
  );
  if (!res.ok) return data({ error: res }, { status: res.status });
  return redirect(res.data.redirectTo);
}

export default function LocalCheckout() {
  return <LocalCheckoutScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
