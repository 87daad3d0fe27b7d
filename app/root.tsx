import { useNonce } from "~/lib/nonce";
import { data, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import {
  Link,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useRouteLoaderData,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { RouteErrorBoundary } from "./components/ErrorPage";
import { VerifyEmailBanner } from "~/components/layout/VerifyEmailBanner";
import { Header, LanguageSwitch, Logo } from "./components/layout/Header";
import { PlayerProvider } from "./components/songs/Player";
import { ToastProvider } from "./components/Toaster";
import { BannedScreen } from "./components/moderation/BannedScreen";
import { TokenBalanceProvider } from "./components/shop/TokenBalance";
import { DEFAULT_LOCALE, pageMeta, useT, type Locale } from "./i18n";
import { resolveLocale } from "./i18n/locale.server";
import { callApi } from "./lib/api.server";
import { getSession } from "./lib/session.server";
import { MERCH, type TokenAccount } from "./lib/shop";
import "./styles.css";

/**
 * Every page's shared data: the language and the signed-in user (null for a guest). Never a
 * token: the browser's own API calls and room sockets ride the HttpOnly session cookie
 * (workers/lib/web-sessions.ts), so a script on the page has nothing to steal (issue 13).
 */
export async function loader(args: LoaderFunctionArgs) {
  const { locale, setCookie: localeCookie } = resolveLocale(args.request);
  const session = await getSession(args);
  const headers = new Headers();
  if (localeCookie) headers.append("Set-Cookie", localeCookie);
  if (session.setCookie) headers.append("Set-Cookie", session.setCookie);
  const tokens = session.user && session.token ? await tokenAccount(args, session.token) : null;
  return data(
    {
      locale,
      user: session.user,
      isAdmin: session.isAdmin,
      /** The ban's words when this browser's account is banned: the page shows only them. */
      banned: session.banned ?? null,
      /** The header's token balance (null: signed out, or the shop did not answer). */
      tokens,
      devTools: args.context.env.ENVIRONMENT === "development",
    },
    { headers },
  );
}

/**
 * The signed-in user's token account for the header: read it, and make it on first view
 * (the spec has one per user). A failure leaves the balance out; the page still renders.
 */
async function tokenAccount(args: LoaderFunctionArgs, token: string): Promise<TokenAccount | null> {
  const self = await callApi<TokenAccount>(args, `${MERCH}/token-accounts/self`, { token });
  if (self.ok) return self.data;
  if (self.status !== 404) return null;
  const made = await callApi<TokenAccount>(args, `${MERCH}/token-accounts`, {
    method: "POST",
    token,
  });
  return made.ok ? made.data : null;
}

export type RootData = Awaited<ReturnType<typeof loader>>["data"];

export const meta = pageMeta("home.title");

export function Layout({ children }: { children: ReactNode }) {
  const root = useRouteLoaderData("root") as { locale?: Locale } | undefined;
  const nonce = useNonce();
  return (
    <html lang={root?.locale ?? DEFAULT_LOCALE}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#07060d" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  const { user, isAdmin, devTools, tokens, banned } = useLoaderData<typeof loader>();
  const t = useT();
  return (
    <ToastProvider>
      <PlayerProvider>
        <TokenBalanceProvider initial={tokens} signedIn={user !== null}>
          {/* Room at the bottom for the fixed player bar (signed-in pages show it). */}
          {/* --banner-space: the verify-your-e-mail banner's height, which the room's chat column keeps clear. */}
          <div
            className={`flex min-h-dvh flex-col has-[[data-testid=verify-banner]]:[--banner-space:3.5rem] ${user ? "pb-28 sm:pb-20" : ""}`}
          >
            <Header user={user} isAdmin={isAdmin} />
            <VerifyEmailBanner user={user} />
            <main id="main" tabIndex={-1} className="flex-1 outline-none">
              {banned ? <BannedScreen message={banned} /> : <Outlet />}
            </main>
            <footer className="border-t border-white/10">
              <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-6 text-sm text-ink-300 sm:px-6">
                <p>{t("app.footer")}</p>
                {devTools && (
                  <Link
                    to="/dev/outbox"
                    className="underline decoration-white/30 underline-offset-4 hover:text-white"
                  >
                    {t("nav.devOutbox")}
                  </Link>
                )}
              </div>
            </footer>
          </div>
        </TokenBalanceProvider>
      </PlayerProvider>
    </ToastProvider>
  );
}

/** When even the root fails: a page of its own, no user data needed. */
export function ErrorBoundary() {
  const t = useT();
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="border-b border-white/10">
        <div className="mx-auto flex max-w-6xl items-center justify-between gap-4 px-4 py-3 sm:px-6">
          <a
            href="/"
            className="flex items-center gap-2 text-xl font-extrabold tracking-tight text-white"
            aria-label={t("nav.home")}
          >
            <Logo />
            <span aria-hidden>{t("app.name")}</span>
          </a>
          <LanguageSwitch />
        </div>
      </header>
      <main id="main" className="flex-1">
        <RouteErrorBoundary />
      </main>
    </div>
  );
}
