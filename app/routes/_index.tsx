import { data, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { discoverQueryString, type DiscoverRoom } from "~/lib/discover";
import { ROOM_SERVICE, type RoomDto } from "~/lib/rooms";
import { getToken } from "~/lib/session.server";
import { HomeScreen } from "~/components/home/HomeScreen";

export const meta = pageMeta("home.title");

/** Cards per row of the live home page. */
const SHOWN = 6;

/**
 * Signed in, the home page is the live rooms (issue 20): the busiest, the ones friends are
 * in, the user's favourites. One discovery call ranks the busiest rooms with friends marked
 * (the room-service asks each room's object once); a failed call leaves the rows empty and
 * the page up. Signed out, the marketing page needs no data.
 */
export async function loader(args: LoaderFunctionArgs) {
  const token = getToken(args);
  if (!token) return data({ live: null });
  const [busy, favorites] = await Promise.all([
    callApi<{ data: DiscoverRoom[] }>(
      args,
      `${ROOM_SERVICE}/rooms/discover?${discoverQueryString({ sort: "listeners" }, 48)}`,
      { token },
    ),
    callApi<RoomDto[]>(args, `${ROOM_SERVICE}/rooms/favorites`, { token }),
  ]);
  const ranked = busy.ok ? busy.data.data : [];
  return data({
    live: {
      busiest: ranked.slice(0, SHOWN),
      friends: ranked.filter((r) => r.friendInRoomUuids.length > 0).slice(0, SHOWN),
      favorites: (favorites.ok ? favorites.data : []).slice(0, SHOWN) as DiscoverRoom[],
      failed: !busy.ok,
    },
  });
}

export default function Index() {
  return <HomeScreen />;
}
