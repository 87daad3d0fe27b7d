import { History, ThumbsDown, ThumbsUp } from "lucide-react";
import { useEffect, useState } from "react";
import { AddToQueueButton } from "~/components/songs/SongActions";
import { SongRow } from "~/components/songs/SongRow";
import { useT } from "~/i18n";
import { apiRequest } from "~/lib/api.client";
import { PLAYLIST_SERVICE, type CrateSongDto } from "~/lib/songs";
import type { VoteCounts } from "../../../shared/protocol";
import type { NameOf } from "./people";

interface Play {
  playId: string;
  song: CrateSongDto;
  voteCounts: VoteCounts;
  djUuid: string;
}

const SHOWN = 8;

/**
 * The songs played here lately, newest first, with their votes and "Add to queue" (issue
 * 20). Read from the playlist-service's recent plays when the page opens and again as each
 * song starts (the room records the one before as it picks the next).
 */
export function RecentPlays({
  slug,
  playId,
  nameOf,
  signedIn,
}: {
  slug: string;
  /** The play on air now: a new one means the last one is in the list. */
  playId: string | null;
  nameOf: NameOf;
  signedIn: boolean;
}) {
  const t = useT();
  const [plays, setPlays] = useState<Play[] | null>(null);

  useEffect(() => {
    let live = true;
    apiRequest<{ songPlays: Play[] }>(
      `${PLAYLIST_SERVICE}/rooms/${encodeURIComponent(slug)}/recent-songs?limit=${SHOWN + 1}`,
    )
      .then((r) => live && setPlays(r.songPlays.filter((p) => p.playId !== playId).slice(0, SHOWN)))
      .catch(() => live && setPlays((p) => p ?? []));
    return () => {
      live = false;
    };
  }, [slug, playId]);

  if (!plays) return null;
  return (
    <section
      aria-labelledby="recent-heading"
      className="rounded-3xl border border-white/10 bg-black/25 p-4 sm:p-5"
      data-testid="recent-plays"
    >
      <h2 id="recent-heading" className="flex items-center gap-2 text-lg font-bold text-white">
        <History aria-hidden className="size-5" />
        {t("recent.heading")}
      </h2>
      {plays.length === 0 ? (
        <p className="mt-2 text-sm text-ink-100">{t("recent.empty")}</p>
      ) : (
        <ul className="mt-2 space-y-1">
          {plays.map((p) => (
            <li key={p.playId} data-testid="recent-play">
              <SongRow
                song={p.song}
                tag={
                  <span className="inline-flex flex-wrap items-center gap-2 text-xs text-ink-200">
                    <span>
                      {t("recent.playedBy", {
                        name: nameOf({ uuid: p.djUuid, tokenRole: "user" }),
                      })}
                    </span>
                    <span
                      className="inline-flex items-center gap-1"
                      aria-label={t("recent.votes", {
                        likes: String(p.voteCounts.likes),
                        dislikes: String(p.voteCounts.dislikes),
                      })}
                    >
                      <ThumbsUp aria-hidden className="size-3.5" />
                      {p.voteCounts.likes}
                      <ThumbsDown aria-hidden className="ml-1 size-3.5" />
                      {p.voteCounts.dislikes}
                    </span>
                  </span>
                }
                actions={signedIn ? <AddToQueueButton song={p.song} compact /> : undefined}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
