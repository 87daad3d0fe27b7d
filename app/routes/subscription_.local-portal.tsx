import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { TestModeLede } from "~/components/payments/TestModeLede";
import { Alert, AuthLayout, SubmitButton, buttonClass } from "~/components/ui";
import { pageMeta, useLocale, useT } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { formatDate } from "~/lib/format";
import { formString } from "~/lib/forms";
import { PAYMENT_SERVICE, type MySubscriptions } from "~/lib/payments";
import { requireUser } from "~/lib/session.server";

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
    running: res.data.data.filter(
      (s) => s.source === "local" && ["active", "trialing", "past_due"].includes(s.status),
    ),
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
  const t = useT();
  const locale = useLocale();
  const { running } = useLoaderData<typeof loader>();
  const failed = useActionData<typeof action>();
  return (
    <AuthLayout title={t("portal.heading")} lede={<TestModeLede>{t("portal.lede")}</TestModeLede>}>
      {failed?.error && <Alert error={failed.error} />}
      {running.length === 0 ? (
        <p className="text-ink-100">{t("portal.empty")}</p>
      ) : (
        <ul className="space-y-3">
          {running.map((s) => (
            <li key={s.id} className="rounded-2xl border border-line bg-ink-900/50 p-4">
              <p className="font-semibold text-white">
                {t("subscription.level", { level: s.level })}
              </p>
              <p className="text-sm text-ink-200">
                {t("subscription.since", { date: formatDate(s.startDate, locale) })}
              </p>
              <Form method="post" className="mt-3">
                <input type="hidden" name="subscriptionId" value={s.id} />
                <SubmitButton
                  label="portal.cancel"
                  pendingLabel="portal.canceling"
                  variant="secondary"
                />
              </Form>
            </li>
          ))}
        </ul>
      )}
      <Link to="/subscription" className={`${buttonClass.link} mt-6 inline-block`}>
        {t("portal.back")}
      </Link>
    </AuthLayout>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
