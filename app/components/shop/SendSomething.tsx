import { Link } from "@remix-run/react";
import { ChevronLeft, ChevronRight, Coins, Gift, Loader2, X } from "lucide-react";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { useTokenBalance } from "~/components/shop/TokenBalance";
import { LoadError } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { ApiError, displayError, type DisplayError } from "~/lib/errors";
import { fetchConsumables, SHOP_PAGE, type Consumable, type ShopPage } from "~/lib/shop";
import { useRootData } from "~/hooks/useRootData";
import { ConsumableGrid } from "./ConsumableGrid";

/**
 * "Send something" inside a room: a button beside the chat box that opens the shop as a
 * drawer for this room (a consumable is used in a room, so that is where it is bought).
 * The drawer loads 32 at a time and keeps the balance in view.
 */
export function SendSomething({ roomUuid }: { roomUuid: string }) {
  const t = useT();
  const signedIn = !!useRootData()?.user;
  const [open, setOpen] = useState(false);
  if (!signedIn) return null;
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        aria-label={t("shop.sendSomething")}
        title={t("shop.sendSomething")}
        className="grid size-10 shrink-0 place-items-center rounded-full border border-amber-300/40 bg-amber-300/10 text-amber-200 hover:bg-amber-300/20"
        data-testid="send-something"
      >
        <Gift aria-hidden className="size-4" />
      </button>
      <ShopDrawer roomUuid={roomUuid} open={open} onClose={() => setOpen(false)} />
    </>
  );
}

/**
 * The room's shop as a drawer (a native modal dialog): opened by the chat's gift button and
 * by "Send a gift" in the menu on a person (UserMenu.tsx).
 */
export function ShopDrawer({
  roomUuid,
  open,
  onClose,
}: {
  roomUuid: string;
  open: boolean;
  onClose: () => void;
}) {
  const t = useT();
  const locale = useLocale();
  const signedIn = !!useRootData()?.user;
  const { account } = useTokenBalance();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const setOpen = (v: false) => v || onClose();
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<ShopPage<Consumable> | null>(null);
  const [error, setError] = useState<DisplayError | null>(null);
  const [loading, setLoading] = useState(false);

  const load = useCallback(async (at: number) => {
    setLoading(true);
    setError(null);
    try {
      setPage(await fetchConsumables(at));
      setOffset(at);
    } catch (err) {
      setError(err instanceof ApiError ? err.display : displayError(0, null));
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      d.showModal();
      void load(offset);
    }
    if (!open && d.open) d.close();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  if (!signedIn) return null;
  const pages = page ? Math.max(1, Math.ceil(page.total / SHOP_PAGE)) : 1;
  return (
    <>
      <dialog
        ref={ref}
        aria-labelledby={titleId}
        onClose={() => setOpen(false)}
        onCancel={() => setOpen(false)}
        onClick={(e) => e.target === ref.current && setOpen(false)}
        className="my-0 ml-auto mr-0 h-dvh max-h-dvh w-[min(26rem,100vw)] border-l border-line bg-panel p-0 text-ink-50 shadow-2xl shadow-black/60 backdrop:bg-ink-950/60 backdrop:backdrop-blur-sm"
        data-testid="shop-drawer"
      >
        <div className="flex h-full flex-col">
          <div className="flex items-center justify-between gap-3 border-b border-line px-4 py-3">
            <div className="min-w-0">
              <h2 id={titleId} className="text-lg font-bold text-white">
                {t("shop.drawerTitle")}
              </h2>
              <p className="flex items-center gap-1 text-sm text-amber-100">
                <Coins aria-hidden className="size-4 text-amber-300" />
                {account
                  ? t("shop.balanceLabel", {
                      count: new Intl.NumberFormat(locale).format(account.balance),
                    })
                  : t("shop.balanceUnknown")}
              </p>
            </div>
            <button
              type="button"
              onClick={() => setOpen(false)}
              aria-label={t("shop.close")}
              className="rounded-full p-2 hover:bg-white/10"
            >
              <X aria-hidden className="size-5" />
            </button>
          </div>
          <div className="min-h-0 flex-1 overflow-y-auto p-4">
            {error ? (
              <LoadError error={error} onRetry={() => void load(offset)} />
            ) : !page ? (
              <div
                className="grid grid-cols-2 gap-3"
                aria-busy="true"
                aria-label={t("shop.loading")}
              >
                {Array.from({ length: 4 }, (_, i) => (
                  <div key={i} className="aspect-[3/4] animate-pulse rounded-2xl bg-white/5" />
                ))}
              </div>
            ) : page.data.length === 0 ? (
              <p className="text-ink-200">{t("shop.empty")}</p>
            ) : (
              <ConsumableGrid items={page.data} roomUuid={roomUuid} signedIn compact />
            )}
          </div>
          <div className="flex items-center justify-between gap-2 border-t border-line px-4 py-3 text-sm">
            <Link
              to="/tokens"
              className="font-semibold text-brand-light underline underline-offset-4"
            >
              {t("shop.getTokens")}
            </Link>
            {pages > 1 && (
              <div className="flex items-center gap-1">
                <button
                  type="button"
                  disabled={offset === 0 || loading}
                  onClick={() => void load(Math.max(0, offset - SHOP_PAGE))}
                  aria-label={t("shop.prev")}
                  className="rounded-full p-2 hover:bg-white/10 disabled:opacity-40"
                >
                  <ChevronLeft aria-hidden className="size-4" />
                </button>
                <span>{t("shop.pageOf", { page: offset / SHOP_PAGE + 1, pages })}</span>
                <button
                  type="button"
                  disabled={offset + SHOP_PAGE >= (page?.total ?? 0) || loading}
                  onClick={() => void load(offset + SHOP_PAGE)}
                  aria-label={t("shop.next")}
                  className="rounded-full p-2 hover:bg-white/10 disabled:opacity-40"
                >
                  {loading ? (
                    <Loader2 aria-hidden className="size-4 animate-spin" />
                  ) : (
                    <ChevronRight aria-hidden className="size-4" />
                  )}
                </button>
              </div>
            )}
          </div>
        </div>
      </dialog>
    </>
  );
}
