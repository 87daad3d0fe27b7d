import type { loader, action } from "~/routes/tokens";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Coins, Loader2, Sparkles } from "lucide-react";
import { Alert, buttonClass, PageTitle } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatPrice } from "~/lib/payments";

export function TokensScreen() {
  const t = useT();
  const locale = useLocale();
  const { bundles, balance, debt, returned } = useLoaderData<typeof loader>();
  const failed = useActionData<typeof action>();
  const nav = useNavigation();
  const buying =
    nav.state !== "idle" && nav.formMethod?.toUpperCase() === "POST"
      ? nav.formData?.get("productId")
      : null;

  return (
    <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 sm:py-12">
      <div className="flex flex-wrap items-end justify-between gap-6">
        <div className="max-w-xl">
          <PageTitle>{t("tokens.heading")}</PageTitle>
          <p className="mt-2 text-ink-200">{t("tokens.lede")}</p>
        </div>
        <div
          className="rounded-2xl border border-brand/40 bg-brand/10 px-5 py-3"
          aria-live="polite"
        >
          <p className="text-xs font-semibold uppercase tracking-wider text-ink-200">
            {t("tokens.balance")}
          </p>
          <p
            className="mt-0.5 flex items-center gap-2 text-2xl font-extrabold text-white"
            data-testid="tokens-balance"
          >
            <Coins aria-hidden className="size-6 text-amber-300" />
            {balance === null ? (
              <span className="text-base font-semibold text-ink-200">
                {t("tokens.balanceUnknown")}
              </span>
            ) : (
              t("tokens.balanceValue", { count: balance })
            )}
          </p>
          {debt > 0 && (
            <p className="mt-1 text-sm font-semibold text-danger" data-testid="tokens-debt">
              {t("tokens.debtValue", { count: debt })}
            </p>
          )}
        </div>
      </div>

      <div className="mt-6 space-y-3">
        {debt > 0 && (
          <div
            role="status"
            className="rounded-xl border border-danger/50 bg-danger/10 px-4 py-3 text-sm text-ink-50"
            data-testid="tokens-debt-explained"
          >
            {t("tokens.debt", { count: debt })}
          </div>
        )}
        {returned === "paid" && (
          <Alert success>{balance === null ? t("tokens.pending") : t("tokens.paid")}</Alert>
        )}
        {returned === "canceled" && <Alert>{t("tokens.canceled")}</Alert>}
        {failed?.error && <Alert error={failed.error} />}
      </div>

      {bundles.length === 0 ? (
        <p className="mt-10 rounded-2xl border border-dashed border-line p-8 text-center text-ink-200">
          {t("tokens.empty")}
        </p>
      ) : (
        <ul className="mt-8 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {bundles.map((p) => (
            <li
              key={p.id}
              className="flex flex-col rounded-3xl border border-line bg-panel/80 p-6 shadow-xl shadow-black/30"
              data-testid="bundle-card"
            >
              <div className="flex items-center gap-3">
                <span className="grid size-12 place-items-center rounded-2xl bg-amber-300/15 text-amber-300">
                  <Coins aria-hidden className="size-6" />
                </span>
                <div>
                  <h2 className="text-lg font-bold text-white">{p.name}</h2>
                  {/* The amount, unless the name already says it ("100 tokens"). */}
                  {p.name !== t("tokens.bundleTokens", { count: p.tokenBundle!.tokenAmount }) && (
                    <p className="text-sm font-semibold text-amber-200">
                      {t("tokens.bundleTokens", { count: p.tokenBundle!.tokenAmount })}
                    </p>
                  )}
                </div>
              </div>
              {p.description && <p className="mt-3 flex-1 text-sm text-ink-200">{p.description}</p>}
              <Form method="post" className="mt-5">
                <input type="hidden" name="productId" value={p.id} />
                <button
                  type="submit"
                  className={`${buttonClass.primary} w-full`}
                  disabled={!!buying}
                  data-testid={`buy-${p.id}`}
                >
                  {buying === p.id && <Loader2 aria-hidden className="size-4 animate-spin" />}
                  {buying === p.id
                    ? t("tokens.buying")
                    : t("tokens.buy", { price: formatPrice(p.price, p.currency, locale) })}
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}

      <p className="mt-10 text-center">
        <Link to="/subscription" className={`${buttonClass.link} inline-flex items-center gap-1.5`}>
          <Sparkles aria-hidden className="size-4" />
          {t("tokens.subscriptionLink")}
        </Link>
      </p>
    </div>
  );
}
