import type { loader } from "~/routes/rooms._index";
import { Link, useLoaderData } from "@remix-run/react";
import { Plus } from "lucide-react";
import { useState } from "react";
import { RoomCard } from "~/components/room/RoomCard";
import { RoomFilters } from "~/components/room/RoomFilters";
import { useToast } from "~/components/Toaster";
import { button, PageTitle } from "~/components/ui";
import { useT, type MessageKey } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { ROOM_FAVORITES, type RoomDto } from "~/lib/rooms";

export function RoomListScreen() {
  const d = useLoaderData<typeof loader>();
  const t = useT();
  const toast = useToast();
  const [favs, setFavs] = useState(() => new Set(d.favorites.map((r) => r.uuid)));
  const [favRooms, setFavRooms] = useState<RoomDto[]>(d.favorites as RoomDto[]);

  // Optimistic: the star flips at once; a failure flips it back and says why (with a retry).
  const toggle = (room: RoomDto) => {
    const was = favs.has(room.uuid);
    const apply = (on: boolean) => {
      setFavs((s) => {
        const n = new Set(s);
        if (on) n.add(room.uuid);
        else n.delete(room.uuid);
        return n;
      });
      setFavRooms((list) =>
        on
          ? list.some((r) => r.uuid === room.uuid)
            ? list
            : [room, ...list]
          : list.filter((r) => r.uuid !== room.uuid),
      );
    };
    apply(!was);
    const req = was
      ? apiRequest(`${ROOM_FAVORITES}/${room.uuid}`, { method: "DELETE" })
      : apiRequest(ROOM_FAVORITES, { method: "POST", json: { roomUuid: room.uuid } });
    req.catch((err) => {
      apply(was);
      toast.error(
        t(was ? "rooms.unfavoriteFailed" : "rooms.favoriteFailed", { reason: errorText(err, t) }),
        () => toggle(room),
      );
    });
  };
  const card = (room: RoomDto) => (
    <RoomCard
      key={room.uuid}
      room={room}
      favorite={favs.has(room.uuid)}
      onToggleFavorite={d.signedIn ? () => toggle(room) : undefined}
    />
  );

  const filtering = !!(d.filters.q || d.filters.genre || d.filters.design);
  // A search in progress comes first (the form's navigation lands at the top of the page);
  // otherwise the user's own rooms do, and finding a new one follows.
  const searching = filtering || d.filters.sort !== "listeners";
  const discover = (
    <section className="mt-10" aria-labelledby="discover-heading">
      <h2 id="discover-heading" className="text-xl font-bold text-white">
        {t("discover.heading")}
      </h2>
      <RoomFilters key={JSON.stringify(d.filters)} filters={d.filters} />
      <Section
        title="rooms.public"
        count={d.publicError ? undefined : d.total}
        empty={
          d.publicRooms.length === 0
            ? d.publicError
              ? "errors.generic"
              : filtering
                ? "discover.empty"
                : "rooms.publicEmpty"
            : undefined
        }
        testId="public-rooms"
      >
        {(d.publicRooms as RoomDto[]).map(card)}
      </Section>
    </section>
  );
  return (
    <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <PageTitle>{t("rooms.heading")}</PageTitle>
          <p className="mt-2 text-ink-200">{t("rooms.lede")}</p>
        </div>
        {d.signedIn ? (
          <Link to="/rooms/new" className={button("primary")} data-testid="create-room">
            <Plus aria-hidden className="size-5" />
            {t("rooms.create")}
          </Link>
        ) : (
          <Link
            to={`/login?redirectTo=${encodeURIComponent("/rooms/new")}`}
            className={button("secondary")}
          >
            {t("rooms.loginToCreate")}
          </Link>
        )}
      </div>
      {searching && discover}
      {d.promoted.length > 0 && (
        <Section title="rooms.promoted">{(d.promoted as RoomDto[]).map(card)}</Section>
      )}
      {d.signedIn && (
        <Section
          title="rooms.favorites"
          empty={favRooms.length === 0 ? "rooms.favoritesEmpty" : undefined}
          testId="favorites"
        >
          {favRooms.map(card)}
        </Section>
      )}
      {d.recent.length > 0 && (
        <Section title="rooms.recent">{(d.recent as RoomDto[]).map(card)}</Section>
      )}
      {!searching && discover}
    </div>
  );
}

function Section({
  title,
  children,
  empty,
  testId,
  count,
}: {
  title: MessageKey;
  children: React.ReactNode;
  empty?: MessageKey;
  testId?: string;
  count?: number;
}) {
  const t = useT();
  return (
    <section className="mt-10" data-testid={testId}>
      <h2 className="mb-4 flex items-baseline gap-3 text-xl font-bold text-white">
        {t(title)}
        {count !== undefined && (
          <span className="text-sm font-medium text-ink-200" data-testid="room-count">
            {t("discover.results", { count })}
          </span>
        )}
      </h2>
      {empty ? (
        <p className="rounded-2xl border border-dashed border-white/20 px-4 py-6 text-ink-200">
          {t(empty)}
        </p>
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">{children}</ul>
      )}
    </section>
  );
}
