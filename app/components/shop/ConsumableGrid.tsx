import { Link } from "@remix-run/react";
import { Coins, Gift, Loader2 } from "lucide-react";
import { useRef, useState } from "react";
import { ConfirmDialog } from "~/components/Dialog";
import { useTokenBalance } from "~/components/shop/TokenBalance";
import { useToast } from "~/components/Toaster";
import { button } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import { buyConsumable, type Consumable } from "~/lib/shop";

/**
 * Consumables as cards; with a room, each can be sent there after a confirmation that
 * names its cost. The balance changes the moment the purchase answers. A failure says
 * what happened in the server's words (a stale balance is read again first) and offers a
 * retry with the same idempotency key, so a retry never buys twice.
 */
export function ConsumableGrid({
  items,
  roomUuid,
  signedIn,
  compact = false,
}: {
  items: Consumable[];
  roomUuid: string | null;
  signedIn: boolean;
  compact?: boolean;
}) {
  const t = useT();
  const locale = useLocale();
  const toast = useToast();
  const { account, setAccount, refresh } = useTokenBalance();
  const [chosen, setChosen] = useState<Consumable | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const key = useRef("");
  const n = (x: number) => new Intl.NumberFormat(locale).format(x);

  const choose = (c: Consumable) => {
    key.current = crypto.randomUUID();
    setChosen(c);
  };

  const send = async (c: Consumable, attempt: string) => {
    if (!signedIn || !roomUuid) return;
    setBusy(c.id);
    try {
      const current = account ?? (await refresh());
      if (!current) {
        toast.error(t("shop.noAccount"), () => void send(c, attempt));
        return;
      }
      const res = await buyConsumable(current, c, roomUuid, attempt);
      setAccount(res.account);
      toast.success(t("shop.sent", { name: c.name }));
    } catch (err) {
      const status = (err as { status?: number }).status;
      // The screen was out of date (balance or price): show the truth, and let the user look again.
      if (status === 409 || status === 422) void refresh();
      const retry =
        status === 0 || (status ?? 500) >= 500 ? () => void send(c, attempt) : undefined;
      toast.error(errorText(err, t), retry);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <ul
        className={`grid gap-3 ${compact ? "grid-cols-2" : "grid-cols-2 sm:grid-cols-3 lg:grid-cols-4"}`}
        data-testid="consumable-list"
      >
        {items.map((c) => {
          const short = account ? account.balance < c.tokenCost : false;
          return (
            <li
              key={c.id}
              className="flex flex-col overflow-hidden rounded-2xl border border-line bg-panel/70"
              data-testid="consumable-card"
            >
              <div className="grid aspect-square place-items-center bg-gradient-to-br from-brand/30 via-fuchsia-500/10 to-amber-300/20">
                {c.imageUrl ? (
                  <img
                    src={c.imageUrl}
                    alt=""
                    loading="lazy"
                    className={
                      c.displayType === "cover"
                        ? "size-full object-cover"
                        : "size-1/2 object-contain"
                    }
                  />
                ) : (
                  <Gift aria-hidden className="size-1/3 text-white/70" />
                )}
              </div>
              <div className="flex flex-1 flex-col gap-2 p-3">
                <div className="min-w-0">
                  <h3 className="truncate font-bold text-white">{c.name}</h3>
                  {c.description && !compact && (
                    <p className="line-clamp-2 text-sm text-ink-200">{c.description}</p>
                  )}
                </div>
                <p className="mt-auto flex items-center gap-1 text-sm font-semibold text-amber-100">
                  <Coins aria-hidden className="size-4 text-amber-300" />
                  {t("shop.cost", { count: n(c.tokenCost) })}
                </p>
                {roomUuid && signedIn ? (
                  short ? (
                    <Link to="/tokens" className={button("secondary", "sm")}>
                      {t("shop.getTokens")}
                    </Link>
                  ) : (
                    <button
                      type="button"
                      className={button("primary", "sm")}
                      onClick={() => choose(c)}
                      disabled={busy !== null}
                      data-testid="consumable-send"
                    >
                      {busy === c.id ? (
                        <Loader2 aria-hidden className="size-4 animate-spin" />
                      ) : (
                        <Gift aria-hidden className="size-4" />
                      )}
                      {busy === c.id ? t("shop.sending") : t("shop.send")}
                    </button>
                  )
                ) : null}
              </div>
            </li>
          );
        })}
      </ul>
      <ConfirmDialog
        open={chosen !== null}
        title={chosen ? t("shop.confirmTitle", { name: chosen.name }) : ""}
        confirmLabel={chosen ? t("shop.confirmButton", { count: n(chosen.tokenCost) }) : ""}
        onClose={() => setChosen(null)}
        onConfirm={() => {
          const c = chosen;
          setChosen(null);
          if (c) void send(c, key.current);
        }}
      >
        {chosen && (
          <p data-testid="confirm-cost">
            {t("shop.confirmBody", {
              count: n(chosen.tokenCost),
              balance: account ? n(account.balance) : "–",
            })}
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}
