import { data, type LoaderFunctionArgs, type MetaArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { RoomScreen } from "~/components/room/RoomScreen";
import { translate, type Locale } from "~/i18n";
import { callApi, userApi } from "~/lib/api.server";
import { ROOM_SERVICE, type JoinInfo, type RoomDto } from "~/lib/rooms";
import { getGuest, getSession, setGuestCookie } from "~/lib/session.server";
import { guestName } from "../../shared/roles";

/**
 * The room (issue 4, "Web pages"): the server loads the room from REST and joins it (a guest
 * token for signed-out visitors, kept in an HttpOnly cookie); components/room/RoomScreen.tsx
 * draws it. The page gets no token: its socket and API calls ride the cookies.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await getSession(args);
  let token = session.token;
  let me: { uuid: string; nickname: string; guest: boolean } | null = session.user
    ? { uuid: session.user.uuid, nickname: session.user.nickname, guest: false }
    : null;
  let setCookie: string | null = null;
  if (!token) {
    // Signed-out visitors listen with a guest token (they never DJ), the same one on every
    // page so the free-play limit follows them (GUEST_COOKIE).
    const kept = getGuest(args.request);
    if (kept) {
      token = kept.token;
      me = { uuid: kept.uuid, nickname: guestName(kept.uuid), guest: true };
    } else {
      const g = await userApi<{ token: string; user: { uuid: string; nickname: string } }>(
        args,
        "/auth/guest",
      );
      if (g.ok) {
        token = g.data.token;
        me = { uuid: g.data.user.uuid, nickname: g.data.user.nickname, guest: true };
        setCookie = setGuestCookie(args.request, token);
      }
    }
  }
  const slug = encodeURIComponent(args.params.slug ?? "");
  const room = await callApi<RoomDto>(args, `${ROOM_SERVICE}/rooms/${slug}`, { token });
  if (!room.ok)
    throw data(
      { message: room.generic ? null : room.message },
      { status: room.status === 400 ? 404 : room.status },
    );
  const join = await callApi<JoinInfo>(args, `${ROOM_SERVICE}/rooms/${slug}/join`, {
    method: "POST",
    json: {},
    token,
  });
  return data(
    {
      room: room.data,
      join: join.ok ? join.data : null,
      joinError: join.ok
        ? null
        : { status: join.status, message: join.message, generic: join.generic },
      me,
      roles: (session.roles ?? []) as string[],
    },
    setCookie ? { headers: { "Set-Cookie": setCookie } } : undefined,
  );
}

export const meta = ({ data: d, matches }: MetaArgs<typeof loader>) => {
  const locale = ((matches.find((m) => m.id === "root")?.data as { locale?: Locale } | undefined)
    ?.locale ?? "en") as Locale;
  return [{ title: translate(locale, "room.pageTitle", { name: d?.room?.name ?? "" }) }];
};

export default function RoomPage() {
  return <RoomScreen {...useLoaderData<typeof loader>()} />;
}
