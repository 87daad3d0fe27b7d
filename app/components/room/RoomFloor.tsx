import { useLocale, useT } from "~/i18n";
import type { RoomProfile } from "~/lib/rooms";
import type { RoomUser, UserData } from "../../../shared/protocol";
import { Dancer, type DanceLevel } from "./Dancer";
import { Floor } from "./Floor";
import type { ModMenu, NameOf } from "./people";
import { PersonBadges } from "./PersonBadges";
import { UserAvatar } from "./UserAvatar";

/** The floor section: the listeners' avatars, a shimmer while connecting, or "nobody here". */
export function RoomFloor({
  audience,
  audienceCount,
  userData,
  connecting,
  profiles,
  nameOf,
  modMenu,
  dance = "still",
  jumps = {},
}: {
  audience: RoomUser[];
  /** How many are on the floor: a stadium's state names only the first arrivals. */
  audienceCount: number;
  userData: Record<string, UserData> | undefined;
  connecting: boolean;
  profiles: Record<string, RoomProfile>;
  nameOf: NameOf;
  modMenu: ModMenu;
  /** How hard the floor dances now (Dancer.tsx danceLevel). */
  dance?: DanceLevel;
  /** Likes per listener, to bob on each new one (useRoom's jumps). */
  jumps?: Record<string, number>;
}) {
  const t = useT();
  const locale = useLocale();
  return (
    <section
      aria-labelledby="floor-heading"
      className="rounded-3xl border border-white/10 bg-black/25 p-4 sm:p-5"
    >
      <h2 id="floor-heading" className="mb-3 text-lg font-bold text-white">
        {t("room.floor")}{" "}
        <span className="text-sm font-medium text-ink-200">
          ({audienceCount.toLocaleString(locale)})
        </span>
      </h2>
      {connecting ? (
        <div className="flex h-48 items-center justify-center gap-2 sm:h-56" aria-hidden>
          {Array.from({ length: 6 }, (_, i) => (
            <span key={i} className="size-10 animate-pulse rounded-full bg-white/10" />
          ))}
        </div>
      ) : audienceCount === 0 ? (
        <p className="text-sm text-ink-100">{t("room.floorEmpty")}</p>
      ) : (
        <Floor
          audience={audience}
          count={audienceCount}
          locale={locale}
          userData={userData}
          label={nameOf}
          render={(u) =>
            modMenu(
              u,
              <Dancer
                level={dance}
                jumps={jumps[u.uuid]}
                offset={userData?.[u.uuid]?.position?.x ?? 0}
              >
                <span className="relative inline-block">
                  <UserAvatar profile={profiles[u.uuid]} fallbackName={nameOf(u)} alt={nameOf(u)} />
                  <PersonBadges badges={profiles[u.uuid]?.badges} compact />
                </span>
              </Dancer>,
            )
          }
        />
      )}
    </section>
  );
}
