import { Hourglass, LogOut, UserPlus } from "lucide-react";
import { useEffect, useState } from "react";
import { button } from "~/components/ui";
import type { RoomConnection } from "~/hooks/useRoom";
import { plural, useT } from "~/i18n";
import type { RoomProfile } from "~/lib/rooms";
import type { RoomUser } from "../../../shared/protocol";
import type { NameOf } from "./people";
import type { RoomMe } from "./RoomChat";
import { UserAvatar } from "./UserAvatar";

/** Faces shown in the line before "+N more". */
const SHOWN = 8;

/**
 * The DJ waiting list under the seats (issue 20, as on plug.dj): join when every seat is
 * taken, see your place, leave. The room seats the first in line as a seat frees; this only
 * shows the list the room holds (`state.waitlist`) and sends the two actions.
 */
export function WaitlistPanel({
  conn,
  me,
  mine,
  full,
  onStage,
  profiles,
  nameOf,
}: {
  conn: RoomConnection;
  me: RoomMe;
  mine: RoomUser | undefined;
  /** Every seat is taken. */
  full: boolean;
  onStage: boolean;
  profiles: Record<string, RoomProfile>;
  nameOf: NameOf;
}) {
  const t = useT();
  const list = conn.state?.waitlist ?? [];
  const place = me ? list.indexOf(me.uuid) + 1 : 0;
  const [pending, setPending] = useState(false);
  // The answer is the list itself (or an error the stage shows): either ends the wait.
  useEffect(() => setPending(false), [place, conn.error]);
  const canJoin = !!me && !me.guest && !onStage && mine?.canDj !== false && place === 0;
  // An empty list is only worth showing to someone who could join it now.
  if (list.length === 0 && !(full && canJoin)) return null;

  return (
    <div
      className="mt-4 rounded-2xl border border-white/10 bg-black/30 p-3 sm:p-4"
      data-testid="waitlist"
      data-place={place}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="flex items-center gap-2 text-sm font-bold text-white">
          <Hourglass aria-hidden className="size-4" />
          {t("waitlist.heading")}
          <span className="font-medium text-ink-200">
            · {plural(t, "waitlist.count", list.length)}
          </span>
        </h3>
        {place > 0 ? (
          <div className="flex flex-wrap items-center gap-2">
            <span
              className="rounded-full bg-neon/15 px-3 py-1 text-sm font-bold text-neon"
              role="status"
              data-testid="waitlist-place"
            >
              {place === 1
                ? t("waitlist.yourPlace.one")
                : t("waitlist.yourPlace", { place: String(place) })}
            </span>
            <button
              type="button"
              className={button("secondary", "sm")}
              onClick={() => conn.send({ action: "leaveWaitlist" })}
              data-testid="waitlist-leave"
            >
              <LogOut aria-hidden className="size-4" />
              {t("waitlist.leave")}
            </button>
          </div>
        ) : (
          canJoin && (
            <button
              type="button"
              className={button("primary", "sm")}
              disabled={pending}
              onClick={() => conn.send({ action: "joinWaitlist" }) && setPending(true)}
              data-testid="waitlist-join"
            >
              <UserPlus aria-hidden className="size-4" />
              {t("waitlist.join")}
            </button>
          )
        )}
      </div>
      {list.length === 0 ? (
        <p className="mt-2 text-sm text-ink-100">{t("waitlist.hint")}</p>
      ) : (
        <ol className="mt-3 flex flex-wrap items-center gap-2" aria-label={t("waitlist.heading")}>
          {list.slice(0, SHOWN).map((uuid, i) => (
            <li
              key={uuid}
              className={`flex items-center gap-1.5 rounded-full py-0.5 pl-0.5 pr-2.5 text-xs font-semibold ${
                uuid === me?.uuid ? "bg-neon/20 text-white" : "bg-white/10 text-ink-50"
              }`}
              data-testid="waitlist-entry"
            >
              <UserAvatar
                profile={profiles[uuid]}
                fallbackName={nameOf({ uuid, tokenRole: "user" })}
                size={24}
              />
              <span className="tabular-nums text-ink-200">{i + 1}.</span>
              <span className="max-w-28 truncate">{nameOf({ uuid, tokenRole: "user" })}</span>
            </li>
          ))}
          {list.length > SHOWN && (
            <li className="text-xs text-ink-200">
              {t("waitlist.more", { count: list.length - SHOWN })}
            </li>
          )}
        </ol>
      )}
    </div>
  );
}
