import { NavLink } from "@remix-run/react";
import { useT, type MessageKey } from "~/i18n";

/**
 * The admin sections, as tabs above an admin page and as the cards of the admin home
 * (/admin): add a section here when it lands, with its one-line description.
 */
export const ADMIN_SECTIONS: { to: string; label: MessageKey; about: MessageKey }[] = [
  { to: "/admin/users", label: "adminNav.users", about: "adminHome.users" },
  { to: "/admin/audit", label: "adminNav.audit", about: "adminHome.audit" },
  { to: "/admin/deactivations", label: "adminNav.deactivations", about: "adminHome.deactivations" },
  { to: "/admin/phones", label: "adminNav.phones", about: "adminHome.phones" },
  { to: "/admin/consumables", label: "adminNav.consumables", about: "adminHome.consumables" },
  { to: "/admin/token-bundles", label: "adminNav.tokenBundles", about: "adminHome.tokenBundles" },
  { to: "/admin/seasons", label: "adminNav.seasons", about: "adminHome.seasons" },
  {
    to: "/admin/ranking-status",
    label: "adminNav.rankingStatus",
    about: "adminHome.rankingStatus",
  },
  {
    to: "/admin/points-dead-letters",
    label: "adminNav.deadLetters",
    about: "adminHome.deadLetters",
  },
  { to: "/admin/avatars", label: "adminNav.avatars", about: "adminHome.avatars" },
  { to: "/admin/products", label: "adminNav.products", about: "adminHome.products" },
];

export function AdminNav() {
  const t = useT();
  return (
    <nav aria-label={t("adminNav.label")} className="mb-6 overflow-x-auto">
      <ul className="flex gap-1">
        {ADMIN_SECTIONS.map((s) => (
          <li key={s.to}>
            <NavLink
              to={s.to}
              className={({ isActive }) =>
                `block whitespace-nowrap rounded-full px-4 py-2 text-sm font-semibold transition ${isActive ? "bg-white text-ink-950" : "text-ink-100 hover:bg-white/10"}`
              }
            >
              {t(s.label)}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
