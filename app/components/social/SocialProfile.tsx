import { Link, useRevalidator } from "@remix-run/react";
import { MessageCircle } from "lucide-react";
import { useState, type ReactNode } from "react";
import { useT, type MessageKey } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import { PEOPLE_PAGE, SOCIAL, type FriendState, type PeoplePage } from "~/lib/social";
import type { Follower, ProfileSocial } from "~/lib/social.server";
import type { PublicProfile, User } from "~/lib/types";
import { ProfileView } from "~/components/profile/ProfileView";
import { useToast } from "~/components/Toaster";
import { button } from "~/components/ui";
import { PeopleList } from "./PeopleList";
import { ProfileActions } from "./ProfileActions";

/**
 * A profile with its place in the graph: counts, fans and following (12 a page), and, on
 * someone else's profile, Follow, friendship and Block. Follow is optimistic: the button and
 * the fan count change at once and roll back, with the server's reason, if the call fails.
 */
export function SocialProfile({
  profile,
  social,
  own,
  actions,
  children,
}: {
  profile: PublicProfile | User;
  social: ProfileSocial | null;
  own?: boolean;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  const t = useT();
  const toast = useToast();
  const revalidator = useRevalidator();
  const id = encodeURIComponent(profile.uuid);
  // Local state follows the loader's; a revalidation brings fresh server truth.
  const [base, setBase] = useState(social);
  const [following, setFollowing] = useState(!!social?.mine?.following);
  const [fanDelta, setFanDelta] = useState(0);
  const [friend, setFriend] = useState<FriendState>(social?.mine?.friend ?? { kind: "none" });
  const [blocked, setBlocked] = useState(!!social?.mine?.blocked);
  const [busy, setBusy] = useState<string | null>(null);
  if (base !== social) {
    setBase(social);
    setFollowing(!!social?.mine?.following);
    setFanDelta(0);
    setFriend(social?.mine?.friend ?? { kind: "none" });
    setBlocked(!!social?.mine?.blocked);
  }

  const fail = (key: MessageKey, err: unknown) =>
    toast.error(t(key, { name: profile.nickname, reason: errorText(err, t) }));

  const setFollow = async (on: boolean) => {
    const was = following;
    setFollowing(on);
    setFanDelta((d) => d + (on ? 1 : -1));
    try {
      if (on)
        await apiRequest(`${SOCIAL}/dj-fans`, { method: "POST", json: { djUuid: profile.uuid } });
      else await apiRequest(`${SOCIAL}/dj-fans/${id}`, { method: "DELETE" });
      revalidator.revalidate();
    } catch (err) {
      setFollowing(was);
      setFanDelta((d) => d - (on ? 1 : -1));
      fail(on ? "social.followFailed" : "social.unfollowFailed", err);
    }
  };

  /** A friendship or block call: busy while it runs, then the page's data is read again. */
  const act = async (what: "friend" | "block", run: () => Promise<void>, key: MessageKey) => {
    setBusy(what);
    try {
      await run();
      revalidator.revalidate();
    } catch (err) {
      fail(key, err);
    } finally {
      setBusy(null);
    }
  };

  const invitation =
    friend.kind === "sent" || friend.kind === "received" ? friend.invitationUuid : "";
  const handle = (status: "accepted" | "rejected") =>
    act(
      "friend",
      async () => {
        await apiRequest(`${SOCIAL}/friend-invitations/handle-friend`, {
          method: "POST",
          json: { invitationUuid: invitation, status },
        });
        setFriend(status === "accepted" ? { kind: "friends" } : { kind: "none" });
      },
      "social.friendFailed",
    );

  const buttons =
    !own && social?.mine ? (
      <ProfileActions
        name={profile.nickname}
        following={following}
        friend={friend}
        blocked={blocked}
        busy={busy}
        onFollow={() => setFollow(true)}
        onUnfollow={() => setFollow(false)}
        onInvite={() =>
          act(
            "friend",
            async () => {
              const r = await apiRequest<{ uuid: string; friends?: boolean }>(
                `${SOCIAL}/friend-invitations`,
                { method: "POST", json: { userUuid: profile.uuid } },
              );
              setFriend(r.friends ? { kind: "friends" } : { kind: "sent", invitationUuid: r.uuid });
              toast.success(
                t(r.friends ? "social.nowFriends" : "social.invited", { name: profile.nickname }),
              );
            },
            "social.friendFailed",
          )
        }
        onCancelInvite={() =>
          act(
            "friend",
            async () => {
              await apiRequest(`${SOCIAL}/friend-invitations/${invitation}`, { method: "DELETE" });
              setFriend({ kind: "none" });
            },
            "social.friendFailed",
          )
        }
        onAccept={() => handle("accepted")}
        onReject={() => handle("rejected")}
        onUnfriend={() =>
          act(
            "friend",
            async () => {
              await apiRequest(`${SOCIAL}/friends/${id}`, { method: "DELETE" });
              setFriend({ kind: "none" });
            },
            "social.friendFailed",
          )
        }
        onBlock={() =>
          act(
            "block",
            async () => {
              await apiRequest(`${SOCIAL}/blocked-users`, {
                method: "POST",
                json: { userUuid: profile.uuid },
              });
              setBlocked(true);
              setFollowing(false);
              setFriend({ kind: "none" });
              toast.success(t("social.blocked", { name: profile.nickname }));
            },
            "social.blockFailed",
          )
        }
        onUnblock={() =>
          act(
            "block",
            async () => {
              await apiRequest(`${SOCIAL}/blocked-users/${id}`, { method: "DELETE" });
              setBlocked(false);
              toast.success(t("social.unblocked", { name: profile.nickname }));
            },
            "social.blockFailed",
          )
        }
      />
    ) : null;
  // Blocked either way, nobody writes; the conversation page says why for the rest.
  const message =
    !own && social?.mine && !blocked ? (
      <Link to={`/messages/${profile.uuid}`} className={button("secondary")} data-testid="message">
        <MessageCircle aria-hidden className="size-4" />
        {t("messages.button")}
      </Link>
    ) : null;

  const load = (path: string) => (skip: number) =>
    apiRequest<PeoplePage<Follower>>(`${SOCIAL}${path}?take=${PEOPLE_PAGE}&skip=${skip}`);
  const fans = social?.counts ? social.counts.fans + fanDelta : null;

  return (
    <>
      <ProfileView
        profile={profile}
        own={own}
        actions={
          actions || buttons ? (
            <>
              {actions}
              {message}
              {buttons}
            </>
          ) : undefined
        }
      />
      {social && (
        <div className="mx-auto -mt-4 max-w-5xl space-y-5 px-4 pb-10 sm:-mt-6 sm:px-6">
          {social.counts && (
            <dl className="flex flex-wrap gap-3" data-testid="social-counts">
              <div className="rounded-2xl border border-line bg-panel/70 px-5 py-3">
                <dt className="text-sm text-ink-300">{t("social.fans")}</dt>
                <dd className="text-2xl font-extrabold text-white" data-testid="fan-count">
                  {fans}
                </dd>
              </div>
              <div className="rounded-2xl border border-line bg-panel/70 px-5 py-3">
                <dt className="text-sm text-ink-300">{t("social.following")}</dt>
                <dd className="text-2xl font-extrabold text-white" data-testid="following-count">
                  {social.counts.following}
                </dd>
              </div>
            </dl>
          )}
          <div className="grid gap-5 lg:grid-cols-2">
            {social.fans && (
              <PeopleList
                title={t("social.fans")}
                page={social.fans}
                load={load(`/dj-fans/dj-fans-paginated/${id}`)}
                empty={t("social.noFans")}
                testId="fans-list"
              />
            )}
            {social.following && (
              <PeopleList
                title={t("social.following")}
                page={social.following}
                load={load(`/dj-fans/${id}/djs-followed`)}
                empty={t("social.noFollowing")}
                testId="following-list"
              />
            )}
          </div>
          {children}
        </div>
      )}
    </>
  );
}
