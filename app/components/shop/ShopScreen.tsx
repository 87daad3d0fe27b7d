import type { loader } from "~/routes/shop";
import { Link, useLoaderData } from "@remix-run/react";
import { ChevronLeft, ChevronRight, Coins, Gift, Radio } from "lucide-react";
import { ConsumableGrid } from "~/components/shop/ConsumableGrid";
import { useTokenBalance } from "~/components/shop/TokenBalance";
import { Alert, button, buttonClass, PageTitle } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { SHOP_PAGE } from "~/lib/shop";
import { useRootData } from "~/hooks/useRootData";

export function ShopScreen() {
  const t = useT();
  const locale = useLocale();
  const { page, roomUuid, list, error } = useLoaderData<typeof loader>();
  const root = useRootData();
  const { account } = useTokenBalance();
  const pages = list ? Math.max(1, Math.ceil(list.total / SHOP_PAGE)) : 1;
  const q = (p: number) =>
    `?${new URLSearchParams({ page: String(p), ...(roomUuid ? { room: roomUuid } : {}) })}`;
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="max-w-2xl">
          <PageTitle className="flex items-center gap-3">
            <Gift aria-hidden className="size-8 text-amber-300" />
            {t("shop.heading")}
          </PageTitle>
          <p className="mt-2 text-ink-200">{roomUuid ? t("shop.ledeRoom") : t("shop.lede")}</p>
        </div>
        {root?.user && (
          <div className="flex items-center gap-3 rounded-2xl border border-amber-300/30 bg-amber-300/10 px-4 py-3">
            <Coins aria-hidden className="size-6 text-amber-300" />
            <div>
              <p className="text-xs uppercase tracking-wide text-amber-100/80">
                {t("shop.yourBalance")}
              </p>
              <p className="text-xl font-extrabold text-white" data-testid="shop-balance">
                {account ? new Intl.NumberFormat(locale).format(account.balance) : "–"}
              </p>
            </div>
            <Link to="/tokens" className={button("secondary", "sm")}>
              {t("shop.getTokens")}
            </Link>
          </div>
        )}
      </div>

      {root?.user && !account && (
        <div className="mt-6">
          <Alert error={{ status: 404, message: t("shop.noAccount"), generic: false }} />
        </div>
      )}
      {!roomUuid && (
        <p className="mt-6 flex flex-wrap items-center gap-2 rounded-2xl border border-line bg-white/5 px-4 py-3 text-sm text-ink-100">
          <Radio aria-hidden className="size-4 text-brand-light" />
          {t("shop.howTo")}
          <Link to="/rooms" className={buttonClass.link}>
            {t("shop.findRoom")}
          </Link>
        </p>
      )}

      <div className="mt-6">
        {error ? (
          <Alert error={error} />
        ) : !list || list.data.length === 0 ? (
          <p className="rounded-2xl border border-line bg-panel/70 px-4 py-10 text-center text-ink-200">
            {t("shop.empty")}
          </p>
        ) : (
          <ConsumableGrid
            items={list.data}
            roomUuid={root?.user ? roomUuid : null}
            signedIn={!!root?.user}
          />
        )}
      </div>

      {pages > 1 && (
        <nav
          aria-label={t("shop.paging")}
          className="mt-6 flex items-center justify-center gap-2 text-sm"
        >
          {page > 1 ? (
            <Link
              to={q(page - 1)}
              className={buttonClass.ghost}
              aria-label={t("shop.prev")}
              data-testid="shop-prev"
            >
              <ChevronLeft aria-hidden className="size-4" />
            </Link>
          ) : null}
          <span>{t("shop.pageOf", { page, pages })}</span>
          {page < pages ? (
            <Link
              to={q(page + 1)}
              className={buttonClass.ghost}
              aria-label={t("shop.next")}
              data-testid="shop-next"
            >
              <ChevronRight aria-hidden className="size-4" />
            </Link>
          ) : null}
        </nav>
      )}
    </div>
  );
}
