import { BadgeCheck, Disc3, Gem, Music2, ShieldCheck, type LucideIcon } from "lucide-react";
import { hasKey, useT } from "~/i18n";
import { BADGES, type Badge } from "../../../shared/roles";

/** Each platform badge's mark (issue 15: "shown on profiles and in rooms"). */
const MARKS: Record<Badge, { icon: LucideIcon; color: string }> = {
  VERIFIED: { icon: BadgeCheck, color: "#5ab0ff" },
  STAFF: { icon: ShieldCheck, color: "#f5c542" },
  DOUBLE_PLATINUM: { icon: Gem, color: "#e6e8ff" },
  PLATINUM: { icon: Disc3, color: "#d6d9e6" },
  JQBX: { icon: Music2, color: "#ff8ad8" },
};

/**
 * A person's badges beside their name or on their avatar, in a fixed order. The room keeps
 * them current (allUserData, `updatedUserProfile`), so a badge given while the page is open
 * shows without a reload. `compact`: the first badge only, as a dot on the avatar's corner.
 */
export function PersonBadges({
  badges,
  compact = false,
}: {
  badges: readonly string[] | undefined;
  compact?: boolean;
}) {
  const t = useT();
  const shown = BADGES.filter((b) => badges?.includes(b));
  if (!shown.length) return null;
  const label = (b: Badge) => (hasKey(`badge.${b}`) ? t(`badge.${b}` as "badge.STAFF") : b);
  const list = compact ? shown.slice(0, 1) : shown;
  return (
    <span
      className={
        compact
          ? "pointer-events-none absolute -bottom-1 -right-1 grid size-5 place-items-center rounded-full bg-ink-900/90 ring-1 ring-white/20"
          : "inline-flex shrink-0 items-center gap-0.5"
      }
      role="img"
      aria-label={`${t("profile.badges")}: ${shown.map(label).join(", ")}`}
      title={shown.map(label).join(", ")}
      data-testid="person-badges"
      data-badges={shown.join(" ")}
    >
      {list.map((b) => {
        const { icon: Icon, color } = MARKS[b];
        return (
          <Icon key={b} aria-hidden className={compact ? "size-3.5" : "size-4"} style={{ color }} />
        );
      })}
    </span>
  );
}
