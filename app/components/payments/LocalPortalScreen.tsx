import type { loader, action } from "~/routes/subscription_.local-portal";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { TestModeLede } from "~/components/payments/TestModeLede";
import { Alert, AuthLayout, SubmitButton, buttonClass } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatDate } from "~/lib/format";

export function LocalPortalScreen() {
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
