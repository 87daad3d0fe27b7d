import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { formString } from "~/lib/forms";
import { PAYMENT_SERVICE, type MySubscriptions } from "~/lib/payments";
import { requireUser } from "~/lib/session.server";
import { LocalPortalScreen } from "~/components/payments/LocalPortalScreen";

export const meta = pageMeta("portal.title");

/**
 * The local test portal (no Stripe key): the caller's running local subscriptions, each
 * with "Cancel subscription", which sends customer.subscription.deleted through the
 * webhook path. (Not nested in /subscription: the trailing underscore keeps it a page.)
 */
export async function loader(args: LoaderFunctionArgs) {
  const { token } = await requireUser(args);
  const res = await callApi<MySubscriptions>(args, `${PAYMENT_SERVICE}/subscription`, { token });
  if (!res.ok) throw data({ message: res.generic ? null : res.message }, { status: res.status });
  return {
    running: res.data.data.filter((s) => s.source === "local" && s.running),
  };
}

export async function action(args: ActionFunctionArgs) {
  const { token } = await requireUser(args);
  const id = formString(await args.request.formData(), "subscriptionId");
  const res = await callApi(
    args,
    `${PAYMENT_SERVICE}/subscription/local-portal/${encodeURIComponent(id)}/cancel`,
    { method: "POST", token },
  );
  if (!res.ok) return data({ error: res }, { status: res.status });
  return redirect("/subscription?ended=1");
}

export default function LocalPortal() {
  return <LocalPortalScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
