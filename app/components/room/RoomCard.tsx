import { Link } from "@remix-run/react";
import { Headphones, Heart, Music2, Star, Users } from "lucide-react";
import { useT } from "~/i18n";
import type { DiscoverRoom } from "~/lib/discover";
import { paletteOf } from "~/lib/rooms";
import { UserAvatar } from "./UserAvatar";

/**
 * A room in a list: its design's colours and genre, name, listeners, what plays and its DJ,
 * the caller's friends there (discovery's cards carry them); a favourite star.
 */
export function RoomCard({
  room,
  favorite,
  onToggleFavorite,
}: {
  room: DiscoverRoom;
  favorite?: boolean;
  onToggleFavorite?: () => void;
}) {
  const t = useT();
  const palette = paletteOf(room.design);
  // The lists copy the live room's summary here (workers/room-service/room-dto.ts liveSummary).
  const song = room.song as {
    trackName?: string;
    artistName?: string;
    djName?: string | null;
  } | null;
  const friends = room.friendsInRoom ?? [];
  const extra = room.friendInRoomUuids.length - Math.min(2, friends.length);
  const names = friends
    .slice(0, 2)
    .map((f) => f.nickname)
    .join(", ");
  const friendsLine =
    extra > 0
      ? t("discover.friendsMore", { names, count: extra })
      : t("discover.friendsHere", { names, count: friends.length });
  return (
    <li
      className="relative overflow-hidden rounded-3xl border border-white/10 shadow-xl shadow-black/30 transition hover:border-white/30"
      style={{ background: palette.backdrop }}
      data-testid="room-card"
    >
      <Link to={`/rooms/${room.slug}`} className="block h-full rounded-3xl p-5 pr-14">
        <span className="flex flex-wrap gap-1.5">
          <span
            className="inline-block rounded-full px-2.5 py-0.5 text-xs font-bold tracking-wide text-ink-950"
            style={{ background: palette.accent }}
          >
            {t(`design.${room.design}` as "design.CLUB")}
          </span>
          {room.genre && (
            <span
              className="inline-block rounded-full bg-black/45 px-2.5 py-0.5 text-xs font-bold tracking-wide text-white"
              data-testid="room-card-genre"
            >
              {t(`genre.${room.genre}` as "genre.pop")}
            </span>
          )}
        </span>
        <h3 className="mt-3 truncate text-xl font-extrabold text-white">{room.name}</h3>
        {room.description && (
          <p className="mt-1 line-clamp-2 text-sm text-ink-100">{room.description}</p>
        )}
        <p className="mt-4 flex items-center gap-1.5 text-sm font-semibold text-white">
          <Users aria-hidden className="size-4" />
          {t("room.listeners", { count: room.numberOfUsersInRoom })}
        </p>
        {song?.trackName && (
          <p className="mt-1 flex min-w-0 items-center gap-1.5 text-sm text-ink-100">
            <Music2 aria-hidden className="size-4 shrink-0" />
            <span className="truncate" data-testid="room-card-song">
              {t("rooms.cardPlaying", { track: song.trackName, artist: song.artistName ?? "" })}
            </span>
          </p>
        )}
        {song?.trackName && song.djName && (
          <p className="mt-1 flex min-w-0 items-center gap-1.5 text-sm text-ink-100">
            <Headphones aria-hidden className="size-4 shrink-0" />
            <span className="truncate" data-testid="room-card-dj">
              {t("rooms.cardDj", { name: song.djName })}
            </span>
          </p>
        )}
        {friends.length > 0 && (
          <p
            className="mt-3 flex min-w-0 items-center gap-2 text-sm font-semibold text-white"
            data-testid="room-card-friends"
          >
            <Heart aria-hidden className="size-4 shrink-0" style={{ color: palette.accent }} />
            <span className="flex shrink-0 -space-x-2">
              {friends.slice(0, 3).map((f) => (
                <UserAvatar
                  key={f.uuid}
                  profile={{ ...f, profilePicture: null }}
                  fallbackName={f.nickname}
                  size={24}
                />
              ))}
            </span>
            <span className="truncate">{friendsLine}</span>
          </p>
        )}
      </Link>
      {onToggleFavorite && (
        <button
          type="button"
          onClick={onToggleFavorite}
          aria-pressed={!!favorite}
          aria-label={t(favorite ? "rooms.unfavorite" : "rooms.favorite", { name: room.name })}
          title={t(favorite ? "rooms.unfavorite" : "rooms.favorite", { name: room.name })}
          className="absolute right-3 top-3 grid size-10 place-items-center rounded-full bg-black/45 text-white transition hover:bg-black/70"
          data-testid="favorite-toggle"
        >
          <Star
            aria-hidden
            className="size-5"
            fill={favorite ? palette.accent : "none"}
            style={favorite ? { color: palette.accent } : undefined}
          />
        </button>
      )}
    </li>
  );
}
