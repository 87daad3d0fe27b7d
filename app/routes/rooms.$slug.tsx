import { data, type LoaderFunctionArgs, type MetaArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import {
  ArrowLeft,
  Ban,
  DoorOpen,
  Loader2,
  LogIn,
  LogOut,
  MessageCircle,
  SkipForward,
  Users,
  WifiOff,
  X,
} from "lucide-react";
import { useEffect, useMemo, useRef, useState } from "react";
import { ChatPanel } from "~/components/room/ChatPanel";
import { Seat, SeatIcon, UserAvatar } from "~/components/room/RoomParts";
import { UserMenu, type ModTarget } from "~/components/room/UserMenu";
import { useToast } from "~/components/Toaster";
import { button } from "~/components/ui";
import { translate, useT, type Locale } from "~/i18n";
import { callApi, userApi } from "~/lib/api.server";
import { apiRequest } from "~/lib/api.client";
import { errorText } from "~/lib/errors";
import {
  activeRoomRoles,
  kickKind,
  moderationRights,
  paletteOf,
  ROOM_SERVICE,
  type JoinInfo,
  type RoomDto,
  type RoomProfile,
} from "~/lib/rooms";
import { getSession } from "~/lib/session.server";
import { useRoom, type RoomConnection } from "~/hooks/useRoom";
import type { RoomUser } from "../../shared/protocol";
import { NowPlaying, useRoomAudio } from "~/components/room/NowPlaying";
import { Floor } from "~/components/room/Floor";

/**
 * The room (issue 4, "Web pages"; UI.md, "The room is the product"): the server renders the
 * room from REST (the stage's seats, name, design) and the browser fills it from the live
 * socket, so nothing jumps when it connects.
 */
export async function loader(args: LoaderFunctionArgs) {
  const session = await getSession(args);
  let token = session.token;
  let me: { uuid: string; nickname: string; guest: boolean } | null = session.user
    ? { uuid: session.user.uuid, nickname: session.user.nickname, guest: false }
    : null;
  if (!token) {
    // Signed-out visitors listen with a guest token (they never DJ).
    const g = await userApi<{ token: string; user: { uuid: string; nickname: string } }>(
      args,
      "/auth/guest",
    );
    if (g.ok) {
      token = g.data.token;
      me = { uuid: g.data.user.uuid, nickname: g.data.user.nickname, guest: true };
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
  return data({
    room: room.data,
    join: join.ok ? join.data : null,
    joinError: join.ok
      ? null
      : { status: join.status, message: join.message, generic: join.generic },
    token,
    me,
    roles: (session.roles ?? []) as string[],
  });
}

export const meta = ({ data: d, matches }: MetaArgs<typeof loader>) => {
  const locale = ((matches.find((m) => m.id === "root")?.data as { locale?: Locale } | undefined)
    ?.locale ?? "en") as Locale;
  return [{ title: translate(locale, "room.pageTitle", { name: d?.room?.name ?? "" }) }];
};

/** Public profiles for the uuids on screen, batched 150 a call, each asked once. */
function useProfiles(uuids: string[], token: string | null) {
  const [profiles, setProfiles] = useState<Record<string, RoomProfile>>({});
  const asked = useRef(new Set<string>());
  const key = uuids.join(",");
  useEffect(() => {
    if (!token) return;
    const missing = uuids.filter((u) => !asked.current.has(u));
    if (!missing.length) return;
    missing.forEach((u) => asked.current.add(u));
    for (let i = 0; i < missing.length; i += 150) {
      const batch = missing.slice(i, i + 150);
      apiRequest<RoomProfile[]>(`/api/user-service/users/profiles?users=${batch.join(",")}`, {
        token,
      })
        .then((list) =>
          setProfiles((p) => ({ ...p, ...Object.fromEntries(list.map((x) => [x.uuid, x])) })),
        )
        .catch(() => batch.forEach((u) => asked.current.delete(u)));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, token]);
  return profiles;
}

export default function RoomPage() {
  const { room, join, joinError, token, me, roles } = useLoaderData<typeof loader>();
  const t = useT();
  const toast = useToast();
  const palette = paletteOf(join?.settings.design ?? room.design);
  const conn = useRoom(join?.partyPath ?? null, token, me?.uuid ?? null, join?.ticket ?? null);
  const { state, status } = conn;

  // Errors the room sends back: seat and skip errors inline, vote errors roll back (below).
  const [stageError, setStageError] = useState<string | null>(null);
  const [seatPending, setSeatPending] = useState(false);
  useEffect(() => {
    if (!conn.error) return;
    if (
      conn.error.action === "addDj" ||
      conn.error.action === "removeDj" ||
      conn.error.action === "skipSong"
    ) {
      setStageError(conn.error.message);
      setSeatPending(false);
    } else if (conn.error.action !== "voteOnSong") {
      toast.error(conn.error.message);
    }
  }, [conn.error, toast]);

  const stateDjs = state?.djs;
  const djs = useMemo(() => stateDjs ?? [], [stateDjs]);
  const onStage = !!me && djs.some((d) => d.uuid === me.uuid);
  useEffect(() => setSeatPending(false), [onStage]);
  const numberOfDjs = state?.settings.numberOfDjs ?? join?.settings.numberOfDjs ?? room.numberOfDjs;
  const np = state?.nowPlaying ?? null;
  const currentDj = np?.djUuid ?? djs[0]?.uuid ?? null;
  const stateAudience = state?.audienceUsers;
  const audience = useMemo(() => stateAudience ?? [], [stateAudience]);
  const chat = state?.chat;
  const roomRoles = state?.settings.roomRoles;
  const everyone = useMemo(
    () => [
      ...new Set([
        ...djs.map((d) => d.uuid),
        ...audience.filter((u) => u.tokenRole !== "guest").map((u) => u.uuid),
        ...(chat ?? []).flatMap((m) => (m.userUuid ? [m.userUuid] : [])),
        ...(roomRoles ?? []).map((r) => r.userUuid),
      ]),
    ],
    [djs, audience, chat, roomRoles],
  );
  const profiles = useProfiles(everyone, token);
  // The room's own profile (allUserData: guests get their "Guest ABCD" name) fills in until the user-service answers.
  const nameOf = (u: Pick<RoomUser, "uuid" | "tokenRole">) =>
    profiles[u.uuid]?.nickname ??
    (u.uuid === me?.uuid
      ? me.nickname
      : state?.allUserData?.[u.uuid]?.userProfile.nickname ||
        (u.tokenRole === "guest" ? t("room.guest") : t("room.listener")));
  const mine =
    state && me
      ? [...state.audienceUsers, ...state.djs].find((u) => u.uuid === me.uuid)
      : undefined;
  const full = djs.length >= numberOfDjs && !onStage;
  // Moderator actions (issue 4): the menu on each avatar, for those who may moderate.
  const rights = moderationRights(state?.settings ?? null, me?.uuid, [...roles, mine?.tokenRole]);
  const roomUuid = join?.roomUuid ?? room.uuid;
  // Handing the room over is the owner's or an admin's alone (PUT /roomUserRoles/change-owner).
  const ownerUuid = state?.settings.ownerUuid ?? join?.settings.ownerUuid ?? room.ownerUuid;
  const giveRoom =
    !!me &&
    !me.guest &&
    (me.uuid === ownerUuid || roles.some((r) => r === "admin" || r === "superUser"));
  const modMenu = (
    u: Pick<RoomUser, "uuid" | "tokenRole">,
    node: React.ReactNode,
    extra: Partial<ModTarget> = {},
  ) =>
    rights.moderate && u.uuid !== me?.uuid ? (
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
        token={token}
        manage={rights.manage}
        giveRoom={giveRoom}
        testId="user-menu-trigger"
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
  const chatMod = { moderate: rights.moderate, roomUuid, token };

  const takeSeat = () => {
    setStageError(null);
    if (conn.send({ action: "addDj" })) setSeatPending(true);
  };
  const leaveSeat = () => {
    setStageError(null);
    conn.send({ action: "removeDj" });
  };
  const skip = () => {
    setStageError(null);
    conn.send({ action: "skipSong" });
  };

  useRoomAudio(conn, np, token);

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

  const stale = status === "reconnecting";
  const connecting = status === "connecting" && !state;
  const listeners = (state?.allUsers.length ?? room.numberOfUsersInRoom) || 0;

  return (
    <div
      className="relative min-h-[calc(100dvh-4rem)]"
      style={{ background: palette.backdrop }}
      data-testid="room"
      data-status={status}
      data-design={room.design}
    >
      <div className="mx-auto max-w-7xl px-4 pb-10 pt-5 sm:px-6">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <div className="min-w-0">
            <Link
              to="/rooms"
              className="inline-flex items-center gap-1.5 rounded-full text-sm font-medium text-ink-100 hover:text-white"
            >
              <ArrowLeft aria-hidden className="size-4" />
              {t("room.backToRooms")}
            </Link>
            <h1
              className="mt-1 break-words text-3xl font-extrabold tracking-tight text-white sm:text-4xl"
              data-testid="room-name"
            >
              {state?.settings.name ?? room.name}
            </h1>
            {room.description && <p className="mt-1 max-w-2xl text-ink-100">{room.description}</p>}
          </div>
          <div className="flex flex-wrap items-center gap-2">
            <ChatDrawer conn={conn} me={me} profiles={profiles} mod={chatMod} />
            <span className="inline-flex items-center gap-1.5 rounded-full bg-black/40 px-3 py-1.5 text-sm font-semibold text-white">
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

        <div className="mt-5 grid gap-5 lg:grid-cols-[minmax(0,1fr)_20rem]">
          <div
            className={`min-w-0 space-y-5 transition ${stale ? "pointer-events-none opacity-50 grayscale" : ""}`}
            aria-busy={connecting || stale}
          >
            {/* The stage */}
            <section
              aria-labelledby="stage-heading"
              className="rounded-3xl border border-white/10 bg-black/25 p-4 sm:p-5"
            >
              <div className="mb-3 flex min-h-9 flex-wrap items-center justify-between gap-2">
                <h2 id="stage-heading" className="text-lg font-bold text-white">
                  {t("room.stage")}
                </h2>
                <div className="flex gap-2">
                  {onStage && np?.djUuid === me?.uuid && (
                    <button
                      type="button"
                      onClick={skip}
                      className={button("secondary", "sm")}
                      data-testid="skip-song"
                    >
                      <SkipForward aria-hidden className="size-4" />
                      {t("room.skip")}
                    </button>
                  )}
                  {onStage && (
                    <button
                      type="button"
                      onClick={leaveSeat}
                      className={button("secondary", "sm")}
                      data-testid="leave-seat"
                    >
                      <LogOut aria-hidden className="size-4" />
                      {t("room.leaveSeat")}
                    </button>
                  )}
                </div>
              </div>
              <ol
                className="grid grid-cols-[repeat(auto-fill,minmax(5.5rem,1fr))] sm:grid-cols-[repeat(auto-fill,minmax(7rem,1fr))] gap-3"
                aria-label={t("room.seats", { count: numberOfDjs })}
              >
                {Array.from({ length: numberOfDjs }, (_, i) => {
                  const dj = djs[i];
                  if (dj) {
                    const lit = dj.uuid === currentDj;
                    return (
                      <Seat key={dj.uuid} lit={lit} accent={palette.accent} testId="dj-seat">
                        {modMenu(
                          dj,
                          <UserAvatar
                            profile={profiles[dj.uuid]}
                            fallbackName={nameOf(dj)}
                            size={56}
                          />,
                          { dj: true, playing: np?.djUuid === dj.uuid },
                        )}
                        <span className="w-full truncate text-sm font-semibold text-white">
                          {nameOf(dj)}
                        </span>
                        <span
                          className="text-xs font-medium"
                          style={{ color: lit ? palette.accent : "#c9c3e0" }}
                        >
                          {lit ? t("room.playingNow") : t("room.seatNumber", { n: i + 1 })}
                        </span>
                      </Seat>
                    );
                  }
                  const canTake =
                    !!state && !onStage && !me?.guest && mine?.canDj !== false && i === djs.length;
                  return (
                    <Seat key={`empty-${i}`} accent={palette.accent} testId="empty-seat">
                      {connecting ? (
                        <span
                          className="size-14 animate-pulse rounded-full bg-white/10"
                          aria-hidden
                        />
                      ) : (
                        <SeatIcon aria-hidden className="size-9 text-ink-200" />
                      )}
                      {canTake ? (
                        <button
                          type="button"
                          onClick={takeSeat}
                          disabled={seatPending}
                          className="whitespace-nowrap rounded-full px-3 py-1.5 text-xs font-bold text-ink-950 transition hover:brightness-110 disabled:opacity-70 sm:text-sm"
                          style={{ background: palette.accent }}
                          data-testid="take-seat"
                        >
                          {seatPending ? t("room.takingSeat") : t("room.takeSeat")}
                        </button>
                      ) : (
                        <span className="text-xs text-ink-200">{t("room.emptySeat")}</span>
                      )}
                    </Seat>
                  );
                })}
              </ol>
              <div>
                {stageError && (
                  <p
                    role="alert"
                    className="mt-3 text-sm font-semibold text-danger"
                    data-testid="stage-error"
                  >
                    {stageError}
                  </p>
                )}
                {!stageError && full && state && (
                  <p className="mt-3 text-sm text-ink-100">{t("room.stageFull")}</p>
                )}
                {!stageError && me?.guest && (
                  <p className="mt-3 text-sm text-ink-100">
                    <Link
                      to={`/login?redirectTo=${encodeURIComponent(`/rooms/${room.slug}`)}`}
                      className="inline-flex items-center gap-1 font-semibold text-white underline underline-offset-4"
                    >
                      <LogIn aria-hidden className="size-4" />
                      {t("room.loginToDj")}
                    </Link>
                  </p>
                )}
                {conn.youAreNext && (
                  <p
                    role="status"
                    className="mt-3 rounded-xl px-3 py-2 text-sm font-bold text-ink-950"
                    style={{ background: palette.accent }}
                    data-testid="you-are-next"
                  >
                    {t("room.youAreNext")}
                  </p>
                )}
              </div>
            </section>

            <NowPlaying
              listenToken={token}
              conn={conn}
              state={state}
              connecting={connecting}
              accent={palette.accent}
              djName={np ? nameOf({ uuid: np.djUuid, tokenRole: "user" }) : ""}
            />

            {/* The floor */}
            <section
              aria-labelledby="floor-heading"
              className="rounded-3xl border border-white/10 bg-black/25 p-4 sm:p-5"
            >
              <h2 id="floor-heading" className="mb-3 text-lg font-bold text-white">
                {t("room.floor")}{" "}
                <span className="text-sm font-medium text-ink-200">({audience.length})</span>
              </h2>
              {connecting ? (
                <div className="flex h-48 items-center justify-center gap-2 sm:h-56" aria-hidden>
                  {Array.from({ length: 6 }, (_, i) => (
                    <span key={i} className="size-10 animate-pulse rounded-full bg-white/10" />
                  ))}
                </div>
              ) : audience.length === 0 ? (
                <p className="text-sm text-ink-100">{t("room.floorEmpty")}</p>
              ) : (
                <Floor
                  audience={audience}
                  userData={state?.allUserData}
                  label={nameOf}
                  render={(u) =>
                    modMenu(
                      u,
                      <UserAvatar
                        profile={profiles[u.uuid]}
                        fallbackName={nameOf(u)}
                        alt={nameOf(u)}
                      />,
                    )
                  }
                />
              )}
            </section>

            {restricted.length > 0 && (
              <section
                aria-labelledby="restricted-heading"
                className="rounded-3xl border border-white/10 bg-black/25 p-4 sm:p-5"
                data-testid="restricted"
              >
                <h2 id="restricted-heading" className="mb-3 text-lg font-bold text-white">
                  {t("room.mod.restricted")}
                </h2>
                <ul className="flex flex-wrap gap-3">
                  {restricted.map(({ uuid, held }) => {
                    const u = { uuid, tokenRole: "user" as const };
                    return (
                      <li
                        key={uuid}
                        className="flex items-center gap-2 rounded-full bg-black/30 py-1 pl-1 pr-3"
                        data-testid="restricted-user"
                        data-user={uuid}
                      >
                        {modMenu(
                          u,
                          <UserAvatar
                            profile={profiles[uuid]}
                            fallbackName={nameOf(u)}
                            size={32}
                            alt={nameOf(u)}
                          />,
                          { present: [...djs, ...audience].some((x) => x.uuid === uuid) },
                        )}
                        <span className="text-sm font-semibold text-white">{nameOf(u)}</span>
                        <span className="text-xs text-ink-100">
                          {[
                            held.has("banned") && t("room.mod.roleBanned"),
                            held.has("chatDisabled") && t("room.mod.roleMuted"),
                          ]
                            .filter(Boolean)
                            .join(" · ")}
                        </span>
                      </li>
                    );
                  })}
                </ul>
              </section>
            )}
          </div>

          <ChatAside conn={conn} me={me} profiles={profiles} mod={chatMod} />
        </div>
      </div>
    </div>
  );
}

type Me = { uuid: string; nickname: string; guest: boolean } | null;
type ChatProps = {
  conn: RoomConnection;
  me: Me;
  profiles: Record<string, RoomProfile>;
  mod: ChatMod;
};
type ChatMod = { moderate: boolean; roomUuid: string; token: string | null };

/** The chat: beside the stage on desktop, a drawer on phones (components/room/ChatPanel.tsx). */
function RoomChat({ conn, me, profiles, mod }: ChatProps) {
  const off = conn.state ? conn.state.settings.hasChat === false : false;
  return (
    <ChatPanel
      conn={conn}
      me={me}
      profiles={profiles}
      disabled={off || conn.status !== "open"}
      mod={mod}
    />
  );
}

function ChatAside(props: ChatProps) {
  const t = useT();
  return (
    <aside
      aria-label={t("room.chat")}
      className="hidden lg:sticky lg:top-20 lg:block lg:h-[calc(100dvh-17.5rem)] lg:min-h-[24rem]"
      data-testid="chat-panel"
    >
      <RoomChat {...props} />
    </aside>
  );
}

function ChatDrawer(props: ChatProps) {
  const t = useT();
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);
  const count = props.conn.state?.chat?.length ?? 0;
  return (
    <div className="lg:hidden">
      <button
        type="button"
        onClick={() => setOpen(true)}
        className="inline-flex items-center gap-1.5 rounded-full bg-black/40 px-3 py-1.5 text-sm font-semibold text-white hover:bg-black/60"
        aria-expanded={open}
        aria-controls="chat-drawer"
        data-testid="open-chat"
      >
        <MessageCircle aria-hidden className="size-4" />
        {t("room.openChat")}
        {count > 0 && (
          <span className="rounded-full bg-white/20 px-1.5 text-xs tabular-nums">{count}</span>
        )}
      </button>
      {open && (
        <div
          aria-hidden
          className="fixed inset-0 z-50 bg-black/60"
          onClick={() => setOpen(false)}
        />
      )}
      {open && (
        <div
          id="chat-drawer"
          role="dialog"
          aria-modal="true"
          aria-label={t("room.chat")}
          className="fixed inset-x-0 bottom-0 z-[60] flex h-[75dvh] flex-col rounded-t-3xl border-t border-white/15 bg-ink-950/95 p-3 shadow-2xl"
        >
          <div className="mb-2 flex justify-end">
            <button
              type="button"
              onClick={() => setOpen(false)}
              className={button("ghost")}
              aria-label={t("room.closeChat")}
              autoFocus
            >
              <X aria-hidden className="size-5" />
            </button>
          </div>
          <div className="min-h-0 flex-1">
            <RoomChat {...props} />
          </div>
        </div>
      )}
    </div>
  );
}

function StatusPill({ status }: { status: RoomConnection["status"] }) {
  const t = useT();
  if (status === "open")
    return (
      <span
        className="inline-flex items-center gap-1.5 rounded-full bg-black/40 px-3 py-1.5 text-sm font-semibold text-white"
        data-testid="room-live"
      >
        <span className="size-2 rounded-full bg-success" aria-hidden />
        {t("room.live")}
      </span>
    );
  return (
    <span
      role="status"
      className="inline-flex items-center gap-1.5 rounded-full bg-black/40 px-3 py-1.5 text-sm font-semibold text-white"
    >
      <Loader2 aria-hidden className="size-4 animate-spin" />
      {status === "reconnecting" ? t("room.reconnectingShort") : t("room.connecting")}
    </span>
  );
}

function RoomFace({
  title,
  body,
  backdrop,
  children,
  testId,
  quote,
  kind,
}: {
  title: string;
  body: string;
  backdrop: string;
  children?: React.ReactNode;
  testId?: string;
  /** A moderator's own words (the kick reason), shown as a quote. */
  quote?: string | null;
  kind?: string;
}) {
  const Icon = kind === "banned" ? Ban : kind ? DoorOpen : null;
  return (
    <div
      className="grid min-h-[70dvh] place-items-center px-4"
      style={{ background: backdrop }}
      data-testid={testId}
      data-kind={kind}
    >
      <div className="max-w-md rounded-3xl border border-white/15 bg-black/55 p-8 text-center">
        {Icon && (
          <span className="mx-auto mb-4 grid size-14 place-items-center rounded-full bg-white/10 text-white">
            <Icon aria-hidden className="size-7" />
          </span>
        )}
        <h1 className="text-2xl font-extrabold text-white" data-testid="room-face-title">
          {title}
        </h1>
        <p className="mt-3 text-ink-100">{body}</p>
        {quote && (
          <blockquote
            className="mt-3 break-words rounded-xl border-l-4 border-white/40 bg-white/10 px-4 py-3 text-left text-lg font-semibold text-white"
            data-testid="kick-reason-text"
          >
            {quote}
          </blockquote>
        )}
        <div className="mt-6">{children}</div>
      </div>
    </div>
  );
}
