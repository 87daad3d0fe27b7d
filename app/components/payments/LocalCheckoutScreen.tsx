import type { loader, action } from "~/routes/checkout.local.$sessionId";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { TestModeLede } from "~/components/payments/TestModeLede";
import { Alert, AuthLayout, SubmitButton, buttonClass } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatPrice } from "~/lib/payments";

export function LocalCheckoutScreen() {
  const t = useT();
  const locale = useLocale();
  const { session, product, returnTo } = useLoaderData<typeof loader>();
  const failed = useActionData<typeof action>();
  const price = formatPrice(product.price, product.currency, locale);
  const open = session.status === "open";

  return (
    <AuthLayout
      title={t("checkout.heading")}
      lede={<TestModeLede>{t("checkout.lede")}</TestModeLede>}
    >
      <dl className="divide-y divide-line rounded-2xl border border-line bg-ink-900/50">
        <div className="flex items-start justify-between gap-4 px-4 py-3">
          <dt className="text-sm text-ink-200">{t("checkout.product")}</dt>
          <dd className="text-right">
            <span className="block font-semibold text-white" data-testid="checkout-product">
              {product.name}
            </span>
            {product.description && (
              <span className="mt-0.5 block text-sm text-ink-200">{product.description}</span>
            )}
          </dd>
        </div>
        {session.tokenAmount !== null && (
          <div className="flex items-center justify-between gap-4 px-4 py-3">
            <dt className="text-sm text-ink-200">{t("checkout.youGet")}</dt>
            <dd className="font-semibold text-white" data-testid="checkout-tokens">
              {t("tokens.bundleTokens", { count: session.tokenAmount })}
            </dd>
          </div>
        )}
        <div className="flex items-center justify-between gap-4 px-4 py-3">
          <dt className="text-sm text-ink-200">{t("checkout.price")}</dt>
          <dd className="text-xl font-extrabold text-white" data-testid="checkout-price">
            {product.paymentType === "recurring" ? t("checkout.perMonth", { price }) : price}
          </dd>
        </div>
      </dl>

      <div className="mt-5 space-y-4">
        {failed?.error && <Alert error={failed.error} />}
        {open ? (
          <Form method="post" className="flex flex-col gap-3 sm:flex-row-reverse">
            <SubmitButton
              label="checkout.pay"
              pendingLabel="checkout.paying"
              intent="pay"
              className="sm:flex-1"
            />
            <SubmitButton
              label="checkout.cancel"
              pendingLabel="checkout.canceling"
              intent="cancel"
              variant="secondary"
            />
          </Form>
        ) : (
          <>
            <Alert>{t("checkout.closed")}</Alert>
            <Link to={returnTo} className={buttonClass.secondary}>
              {t("checkout.back")}
            </Link>
          </>
        )}
      </div>
    </AuthLayout>
  );
}
