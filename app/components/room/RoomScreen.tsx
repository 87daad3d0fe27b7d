import { Link } from "@remix-run/react";
import { ArrowLeft, Users, WifiOff } from "lucide-react";
import { useEffect, useMemo, useState } from "react";
import { QueueButton, QueueDrawer } from "~/components/queue/QueueDrawer";
import { useToast } from "~/components/Toaster";
import { button, PageTitle } from "~/components/ui";
import { useProfiles } from "~/hooks/useProfiles";
import { useRoom } from "~/hooks/useRoom";
import { useT } from "~/i18n";
import { errorText } from "~/lib/errors";
import {
  activeRoomRoles,
  kickKind,
  moderationRights,
  paletteOf,
  type JoinInfo,
  type RoomDto,
} from "~/lib/rooms";
import { outOfFreePlays } from "./FreePlaysNote";
import { NowPlaying, useRoomAudio } from "./NowPlaying";
import { liveProfiles, type ModMenu, type NameOf } from "./people";
import { RecentPlays } from "./RecentPlays";
import { RestrictedList } from "./RestrictedList";
import { ChatAside, ChatDrawer, type RoomMe } from "./RoomChat";
import { RoomFace } from "./RoomFace";
import { PlatformRemovalFace } from "./PlatformRemovalFace";
import { platformRemoval } from "~/lib/moderation";
import { danceLevel } from "./Dancer";
import { RoomFloor } from "./RoomFloor";
import { RoomGifts } from "./RoomGifts";
import { SimilarTracks } from "./SimilarTracks";
import { Stage, STAGE_ACTIONS } from "./Stage";
import { ROOM_PILL, StatusPill } from "./StatusPill";
import { UserMenu } from "./UserMenu";

export interface RoomScreenProps {
  room: RoomDto;
  join: JoinInfo | null;
  joinError: { status: number; message: string; generic: boolean } | null;
  me: RoomMe;
  roles: string[];
}

/**
 * The room (issue 4, "Web pages"; UI.md, "The room is the product"): the server renders the
 * room from REST (the stage's seats, name, design) and the browser fills it from the live
 * socket, so nothing jumps when it connects.
 */
export function RoomScreen({ room, join, joinError, me, roles }: RoomScreenProps) {
  const t = useT();
  const toast = useToast();
  const palette = paletteOf(join?.settings.design ?? room.design);
  const conn = useRoom(join?.partyPath ?? null, me?.uuid ?? null, join?.ticket ?? null);
  const { state, status } = conn;
  // The queue drawer (issue 20): the header button, the empty-queue prompt and notices open it.
  const [queueOpen, setQueueOpen] = useState(false);

  // Errors the room sends back: the stage shows its own, vote errors roll back (NowPlaying).
  useEffect(() => {
    if (!conn.error) return;
    if (!STAGE_ACTIONS.has(conn.error.action) && conn.error.action !== "voteOnSong")
      toast.error(conn.error.message);
  }, [conn.error, toast]);

  const stateDjs = state?.djs;
  const djs = useMemo(() => stateDjs ?? [], [stateDjs]);
  const numberOfDjs = state?.settings.numberOfDjs ?? join?.settings.numberOfDjs ?? room.numberOfDjs;
  const np = state?.nowPlaying ?? null;
  const stateAudience = state?.audienceUsers;
  const audience = useMemo(() => stateAudience ?? [], [stateAudience]);
  // A stadium's state names only its first arrivals (ROOM_SHOWN_USERS): a viewer it does
  // not name still sees themselves on the floor, at their own spot.
  const myUuid = me?.uuid ?? null;
  const meGuest = !!me?.guest;
  const floor = useMemo(
    () =>
      !myUuid ||
      !stateAudience ||
      audience.some((u) => u.uuid === myUuid) ||
      djs.some((d) => d.uuid === myUuid)
        ? audience
        : [
            {
              uuid: myUuid,
              tokenRole: meGuest ? ("guest" as const) : ("user" as const),
              highestRole: null,
              canDj: !meGuest,
            },
            ...audience,
          ],
    [myUuid, meGuest, stateAudience, audience, djs],
  );
  const chat = state?.chat;
  const roomRoles = state?.settings.roomRoles;
  const everyone = useMemo(
    () => [
      ...new Set([
        ...djs.map((d) => d.uuid),
        ...(myUuid && !meGuest ? [myUuid] : []),
        ...audience.filter((u) => u.tokenRole !== "guest").map((u) => u.uuid),
        ...(chat ?? []).flatMap((m) => (m.userUuid ? [m.userUuid] : [])),
        ...(roomRoles ?? []).map((r) => r.userUuid),
      ]),
    ],
    [djs, myUuid, meGuest, audience, chat, roomRoles],
  );
  const fetched = useProfiles(everyone, !!me);
  // The room's own copy (allUserData) wins for everyone present: it is current (people.ts).
  const userData = state?.allUserData;
  const profiles = useMemo(() => liveProfiles(fetched, userData), [fetched, userData]);
  const nameOf: NameOf = (u) =>
    profiles[u.uuid]?.nickname ||
    (u.uuid === me?.uuid
      ? me.nickname
      : u.tokenRole === "guest"
        ? t("room.guest")
        : t("room.listener"));
  const mine =
    state && me
      ? [...state.audienceUsers, ...state.djs].find((u) => u.uuid === me.uuid)
      : undefined;
  // Moderator actions (issue 4): the menu on each avatar, for those who may moderate.
  const rights = moderationRights(state?.settings ?? null, me?.uuid, [...roles, mine?.tokenRole]);
  const roomUuid = join?.roomUuid ?? room.uuid;
  // Handing the room over is the owner's or an admin's alone (PUT /roomUserRoles/change-owner).
  const ownerUuid = state?.settings.ownerUuid ?? join?.settings.ownerUuid ?? room.ownerUuid;
  const giveRoom =
    !!me &&
    !me.guest &&
    (me.uuid === ownerUuid || roles.some((r) => r === "admin" || r === "superUser"));
  // Every signed-in listener gets a menu on other people (View profile, Block; issue 14);
  // moderators get theirs in it too. A guest has no account to block or profile to show.
  const signedIn = !!me && !me.guest;
  const modMenu: ModMenu = (u, node, extra = {}) =>
    u.uuid !== me?.uuid && (rights.moderate || (signedIn && u.tokenRole !== "guest")) ? (
      <UserMenu
        target={{
          uuid: u.uuid,
          name: nameOf(u),
          dj: false,
          playing: false,
          guest: u.tokenRole === "guest",
          ...extra,
        }}
        conn={conn}
        roomUuid={roomUuid}
        manage={rights.manage}
        moderate={rights.moderate}
        giveRoom={giveRoom}
        // Moderators' triggers keep their id (the moderation tests find them by it).
        testId={rights.moderate ? "user-menu-trigger" : "person-menu-trigger"}
      >
        {node}
      </UserMenu>
    ) : (
      node
    );
  const restricted = rights.moderate
    ? [
        ...new Set(
          (state?.settings.roomRoles ?? [])
            .filter((r) => r.role === "banned" || r.role === "chatDisabled")
            .map((r) => r.userUuid),
        ),
      ]
        .map((uuid) => ({
          uuid,
          held: activeRoomRoles(state?.settings, uuid),
        }))
        .filter((x) => x.held.has("banned") || x.held.has("chatDisabled"))
    : [];
  const chatMod = { moderate: rights.moderate, roomUuid };

  // A guest past the free-play limit does not hear the song (spec 001 Playback).
  useRoomAudio(conn, outOfFreePlays(conn.freePlays) ? null : np);

  if (!join) {
    return (
      <RoomFace
        title={t("room.cannotJoin")}
        body={errorText(joinError, t)}
        backdrop={palette.backdrop}
      >
        <Link to="/rooms" className={button("primary")}>
          {t("room.backToRooms")}
        </Link>
      </RoomFace>
    );
  }
  const removal = status === "kicked" ? platformRemoval(conn.kickReason) : null;
  if (removal)
    return <PlatformRemovalFace removal={removal} backdrop={palette.backdrop} slug={room.slug} />;
  if (status === "kicked") {
    const kind = kickKind(conn.kickReason);
    return (
      <RoomFace
        title={kind === "banned" ? t("room.bannedTitle") : t("room.kickedTitle")}
        body={
          kind === "banned"
            ? t("room.bannedBody")
            : kind === "kicked"
              ? conn.kickReason
                ? t("room.kickedShortBody")
                : t("room.kickedBody")
              : t("room.kickedByReason")
        }
        quote={kind === "reason" ? conn.kickReason : null}
        backdrop={palette.backdrop}
        testId="room-kicked"
        kind={kind}
      >
        <Link to="/rooms" className={button("primary")}>
          {t("room.backToRooms")}
        </Link>
      </RoomFace>
    );
  }

  if (status === "closed") {
    return (
      <RoomFace
        title={t("room.closedTitle")}
        body={conn.closedReason ?? t("room.closedBody")}
        backdrop={palette.backdrop}
        testId="room-closed"
        kind="closed"
      >
        <Link to="/rooms" className={button("primary")}>
          {t("room.backToRooms")}
        </Link>
        <a href={`/rooms/${room.slug}`} className={button("secondary")}>
          {t("room.tryAgain")}
        </a>
      </RoomFace>
    );
  }

  const stale = status === "reconnecting";
  const connecting = status === "connecting" && !state;
  // The counts, not the lists' lengths: a stadium's state names only the first arrivals.
  const listeners = (state?.userCount ?? room.numberOfUsersInRoom) || 0;

  return (
    <div
      className="relative min-h-[calc(100dvh-4rem)]"
      style={{ background: palette.backdrop }}
      data-testid="room"
      data-status={status}
      data-design={room.design}
    >
      <RoomGifts chat={chat} serverNow={conn.serverNow} profiles={profiles} />
      {/* Lined up with the header (max-w-6xl). On desktop the chat column starts at the top
          of the page and is sized to the window less the header and the fixed player bar, so
          neither ever covers its input (issue 20). */}
      <div className="mx-auto grid max-w-6xl gap-5 px-4 pb-10 pt-5 sm:px-6 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center justify-between gap-3">
            <div className="min-w-0">
              <Link
                to="/rooms"
                className="inline-flex items-center gap-1.5 rounded-full text-sm font-medium text-ink-100 hover:text-white"
              >
                <ArrowLeft aria-hidden className="size-4" />
                {t("room.backToRooms")}
              </Link>
              <PageTitle className="mt-1 break-words" data-testid="room-name">
                {state?.settings.name ?? room.name}
              </PageTitle>
              {room.description && (
                <p className="mt-1 max-w-2xl text-ink-100">{room.description}</p>
              )}
            </div>
            <div className="flex flex-wrap items-center gap-2">
              {signedIn && <QueueButton onOpen={() => setQueueOpen(true)} />}
              <ChatDrawer conn={conn} me={me} profiles={profiles} mod={chatMod} />
              <span className={ROOM_PILL}>
                <Users aria-hidden className="size-4" />
                {t("room.listeners", { count: listeners })}
              </span>
              <StatusPill status={status} />
            </div>
          </div>

          {stale && (
            <p
              role="status"
              className="mt-4 flex items-center gap-2 rounded-xl bg-black/55 px-4 py-2.5 text-sm font-medium text-white"
            >
              <WifiOff aria-hidden className="size-4" />
              {t("room.reconnecting")}
            </p>
          )}

          <div
            className={`mt-5 min-w-0 space-y-5 transition ${stale ? "pointer-events-none opacity-50 grayscale" : ""}`}
            aria-busy={connecting || stale}
          >
            <Stage
              conn={conn}
              me={me}
              mine={mine}
              slug={room.slug}
              palette={palette}
              numberOfDjs={numberOfDjs}
              profiles={profiles}
              nameOf={nameOf}
              modMenu={modMenu}
              connecting={connecting}
              openQueue={() => setQueueOpen(true)}
            />

            <NowPlaying
              conn={conn}
              state={state}
              connecting={connecting}
              accent={palette.accent}
              djName={np ? nameOf({ uuid: np.djUuid, tokenRole: "user" }) : ""}
            />

            {/* Issue 18: a DJ gets songs like the one playing, to add to their queue. */}
            {np && me && djs.some((d) => d.uuid === me.uuid) && (
              <SimilarTracks songId={np.song.songId} />
            )}

            <RoomFloor
              audience={floor}
              audienceCount={Math.max(state?.audienceCount ?? 0, floor.length)}
              userData={state?.allUserData}
              connecting={connecting}
              profiles={profiles}
              nameOf={nameOf}
              modMenu={modMenu}
              dance={danceLevel(!!np, state?.vibeMeter)}
              jumps={conn.jumps}
            />

            <RecentPlays
              slug={room.slug}
              playId={np?.playId ?? null}
              nameOf={nameOf}
              signedIn={signedIn}
            />

            {restricted.length > 0 && (
              <RestrictedList
                restricted={restricted}
                present={(uuid) => [...djs, ...audience].some((x) => x.uuid === uuid)}
                profiles={profiles}
                nameOf={nameOf}
                modMenu={modMenu}
              />
            )}
          </div>
        </div>

        <ChatAside conn={conn} me={me} profiles={profiles} mod={chatMod} />
      </div>
      {signedIn && <QueueDrawer open={queueOpen} onClose={() => setQueueOpen(false)} />}
    </div>
  );
}
