import { Form, Link, useLocation } from "@remix-run/react";
import { LogOut, ShieldCheck, UserRound } from "lucide-react";
import { LOCALE_COOKIE, LOCALES, useLocale, useT, type Locale } from "~/i18n";
import type { User } from "~/lib/types";
import { Avatar } from "./Avatar";
import { buttonClass, button } from "./ui";

/** The brand mark: a record lit in the venue colours. */
export function Logo({ size = 28 }: { size?: number }) {
  return (
    <svg viewBox="0 0 32 32" width={size} height={size} aria-hidden focusable="false">
      <defs>
        <linearGradient id="logo-g" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#562DF9" />
          <stop offset="1" stopColor="#FF4FA3" />
        </linearGradient>
      </defs>
      <circle cx="16" cy="16" r="15" fill="url(#logo-g)" />
      <circle cx="16" cy="16" r="10.5" fill="none" stroke="#0C0A16" strokeOpacity="0.35" strokeWidth="1" />
      <circle cx="16" cy="16" r="7" fill="none" stroke="#0C0A16" strokeOpacity="0.35" strokeWidth="1" />
      <circle cx="16" cy="16" r="3.2" fill="#0C0A16" />
      <circle cx="16" cy="16" r="1.1" fill="#F5F3FF" />
    </svg>
  );
}

/** EN / ES: a plain link (`?lang=` saves the choice on the server), plus cookie and localStorage in the browser. */
export function LanguageSwitch() {
  const t = useT();
  const current = useLocale();
  const location = useLocation();
  const hrefFor = (l: Locale) => {
    const params = new URLSearchParams(location.search);
    params.set("lang", l);
    return `${location.pathname}?${params}`;
  };
  const remember = (l: Locale) => {
    document.cookie = `${LOCALE_COOKIE}=${l}; Path=/; Max-Age=31536000; SameSite=Lax`;
    try {
      localStorage.setItem(LOCALE_COOKIE, l);
    } catch {
      /* storage can be off (private mode): the cookie is enough */
    }
  };
  return (
    <div role="group" aria-label={t("lang.label")} className="flex items-center rounded-full border border-white/15 bg-white/5 p-0.5 text-sm">
      {LOCALES.map((l) => (
        <Link
          key={l}
          to={hrefFor(l)}
          onClick={() => remember(l)}
          hrefLang={l}
          lang={l}
          aria-current={l === current ? "true" : undefined}
          preventScrollReset
          className={`rounded-full px-2.5 py-1 font-semibold uppercase transition ${
            l === current ? "bg-white text-ink-950" : "text-ink-200 hover:bg-white/10 hover:text-white"
          }`}
        >
          <span aria-hidden>{l}</span>
          <span className="sr-only">{t(`lang.${l}`)}</span>
        </Link>
      ))}
    </div>
  );
}

export function Header({ user, isAdmin }: { user: User | null; isAdmin: boolean }) {
  const t = useT();
  return (
    <header className="sticky top-0 z-30 border-b border-white/10 bg-ink-950/80 backdrop-blur-md">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-3 focus:z-50 focus:rounded-full focus:bg-white focus:px-4 focus:py-2 focus:font-semibold focus:text-ink-950"
      >
        {t("nav.skip")}
      </a>
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6">
        <Link to="/" className="flex items-center gap-2 rounded-full text-xl font-extrabold tracking-tight text-white" aria-label={t("nav.home")}>
          <Logo />
          <span aria-hidden>{t("app.name")}</span>
        </Link>

        {/* DOM order = visual order at every width (logo, language, account), so Tab follows the eye. */}
        <div className="ml-auto">
          <LanguageSwitch />
        </div>

        <nav aria-label={t("nav.main")} className="flex w-full items-center justify-between gap-2 text-sm sm:w-auto sm:justify-end sm:text-base">
          {user ? (
            <>
              <Link
                to="/profile"
                className="flex min-w-0 items-center gap-2 rounded-full py-1 pl-1 pr-3 transition hover:bg-white/10"
                aria-label={t("nav.profile", { name: user.nickname })}
              >
                <Avatar name={user.nickname} src={user.profilePicture} color={user.color} size={32} />
                <span className="max-w-[14ch] truncate font-semibold" data-testid="header-nickname">
                  {user.nickname}
                </span>
              </Link>
              <div className="flex shrink-0 items-center gap-1">
                {isAdmin && (
                  <Link to="/admin/users" className={buttonClass.ghost}>
                    <ShieldCheck aria-hidden className="size-4" />
                    <span className="max-sm:sr-only">{t("nav.admin")}</span>
                  </Link>
                )}
                <Form method="post" action="/logout">
                  <button type="submit" className={buttonClass.ghost}>
                    <LogOut aria-hidden className="size-4" />
                    <span>{t("nav.logout")}</span>
                  </button>
                </Form>
              </div>
            </>
          ) : (
            <>
              <span className="flex min-w-0 items-center gap-2 text-ink-200" data-testid="header-guest">
                <span className="grid size-8 place-items-center rounded-full bg-white/10 ring-2 ring-white/15">
                  <UserRound aria-hidden className="size-4" />
                </span>
                {t("nav.guest")}
              </span>
              <div className="flex shrink-0 items-center gap-1 sm:gap-2">
                <Link to="/login" className={button("ghost")}>
                  {t("nav.login")}
                </Link>
                <Link to="/signup" className={button("primary", "nav")}>
                  {t("nav.signup")}
                </Link>
              </div>
            </>
          )}
        </nav>
      </div>
    </header>
  );
}
