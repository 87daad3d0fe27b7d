import { useT } from "~/i18n";
import type { RoomProfile } from "~/lib/rooms";
import type { ModMenu, NameOf } from "./people";
import { UserAvatar } from "./UserAvatar";

/** Who is banned or muted in this room, for moderators, each with their menu. */
export function RestrictedList({
  restricted,
  present,
  profiles,
  nameOf,
  modMenu,
}: {
  restricted: { uuid: string; held: Set<string> }[];
  /** Whether someone is in the room now (on the stage or the floor). */
  present: (uuid: string) => boolean;
  profiles: Record<string, RoomProfile>;
  nameOf: NameOf;
  modMenu: ModMenu;
}) {
  const t = useT();
  return (
    <section
      aria-labelledby="restricted-heading"
      className="rounded-3xl border border-white/10 bg-black/25 p-4 sm:p-5"
      data-testid="restricted"
    >
      <h2 id="restricted-heading" className="mb-3 text-lg font-bold text-white">
        {t("room.mod.restricted")}
      </h2>
      <ul className="flex flex-wrap gap-3">
        {restricted.map(({ uuid, held }) => {
          const u = { uuid, tokenRole: "user" as const };
          return (
            <li
              key={uuid}
              className="flex items-center gap-2 rounded-full bg-black/30 py-1 pl-1 pr-3"
              data-testid="restricted-user"
              data-user={uuid}
            >
              {modMenu(
                u,
                <UserAvatar
                  profile={profiles[uuid]}
                  fallbackName={nameOf(u)}
                  size={32}
                  alt={nameOf(u)}
                />,
                { present: present(uuid) },
              )}
              <span className="text-sm font-semibold text-white">{nameOf(u)}</span>
              <span className="text-xs text-ink-100">
                {[
                  held.has("banned") && t("room.mod.roleBanned"),
                  held.has("chatDisabled") && t("room.mod.roleMuted"),
                ]
                  .filter(Boolean)
                  .join(" · ")}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
