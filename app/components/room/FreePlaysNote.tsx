import { Link, useLocation } from "@remix-run/react";
import { UserPlus } from "lucide-react";
import { button } from "~/components/ui";
import { useT } from "~/i18n";
import { withRedirectTo } from "~/lib/redirects";

/**
 * A guest's free plays (spec 001 Playback: "Guests beyond a free-play limit cannot play";
 * durable/room/free-plays.ts counts them): a quiet count while songs are left, and in place
 * of the song's audio once they are used up, the way back in: a free account.
 */
export function FreePlaysNote({ used, limit }: { used: number; limit: number }) {
  const t = useT();
  const { pathname } = useLocation();
  const signup = withRedirectTo("/signup", pathname);
  if (used <= limit)
    return (
      <p className="mt-2 text-sm text-ink-100" data-testid="free-plays">
        {t("room.freePlaysLeft", { used, limit })}{" "}
        <Link to={signup} className="font-semibold text-white underline underline-offset-2">
          {t("room.freePlaysSignUp")}
        </Link>
      </p>
    );
  return (
    <div
      className="mt-3 rounded-2xl border border-white/15 bg-white/5 p-3"
      role="status"
      data-testid="free-plays-over"
    >
      <p className="font-semibold text-white">{t("room.freePlaysOver", { limit })}</p>
      <p className="mt-1 text-sm text-ink-100">{t("room.freePlaysOverHint")}</p>
      <Link to={signup} className={`${button("primary", "sm")} mt-3`}>
        <UserPlus aria-hidden className="size-4" />
        {t("room.freePlaysSignUpButton")}
      </Link>
    </div>
  );
}

/** Whether this guest has used up their free plays (the song does not play for them). */
export const outOfFreePlays = (f: { used: number; limit: number } | null) =>
  !!f && f.used > f.limit;
