import { Link } from "@remix-run/react";
import { Coins } from "lucide-react";
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from "react";
import { useLocale, useT } from "~/i18n";
import { fetchOwnAccount, type TokenAccount } from "~/lib/shop";

/**
 * The signed-in user's token account, shared by the header and the shop. The root loader
 * gives the first value (server-rendered, so no jump); after that it changes at once when
 * a purchase answers (`setAccount`) and is read again whenever the tab regains focus (a
 * bundle bought in another tab or through checkout shows up when the user comes back).
 */
interface TokenBalanceApi {
  account: TokenAccount | null;
  setAccount: (a: TokenAccount) => void;
  refresh: () => Promise<TokenAccount | null>;
}

const BalanceContext = createContext<TokenBalanceApi | null>(null);

export function TokenBalanceProvider({
  initial,
  signedIn,
  children,
}: {
  initial: TokenAccount | null;
  signedIn: boolean;
  children: ReactNode;
}) {
  const [account, setState] = useState(initial);
  // A newer loader value (after navigation or an action) wins over what we hold, but an
  // older one never rolls back a purchase we already showed.
  useEffect(() => {
    if (initial)
      setState((cur) =>
        cur && cur.id === initial.id && cur.updatedAt > initial.updatedAt ? cur : initial,
      );
    else if (!signedIn) setState(null);
  }, [initial, signedIn]);
  const setAccount = useCallback(
    (a: TokenAccount) =>
      setState((cur) => (cur && cur.id === a.id && cur.updatedAt > a.updatedAt ? cur : a)),
    [],
  );
  const inFlight = useRef<Promise<TokenAccount | null> | null>(null);
  const refresh = useCallback(() => {
    if (!signedIn) return Promise.resolve(null);
    inFlight.current ??= fetchOwnAccount()
      .then((a) => {
        setState(a);
        return a;
      })
      .catch(() => null)
      .finally(() => {
        inFlight.current = null;
      });
    return inFlight.current;
  }, [signedIn]);
  useEffect(() => {
    if (!signedIn) return;
    const onFocus = () => document.visibilityState === "visible" && void refresh();
    window.addEventListener("focus", onFocus);
    document.addEventListener("visibilitychange", onFocus);
    // The loader could not read it (first view, or the shop was down): try from here.
    if (!initial) void refresh();
    return () => {
      window.removeEventListener("focus", onFocus);
      document.removeEventListener("visibilitychange", onFocus);
    };
  }, [signedIn, refresh, initial]);
  const api = useMemo(() => ({ account, setAccount, refresh }), [account, setAccount, refresh]);
  return <BalanceContext.Provider value={api}>{children}</BalanceContext.Provider>;
}

const NONE: TokenBalanceApi = { account: null, setAccount: () => {}, refresh: async () => null };
export const useTokenBalance = () => useContext(BalanceContext) ?? NONE;

/** The header's balance: a coin and the number, linking to the shop. */
export function TokenBalanceBadge() {
  const t = useT();
  const locale = useLocale();
  const { account } = useTokenBalance();
  const count = account ? new Intl.NumberFormat(locale).format(account.balance) : "–";
  return (
    <Link
      to="/shop"
      prefetch="intent"
      className="flex shrink-0 items-center gap-1.5 rounded-full border border-amber-300/30 bg-amber-300/10 px-2.5 py-1.5 text-sm font-bold text-amber-100 transition hover:bg-amber-300/20"
      aria-label={
        account ? t("shop.balanceLabel", { count: account.balance }) : t("shop.balanceUnknown")
      }
      title={
        account ? t("shop.balanceLabel", { count: account.balance }) : t("shop.balanceUnknown")
      }
    >
      <Coins aria-hidden className="size-4 text-amber-300" />
      <span data-testid="token-balance" className="tabular-nums">
        {count}
      </span>
    </Link>
  );
}
