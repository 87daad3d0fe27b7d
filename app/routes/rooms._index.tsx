import { data, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { ROOM_SERVICE, type RoomDto } from "~/lib/rooms";
import { discoverFilters, discoverQueryString, type DiscoverRoom } from "~/lib/discover";
import { getSession } from "~/lib/session.server";
import { RoomListScreen } from "~/components/room/RoomListScreen";

export const meta = pageMeta("rooms.title");

/**
 * Browse: promoted rooms, the user's favourites and recent rooms (issue 4, "Web pages"), and
 * discovery (issue 20): the search, sort and filters are the page's query string, so a
 * search is a link that can be shared, reloaded and works before the scripts load. The
 * room-service validates them; a hand-edited bad value falls back to the defaults here.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await getSession(args);
  const token = session.token;
  const filters = discoverFilters(new URL(args.request.url).searchParams);
  const [pub, promoted, favorites, recent] = await Promise.all([
    callApi<{ data: DiscoverRoom[]; total: number }>(
      args,
      `${ROOM_SERVICE}/rooms/discover?${discoverQueryString(filters, 48)}`,
      token ? { token } : undefined,
    ),
    callApi<RoomDto[]>(args, `${ROOM_SERVICE}/rooms/promoted-rooms`),
    token ? callApi<RoomDto[]>(args, `${ROOM_SERVICE}/rooms/favorites`, { token }) : null,
    token ? callApi<RoomDto[]>(args, `${ROOM_SERVICE}/rooms/recent?limit=12`, { token }) : null,
  ]);
  return data({
    filters,
    total: pub.ok ? pub.data.total : 0,
    publicRooms: pub.ok ? pub.data.data : [],
    publicError: pub.ok ? null : pub,
    promoted: promoted.ok ? promoted.data : [],
    favorites: favorites?.ok ? favorites.data : [],
    recent: recent?.ok ? recent.data : [],
    signedIn: !!session.user,
  });
}

export default function RoomsPage() {
  return <RoomListScreen />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
