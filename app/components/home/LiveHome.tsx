import { Link } from "@remix-run/react";
import { Plus, Radio } from "lucide-react";
import { RoomCard } from "~/components/room/RoomCard";
import { button } from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";
import type { DiscoverRoom } from "~/lib/discover";

export interface LiveRooms {
  busiest: DiscoverRoom[];
  friends: DiscoverRoom[];
  favorites: DiscoverRoom[];
  failed: boolean;
}

/**
 * The signed-in home page (issue 20): where the music is right now, not a mock-up. The
 * main button goes to the rooms; below, the busiest rooms, the ones friends are in and the
 * user's favourites, each card as on /rooms (what plays, the DJ, the crowd, friends).
 */
export function LiveHome({ name, live }: { name: string; live: LiveRooms }) {
  const t = useT();
  return (
    <div className="mx-auto max-w-6xl px-4 pb-16 pt-10 sm:px-6" data-testid="live-home">
      <section className="flex flex-wrap items-end justify-between gap-6">
        <div className="max-w-2xl">
          <p className="inline-flex items-center gap-2 rounded-full border border-neon/40 bg-neon/10 px-3 py-1 text-sm font-semibold text-ink-50">
            <Radio aria-hidden className="size-4 text-neon" />
            {t("home.eyebrow")}
          </p>
          <h1 className="mt-4 text-3xl font-extrabold tracking-tight text-balance text-white sm:text-5xl">
            {t("home.welcomeBack", { name })}
          </h1>
          <p className="mt-3 text-lg text-ink-200">{t("rooms.lede")}</p>
        </div>
        <div className="flex flex-wrap gap-3">
          <Link to="/rooms" className={button("primary", "lg")} data-testid="home-find-room">
            {t("homeLive.ctaRooms")}
          </Link>
          <Link to="/rooms/new" className={button("secondary", "lg")}>
            <Plus aria-hidden className="size-5" />
            {t("homeLive.create")}
          </Link>
        </div>
      </section>
      <Row
        title="homeLive.busiest"
        rooms={live.busiest}
        empty={live.failed ? "errors.generic" : "homeLive.none"}
        testId="home-busiest"
      />
      <Row
        title="homeLive.friends"
        rooms={live.friends}
        empty="homeLive.friendsNone"
        testId="home-friends"
      />
      {live.favorites.length > 0 && (
        <Row title="homeLive.favorites" rooms={live.favorites} testId="home-favorites" />
      )}
      <p className="mt-10 text-center">
        <Link to="/rooms" className={button("secondary")}>
          {t("homeLive.allRooms")}
        </Link>
      </p>
    </div>
  );
}

function Row({
  title,
  rooms,
  empty,
  testId,
}: {
  title: MessageKey;
  rooms: DiscoverRoom[];
  empty?: MessageKey;
  testId: string;
}) {
  const t = useT();
  return (
    <section className="mt-10" data-testid={testId}>
      <h2 className="mb-4 text-xl font-bold text-white">{t(title)}</h2>
      {rooms.length === 0 ? (
        <p className="rounded-2xl border border-dashed border-white/20 px-4 py-6 text-ink-200">
          {empty && t(empty)}
        </p>
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {rooms.map((r) => (
            <RoomCard key={r.uuid} room={r} />
          ))}
        </ul>
      )}
    </section>
  );
}
