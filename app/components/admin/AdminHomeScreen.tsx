import { Link } from "@remix-run/react";
import { ChevronRight } from "lucide-react";
import { PageTitle } from "~/components/ui";
import { useT } from "~/i18n";
import { ADMIN_SECTIONS } from "./AdminNav";

/** The admin home: every admin page as a card, its name and what it is for. */
export function AdminHomeScreen() {
  const t = useT();
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <PageTitle>{t("adminHome.heading")}</PageTitle>
      <p className="mt-2 max-w-2xl text-ink-100">{t("adminHome.lede")}</p>
      <ul className="mt-6 grid gap-3 sm:grid-cols-2 lg:grid-cols-3" data-testid="admin-home">
        {ADMIN_SECTIONS.map((s) => (
          <li key={s.to}>
            <Link
              to={s.to}
              className="group flex h-full items-start justify-between gap-3 rounded-2xl border border-line bg-panel/80 p-5 transition hover:border-brand-light/60 hover:bg-white/5 focus-visible:outline-2 focus-visible:outline-white"
              data-testid="admin-home-link"
            >
              <span>
                <span className="block text-lg font-bold text-white">{t(s.label)}</span>
                <span className="mt-1 block text-sm text-ink-200">{t(s.about)}</span>
              </span>
              <ChevronRight
                aria-hidden
                className="mt-1 size-5 shrink-0 text-ink-300 transition group-hover:translate-x-0.5 group-hover:text-white"
              />
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
