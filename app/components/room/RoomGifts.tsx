import { useEffect, useRef, useState } from "react";
import { useT } from "~/i18n";
import type { RoomProfile } from "~/lib/rooms";
import { freshGifts, seedOf, type GiftShow } from "~/lib/gifts";
import type { ChatMessage } from "../../../shared/protocol";

/**
 * Gifts that play in the room (issue 20): when someone sends a consumable, every page in the
 * room sees it, not only as a chat line. A `cover` consumable (the shop's Confetti) rains
 * confetti over the whole room; a `small` one (a sticker) pops up over the room and floats
 * away. A banner says who sent what (and is all that shows under prefers-reduced-motion:
 * app/styles.css hides the moving parts).
 *
 * Which lines play is app/lib/gifts.ts. CSS only, transforms and opacity; nothing catches
 * the pointer.
 */
/** How long a show stays (the longest confetti piece lands before this). */
const SHOW_MS = 6_000;
/** Shows at once: a burst of purchases does not bury the room. */
const MAX_SHOWS = 4;
const PIECES = 90;
const COLORS = ["#ff4fa3", "#3ee0ff", "#ffd166", "#3ddc97", "#b3a0ff", "#f95d2d"];

/** The consumable lines that arrived since the first state, as shows; each ends by itself. */
export function useGiftShows(
  chat: ChatMessage[] | undefined,
  serverNow: () => number,
  nameOf: (m: ChatMessage) => string,
): GiftShow[] {
  const seen = useRef<Set<string> | null>(null);
  const [shows, setShows] = useState<GiftShow[]>([]);
  const nameRef = useRef(nameOf);
  useEffect(() => {
    nameRef.current = nameOf;
  });

  useEffect(() => {
    if (!chat) return;
    const r = freshGifts(seen.current, chat, serverNow(), (m) => nameRef.current(m));
    seen.current = r.seen;
    if (r.shows.length) setShows((s) => [...s, ...r.shows].slice(-MAX_SHOWS));
  }, [chat, serverNow]);

  useEffect(() => {
    if (!shows.length) return;
    const timer = setTimeout(() => setShows((s) => s.slice(1)), SHOW_MS);
    return () => clearTimeout(timer);
  }, [shows]);

  return shows;
}

function Confetti({ id }: { id: string }) {
  const seed = seedOf(id);
  return (
    <div aria-hidden className="absolute inset-0" data-testid="room-confetti">
      {Array.from({ length: PIECES }, (_, i) => {
        const r = (k: number) => ((seed >>> (i % 16)) + i * k) % 1000;
        return (
          <span
            key={i}
            className="confetti-piece"
            style={
              {
                left: `${(r(137) / 10).toFixed(1)}%`,
                background: COLORS[(i + seed) % COLORS.length],
                width: 6 + (r(31) % 6),
                height: 10 + (r(53) % 8),
                animationDelay: `${((r(71) % 1200) / 1000).toFixed(2)}s`,
                animationDuration: `${(3 + (r(97) % 1600) / 1000).toFixed(2)}s`,
                "--drift": `${(r(113) % 240) - 120}px`,
                "--spin": `${360 + (r(151) % 720)}deg`,
              } as React.CSSProperties
            }
          />
        );
      })}
    </div>
  );
}

function Sticker({ show }: { show: GiftShow }) {
  return (
    <div
      aria-hidden
      className="sticker-pop absolute bottom-[22%] -translate-x-1/2"
      style={{ left: `${(show.x * 100).toFixed(0)}%` }}
      data-testid="room-sticker"
    >
      {show.imageUrl ? (
        <img src={show.imageUrl} alt="" className="size-28 drop-shadow-2xl" />
      ) : (
        <span className="block text-7xl">🎁</span>
      )}
    </div>
  );
}

/** The overlay of the room's gifts, over everything and under nothing the pointer needs. */
export function RoomGifts({
  chat,
  serverNow,
  profiles,
}: {
  chat: ChatMessage[] | undefined;
  serverNow: () => number;
  profiles: Record<string, RoomProfile>;
}) {
  const t = useT();
  const shows = useGiftShows(
    chat,
    serverNow,
    (m) => m.userName ?? (m.userUuid ? profiles[m.userUuid]?.nickname : null) ?? t("room.listener"),
  );
  if (!shows.length) return null;
  const last = shows[shows.length - 1];
  return (
    <div
      className="pointer-events-none fixed inset-0 z-40 overflow-hidden"
      data-testid="room-gifts"
    >
      {shows.map((s) =>
        s.kind === "confetti" ? <Confetti key={s.id} id={s.id} /> : <Sticker key={s.id} show={s} />,
      )}
      <p
        role="status"
        key={last.id}
        className="gift-banner absolute left-1/2 top-32 w-max max-w-[92vw] -translate-x-1/2 sm:top-24 rounded-full border border-amber-300/40 bg-black/75 px-5 py-2 text-center text-base font-semibold text-white shadow-xl"
        data-testid="room-gift-banner"
      >
        {t(last.kind === "confetti" ? "shop.effectConfetti" : "shop.chatSent", {
          name: last.name,
          item: last.item,
        })}
      </p>
    </div>
  );
}
