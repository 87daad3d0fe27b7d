import type { AppLoadContext } from "@remix-run/cloudflare";
import { callApi } from "./api.server";
import {
  PEOPLE_PAGE,
  SOCIAL,
  type FriendState,
  type InvitationDto,
  type PeoplePage,
} from "./social";
import type { PublicProfile } from "./types";

interface Args {
  request: Request;
  context: AppLoadContext;
}

export type Follower = PublicProfile & { followedAt?: string };

/** What a profile page shows of the graph; null parts failed to load (the page still renders). */
export interface ProfileSocial {
  counts: { fans: number; following: number } | null;
  fans: PeoplePage<Follower> | null;
  following: PeoplePage<Follower> | null;
  /** Between the viewer and this profile; null on one's own profile. */
  mine: { following: boolean; blocked: boolean; friend: FriendState } | null;
}

const empty = <T>(): PeoplePage<T> => ({ data: [], total: 0, skip: 0, take: PEOPLE_PAGE });

/** The graph around `uuid` as `me` sees it (all in parallel; the token stays on the server). */
export async function loadProfileSocial(
  args: Args,
  token: string,
  uuid: string,
  me: string,
): Promise<ProfileSocial> {
  const id = encodeURIComponent(uuid);
  const get = <T>(path: string) => callApi<T>(args, `${SOCIAL}${path}`, { token });
  const own = uuid === me;
  const q = `?take=${PEOPLE_PAGE}`;
  const [counts, fans, following, follow, friends, blocked, between] = await Promise.all([
    get<{ fans: number; following: number }>(`/dj-fans/count/${id}`),
    get<PeoplePage<Follower>>(`/dj-fans/dj-fans-paginated/${id}${q}`),
    get<PeoplePage<Follower>>(`/dj-fans/${id}/djs-followed${q}`),
    own ? null : get<{ following: boolean }>(`/dj-fans/dj-fan/${id}`),
    own ? null : get<{ friends: boolean }>(`/friends/${id}`),
    own ? null : get<{ blocked: boolean }>(`/blocked-users/${id}`),
    own ? null : get<{ invitation: InvitationDto | null }>(`/friend-invitations/between/${id}`),
  ]);
  let mine: ProfileSocial["mine"] = null;
  if (!own) {
    const inv = between?.ok ? between.data.invitation : null;
    const friend: FriendState =
      friends?.ok && friends.data.friends
        ? { kind: "friends" }
        : inv
          ? { kind: inv.fromUuid === me ? "sent" : "received", invitationUuid: inv.uuid }
          : { kind: "none" };
    mine = {
      following: !!(follow?.ok && follow.data.following),
      blocked: !!(blocked?.ok && blocked.data.blocked),
      friend,
    };
  }
  return {
    counts: counts.ok ? counts.data : null,
    fans: fans.ok ? fans.data : empty(),
    following: following.ok ? following.data : empty(),
    mine,
  };
}
