import { NavLink } from "@remix-run/react";
import { useT, type MessageKey } from "~/i18n";

/** The admin sections, as tabs above an admin page (add a section here when it lands). */
const SECTIONS: { to: string; label: MessageKey }[] = [
  { to: "/admin/users", label: "adminNav.users" },
  { to: "/admin/audit", label: "adminNav.audit" },
  { to: "/admin/deactivations", label: "adminNav.deactivations" },
  { to: "/admin/phones", label: "adminNav.phones" },
  { to: "/admin/consumables", label: "adminNav.consumables" },
  { to: "/admin/token-bundles", label: "adminNav.tokenBundles" },
  { to: "/admin/seasons", label: "adminNav.seasons" },
  { to: "/admin/ranking-status", label: "adminNav.rankingStatus" },
  { to: "/admin/points-dead-letters", label: "adminNav.deadLetters" },
  { to: "/admin/avatars", label: "adminNav.avatars" },
  { to: "/admin/products", label: "adminNav.products" },
];

export function AdminNav() {
  const t = useT();
  return (
    <nav aria-label={t("adminNav.label")} className="mb-6 overflow-x-auto">
      <ul className="flex gap-1">
        {SECTIONS.map((s) => (
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
