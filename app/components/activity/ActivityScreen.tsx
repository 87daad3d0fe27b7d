import type { DiscordSDK } from "@discord/embedded-app-sdk";
import { Link, useFetcher, useNavigate } from "@remix-run/react";
import { Loader2, RotateCcw, Users } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useT, type MessageKey } from "~/i18n";
import { activityRoomPath, type ActivityConfig, type ActivitySignIn } from "~/lib/activity";
import type { DisplayError } from "~/lib/errors";
import { Alert, button } from "~/components/ui";
import { authorizeInDiscord, inDiscordFrame } from "./discord-frame";

type ActionData = { signedIn?: ActivitySignIn; error?: DisplayError };
type Phase =
  | { kind: "connecting" | "signingIn" | "opening" | "outside" | "off" | "denied" }
  | { kind: "failed"; error: DisplayError | null }
  | { kind: "rooms"; rooms: ActivitySignIn["rooms"]; guildId: string | null };

const BUSY: Partial<Record<Phase["kind"], MessageKey>> = {
  connecting: "activity.connecting",
  signingIn: "activity.signingIn",
  opening: "activity.opening",
};

/** Discord's RPC "OAuth2 error" (5000): the person closed or refused the authorize dialog. */
const isDenied = (err: unknown) =>
  typeof err === "object" && err !== null && (err as { code?: unknown }).code === 5000;

/**
 * The Activity's first screen: connects to Discord, signs the Discord person in (the action),
 * tells the SDK who they are, then opens the room tied to the frame's server (or lists the
 * server's rooms when it has several).
 */
export function ActivityScreen({ config }: { config: ActivityConfig }) {
  const t = useT();
  const navigate = useNavigate();
  const fetcher = useFetcher<ActionData>();
  const sdk = useRef<DiscordSDK | null>(null);
  const guild = useRef<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [phase, setPhase] = useState<Phase>({ kind: "connecting" });

  useEffect(() => {
    if (!config.clientId) return setPhase({ kind: "off" });
    if (!inDiscordFrame(window.location.search)) return setPhase({ kind: "outside" });
    let gone = false;
    setPhase({ kind: "connecting" });
    authorizeInDiscord(config.clientId).then(
      ({ sdk: made, code, guildId }) => {
        if (gone) return;
        sdk.current = made;
        guild.current = guildId;
        setPhase({ kind: "signingIn" });
        fetcher.submit({ code, guildId: guildId ?? "" }, { method: "post" });
      },
      (err) =>
        !gone && setPhase(isDenied(err) ? { kind: "denied" } : { kind: "failed", error: null }),
    );
    return () => {
      gone = true;
    };
    // fetcher.submit is stable; a retry bumps `attempt`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [config.clientId, attempt]);

  useEffect(() => {
    const d = fetcher.data;
    if (fetcher.state !== "idle" || !d) return;
    if (d.error || !d.signedIn) return setPhase({ kind: "failed", error: d.error ?? null });
    const { accessToken, rooms } = d.signedIn;
    let gone = false;
    sdk.current?.commands.authenticate({ access_token: accessToken }).then(
      () => {
        if (gone) return;
        if (rooms.length === 1) {
          setPhase({ kind: "opening" });
          navigate(activityRoomPath(rooms[0].slug), { replace: true });
        } else setPhase({ kind: "rooms", rooms, guildId: guild.current });
      },
      () => !gone && setPhase({ kind: "failed", error: null }),
    );
    return () => {
      gone = true;
    };
  }, [fetcher.state, fetcher.data, navigate]);

  const busy = BUSY[phase.kind];
  return (
    <div
      className="mx-auto flex max-w-xl flex-col gap-5 px-4 py-10 sm:py-14"
      data-testid="activity"
    >
      <div>
        <h1 className="text-3xl font-black tracking-tight text-white">{t("activity.title")}</h1>
        <p className="mt-1 text-ink-200">{t("activity.lede")}</p>
      </div>
      {busy && (
        <p
          role="status"
          className="flex items-center gap-3 text-lg text-ink-100"
          data-testid="activity-busy"
        >
          <Loader2 aria-hidden className="size-5 animate-spin text-accent" />
          {t(busy)}
        </p>
      )}
      {(phase.kind === "outside" || phase.kind === "off") && (
        <Alert>{t(phase.kind === "off" ? "activity.off" : "activity.outside")}</Alert>
      )}
      {(phase.kind === "denied" || phase.kind === "failed") && (
        <div className="space-y-3" data-testid="activity-failed">
          <Alert
            error={
              phase.kind === "failed" && phase.error && !phase.error.generic
                ? phase.error
                : {
                    status: 400,
                    message: t(phase.kind === "denied" ? "activity.denied" : "activity.failed"),
                    generic: false,
                  }
            }
          />
          <button
            type="button"
            onClick={() => setAttempt((n) => n + 1)}
            className={button("secondary", "sm")}
          >
            <RotateCcw aria-hidden className="size-4" />
            {t("activity.retry")}
          </button>
        </div>
      )}
      {phase.kind === "rooms" && <GuildRooms rooms={phase.rooms} guildId={phase.guildId} />}
    </div>
  );
}

function GuildRooms({
  rooms,
  guildId,
}: {
  rooms: ActivitySignIn["rooms"];
  guildId: string | null;
}) {
  const t = useT();
  if (!rooms.length)
    return (
      <div className="space-y-3" data-testid="activity-no-room">
        <Alert>{guildId ? t("activity.noRoom", { guildId }) : t("activity.noGuild")}</Alert>
        <Link to="/activity/rooms" className={button("secondary", "sm")}>
          {t("activity.browse")}
        </Link>
      </div>
    );
  return (
    <div className="space-y-3">
      <p className="text-ink-100">{t("activity.choose", { count: rooms.length })}</p>
      <ul className="space-y-2" data-testid="activity-rooms">
        {rooms.map((r) => (
          <li key={r.slug}>
            <Link
              to={activityRoomPath(r.slug)}
              className="flex items-center justify-between gap-3 rounded-2xl border border-line bg-panel/70 p-4 text-white hover:border-accent focus-visible:outline focus-visible:outline-2 focus-visible:outline-accent"
            >
              <span className="truncate font-bold">{r.name}</span>
              <span className="flex shrink-0 items-center gap-1.5 text-sm text-ink-200">
                <Users aria-hidden className="size-4" />
                {t("activity.listeners", { count: r.numberOfUsersInRoom ?? 0 })}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
