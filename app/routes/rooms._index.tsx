import { data, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { ROOM_SERVICE, type RoomDto } from "~/lib/rooms";
import { getSession } from "~/lib/session.server";
import { RoomListScreen } from "~/components/room/RoomListScreen";

export const meta = pageMeta("rooms.title");

/** Browse: promoted, public, the user's favourites and recent rooms (issue 4, "Web pages"). */
export async function loader(args: LoaderFunctionArgs) {
  const session = await getSession(args);
  const token = session.token;
  const [pub, promoted, favorites, recent] = await Promise.all([
    callApi<{ data: RoomDto[]; total: number }>(args, `${ROOM_SERVICE}/rooms/public?limit=60`),
    callApi<RoomDto[]>(args, `${ROOM_SERVICE}/rooms/promoted-rooms`),
    token ? callApi<RoomDto[]>(args, `${ROOM_SERVICE}/rooms/favorites`, { token }) : null,
    token ? callApi<RoomDto[]>(args, `${ROOM_SERVICE}/rooms/recent?limit=12`, { token }) : null,
  ]);
  return data({
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
