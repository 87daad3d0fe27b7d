import { Link } from "@remix-run/react";
import { button } from "~/components/ui";
import { useLocale, useT } from "~/i18n";
import { formatDateTime } from "~/lib/format";
import type { PlatformRemoval } from "~/lib/moderation";
import { RoomFace } from "./RoomFace";

/**
 * The room's face when a platform moderator removed this person (issue 15): a ban names its
 * end and the reason; a platform kick says they were signed out and may sign in again. A
 * room's own kick stays RoomScreen's kicked face.
 */
export function PlatformRemovalFace({
  removal,
  backdrop,
  slug,
}: {
  removal: PlatformRemoval;
  backdrop: string;
  slug: string;
}) {
  const t = useT();
  const locale = useLocale();
  const ban = removal.kind === "platformBan";
  return (
    <RoomFace
      title={ban ? t("room.platformBanTitle") : t("room.platformKickTitle")}
      body={
        ban
          ? removal.until
            ? t("banned.until", { until: formatDateTime(removal.until, locale) })
            : t("banned.forever")
          : t("room.platformKickBody")
      }
      quote={removal.reason}
      backdrop={backdrop}
      testId="room-kicked"
      kind={ban ? "banned" : "kicked"}
    >
      <div className="flex flex-wrap justify-center gap-2">
        {!ban && (
          <a
            href={`/login?redirectTo=${encodeURIComponent(`/rooms/${slug}`)}`}
            className={button("primary")}
          >
            {t("room.signInAgain")}
          </a>
        )}
        <Link to="/rooms" className={button(ban ? "primary" : "secondary")}>
          {t("room.backToRooms")}
        </Link>
      </div>
    </RoomFace>
  );
}
