import { Form, Link, NavLink, useLocation } from "@remix-run/react";
import {
  Library,
  ListMusic,
  LogOut,
  Radio,
  Search,
  ShieldCheck,
  Trophy,
  Upload,
  UserRound,
  Users,
} from "lucide-react";
import { LOCALE_COOKIE, LOCALES, useLocale, useT, type Locale, type MessageKey } from "~/i18n";
import type { User } from "~/lib/types";
import { Avatar } from "~/components/Avatar";
import { TokenBalanceBadge } from "~/components/shop/TokenBalance";
import { buttonClass, button } from "~/components/ui";
import { MessagesLink } from "~/components/messages/MessagesLink";
import { NotificationBell } from "./NotificationBell";

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
      <circle
        cx="16"
        cy="16"
        r="10.5"
        fill="none"
        stroke="#0C0A16"
        strokeOpacity="0.35"
        strokeWidth="1"
      />
      <circle
        cx="16"
        cy="16"
        r="7"
        fill="none"
        stroke="#0C0A16"
        strokeOpacity="0.35"
        strokeWidth="1"
      />
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
    <div
      role="group"
      aria-label={t("lang.label")}
      className="flex items-center rounded-full border border-white/15 bg-white/5 p-0.5 text-sm"
    >
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
            l === current
              ? "bg-white text-ink-950"
              : "text-ink-200 hover:bg-white/10 hover:text-white"
          }`}
        >
          <span aria-hidden>{l}</span>
          <span className="sr-only">{t(`lang.${l}`)}</span>
        </Link>
      ))}
    </div>
  );
}

/** The music pages a signed-in listener moves between. */
const MUSIC_NAV: {
  to: string;
  label: MessageKey;
  icon: typeof Search;
  testId: string;
  wideOnly?: boolean;
}[] = [
  { to: "/rooms", label: "nav.rooms", icon: Radio, testId: "nav-rooms" },
  { to: "/search", label: "nav.search", icon: Search, testId: "nav-search" },
  { to: "/crates", label: "nav.crates", icon: Library, testId: "nav-crates" },
  { to: "/queue", label: "nav.queue", icon: ListMusic, testId: "nav-queue" },
  { to: "/upload", label: "nav.upload", icon: Upload, testId: "nav-upload" },
  // Phones have room for five tabs; the ranking is one tap away on the profile there.
  { to: "/ranking", label: "nav.ranking", icon: Trophy, testId: "nav-ranking", wideOnly: true },
  // Phones reach friends from the profile (and the bell), as with the ranking.
  { to: "/friends", label: "nav.friends", icon: Users, testId: "nav-friends", wideOnly: true },
];

/**
 * Search, Crates, Queue, Upload. Phones: a row of small tabs (icon over label) beside the
 * logo mark; wider screens: pills with the label beside the icon.
 */
function MusicNav() {
  const t = useT();
  return (
    <nav aria-label={t("nav.music")} className="min-w-0 flex-1 xl:flex-none">
      <ul className="flex items-center justify-end gap-0.5 sm:justify-start sm:gap-1">
        {MUSIC_NAV.map(({ to, label, icon: Icon, testId, wideOnly }) => (
          <li key={to} className={wideOnly ? "max-sm:hidden" : undefined}>
            <NavLink
              to={to}
              prefetch="intent"
              data-testid={testId}
              className={({ isActive }) =>
                `flex flex-col items-center gap-0.5 rounded-xl px-2 py-1 text-[11px] font-semibold leading-tight transition sm:flex-row sm:gap-2 sm:rounded-full sm:px-3.5 sm:py-2 sm:text-sm xl:gap-1.5 xl:px-2.5 2xl:px-3.5 ${
                  isActive
                    ? "bg-white/12 text-white ring-1 ring-white/20"
                    : "text-ink-200 hover:bg-white/8 hover:text-white"
                }`
              }
            >
              {/* 1280-1535 px: the words alone, so the header keeps one row. */}
              <Icon aria-hidden className="size-5 sm:size-4 xl:max-2xl:hidden" />
              <span>{t(label)}</span>
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
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
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6 xl:gap-x-2.5">
        <Link
          to="/"
          className="flex shrink-0 items-center gap-2 rounded-full text-xl font-extrabold tracking-tight text-white"
          aria-label={t("nav.home")}
        >
          <Logo />
          {/* Signed in, phones keep the mark only: the music tabs need the room. */}
          <span aria-hidden className={user ? "max-sm:hidden" : undefined}>
            {t("app.name")}
          </span>
        </Link>

        {/* DOM order = visual order at every width (logo, music, language, account), so Tab follows the eye. */}
        {user && (
          <>
            <MusicNav />
            {/* Below xl the language and account drop to a second row; from 1280 px it is
                one row (issue 20), the account's words giving way to icons until 2xl. */}
            <div aria-hidden className="h-0 basis-full xl:hidden" />
          </>
        )}

        <div className={user ? "xl:ml-auto" : "ml-auto"}>
          <LanguageSwitch />
        </div>

        <nav
          aria-label={t("nav.main")}
          className={`flex items-center justify-between gap-2 text-sm sm:text-base ${
            user ? "min-w-0 flex-1 justify-end xl:flex-none" : "w-full sm:w-auto sm:justify-end"
          }`}
        >
          {user ? (
            <>
              <MessagesLink />
              <NotificationBell />
              <TokenBalanceBadge />
              <Link
                to="/profile"
                className="flex min-w-0 items-center gap-2 rounded-full py-1 pl-1 pr-3 transition hover:bg-white/10"
                aria-label={t("nav.profile", { name: user.nickname })}
              >
                <Avatar
                  name={user.nickname}
                  src={user.profilePicture}
                  color={user.color}
                  size={32}
                />
                <span
                  className="max-w-[14ch] truncate font-semibold xl:max-2xl:sr-only"
                  data-testid="header-nickname"
                >
                  {user.nickname}
                </span>
              </Link>
              <div className="flex shrink-0 items-center gap-1">
                {isAdmin && (
                  <Link to="/admin" className={buttonClass.ghost} data-testid="nav-admin">
                    <ShieldCheck aria-hidden className="size-4" />
                    <span className="max-sm:sr-only xl:max-2xl:sr-only">{t("nav.admin")}</span>
                  </Link>
                )}
                <Form method="post" action="/logout">
                  <button type="submit" className={buttonClass.ghost} title={t("nav.logout")}>
                    <LogOut aria-hidden className="size-4" />
                    {/* Phones keep the icon (the name gets the room); the words stay for screen readers. */}
                    <span className="max-sm:sr-only xl:max-2xl:sr-only">{t("nav.logout")}</span>
                  </button>
                </Form>
              </div>
            </>
          ) : (
            <>
              <span
                className="flex min-w-0 items-center gap-2 text-ink-200"
                data-testid="header-guest"
              >
                <span className="grid size-8 place-items-center rounded-full bg-white/10 ring-2 ring-white/15">
                  <UserRound aria-hidden className="size-4" />
                </span>
                {t("nav.guest")}
              </span>
              <div className="flex shrink-0 items-center gap-1 sm:gap-2">
                <Link to="/rooms" className={button("ghost")} data-testid="nav-rooms">
                  <Radio aria-hidden className="size-4" />
                  <span className="max-sm:sr-only">{t("nav.rooms")}</span>
                </Link>
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
