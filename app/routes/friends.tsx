import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { FriendsScreen } from "~/components/social/FriendsScreen";
import { pageMeta } from "~/i18n";
import { callApi } from "~/lib/api.server";
import { requireUser } from "~/lib/session.server";
import { FRIENDS_PAGE, SOCIAL, type InvitationDto, type PeoplePage } from "~/lib/social";
import type { PublicProfile } from "~/lib/types";

export const meta = pageMeta("friends.title");

export type Friend = PublicProfile & { friendsSince?: string };
const empty = <T,>(): PeoplePage<T> => ({ data: [], total: 0, skip: 0, take: FRIENDS_PAGE });

/** Invitations to me and from me, and my friends (the first page of each). */
export async function loader(args: LoaderFunctionArgs) {
  const { user, token } = await requireUser(args);
  const get = <T,>(path: string) => callApi<PeoplePage<T>>(args, `${SOCIAL}${path}`, { token });
  const q = `?take=${FRIENDS_PAGE}`;
  const [incoming, outgoing, friends] = await Promise.all([
    get<InvitationDto>(`/friend-invitations/user-invitations-for${q}`),
    get<InvitationDto>(`/friend-invitations/user-invitations-from${q}`),
    get<Friend>(`/friends/list/${encodeURIComponent(user.uuid)}${q}`),
  ]);
  return {
    me: user.uuid,
    incoming: incoming.ok ? incoming.data : empty<InvitationDto>(),
    outgoing: outgoing.ok ? outgoing.data : empty<InvitationDto>(),
    friends: friends.ok ? friends.data : empty<Friend>(),
    failed: !incoming.ok || !outgoing.ok || !friends.ok,
  };
}

export default function FriendsPage() {
  return <FriendsScreen {...useLoaderData<typeof loader>()} />;
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/ErrorPage";
