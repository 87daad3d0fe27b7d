import type { loader, action } from "~/routes/subscription";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Crown, Settings } from "lucide-react";
import { Alert, SubmitButton, PageTitle } from "~/components/ui";
import { hasKey, useLocale, useT } from "~/i18n";
import { formatDate } from "~/lib/format";
import { formatPrice } from "~/lib/payments";

export function SubscriptionScreen() {
  const t = useT();
  const locale = useLocale();
  const { subscriptionLevel, data: subs, plans, returned } = useLoaderData<typeof loader>();
  const failed = useActionData<typeof action>();
  // The server's rule (status and endDate): a plan past its end is not current.
  const current = subs.find((s) => s.running);
  const statusLabel = (s: string) => {
    const key = `subscription.status.${s}`;
    return hasKey(key) ? t(key) : s;
  };

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:px-6 sm:py-12">
      <PageTitle>{t("subscription.heading")}</PageTitle>
      <p className="mt-2 max-w-xl text-ink-200">{t("subscription.lede")}</p>

      <div className="mt-6 space-y-3">
        {returned === "paid" && (
          <Alert success>
            {subscriptionLevel ? t("subscription.paid") : t("subscription.pending")}
          </Alert>
        )}
        {returned === "canceled" && <Alert>{t("subscription.canceledCheckout")}</Alert>}
        {returned === "ended" && <Alert>{t("subscription.ended")}</Alert>}
        {failed?.error && <Alert error={failed.error} />}
      </div>

      <section
        aria-labelledby="current-plan"
        className="mt-6 rounded-3xl border border-line bg-panel/80 p-6 shadow-xl shadow-black/30 sm:p-8"
      >
        <h2
          id="current-plan"
          className="text-sm font-semibold uppercase tracking-wider text-ink-200"
        >
          {t("subscription.current")}
        </h2>
        {current ? (
          <div className="mt-3 flex flex-wrap items-center justify-between gap-4">
            <div className="flex items-center gap-3">
              <span className="grid size-12 place-items-center rounded-2xl bg-brand/20 text-brand-light">
                <Crown aria-hidden className="size-6" />
              </span>
              <div>
                <p className="text-xl font-bold text-white" data-testid="subscription-level">
                  {t("subscription.level", { level: subscriptionLevel ?? current.level })}
                </p>
                <p className="text-sm text-ink-200">
                  {statusLabel(current.status)} ·{" "}
                  {t("subscription.since", { date: formatDate(current.startDate, locale) })}
                  {current.endDate
                    ? ` · ${t("subscription.until", { date: formatDate(current.endDate, locale) })}`
                    : ""}
                </p>
              </div>
            </div>
            <Form method="post">
              <SubmitButton
                label="subscription.manage"
                pendingLabel="subscription.opening"
                intent="portal"
                variant="secondary"
              />
            </Form>
          </div>
        ) : (
          <p className="mt-3 text-lg text-ink-100" data-testid="subscription-none">
            {t("subscription.none")}
          </p>
        )}
      </section>

      <section aria-labelledby="plans" className="mt-10">
        <h2 id="plans" className="text-xl font-bold text-white">
          {t("subscription.plans")}
        </h2>
        {plans.length === 0 ? (
          <p className="mt-4 rounded-2xl border border-dashed border-line p-6 text-center text-ink-200">
            {t("subscription.plansEmpty")}
          </p>
        ) : (
          <ul className="mt-4 grid gap-4 sm:grid-cols-2">
            {plans.map((p) => {
              const mine = current?.productId === p.id;
              return (
                <li
                  key={p.id}
                  className={`flex flex-col rounded-3xl border p-6 ${mine ? "border-brand bg-brand/10" : "border-line bg-panel/70"}`}
                >
                  <h3 className="text-lg font-bold text-white">{p.name}</h3>
                  {p.description && (
                    <p className="mt-1 flex-1 text-sm text-ink-200">{p.description}</p>
                  )}
                  <p className="mt-4 text-2xl font-extrabold text-white">
                    {t("checkout.perMonth", { price: formatPrice(p.price, p.currency, locale) })}
                  </p>
                  {mine ? (
                    <p className="mt-4 inline-flex items-center gap-2 font-semibold text-brand-light">
                      <Settings aria-hidden className="size-4" />
                      {t("subscription.yourPlan")}
                    </p>
                  ) : (
                    !current && (
                      <Form method="post" className="mt-4">
                        <input type="hidden" name="productId" value={p.id} />
                        <button
                          type="submit"
                          name="intent"
                          value="subscribe"
                          className="inline-flex w-full items-center justify-center gap-2 rounded-full bg-brand px-5 py-2.5 font-semibold text-white transition hover:bg-brand-hover"
                          data-testid={`subscribe-${p.id}`}
                        >
                          {t("subscription.subscribe", {
                            price: formatPrice(p.price, p.currency, locale),
                          })}
                        </button>
                      </Form>
                    )
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </div>
  );
}
