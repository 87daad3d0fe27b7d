import { Volume1, Volume2, VolumeX } from "lucide-react";
import { useEffect, useState, type RefObject } from "react";
import { useT } from "~/i18n";

/** Where the listener's volume and mute are kept between visits (this browser only). */
export const VOLUME_KEY = "hangout.volume";

type Saved = { volume: number; muted: boolean };

function readSaved(): Saved {
  try {
    const v = JSON.parse(localStorage.getItem(VOLUME_KEY) ?? "null") as Partial<Saved> | null;
    const volume = typeof v?.volume === "number" && Number.isFinite(v.volume) ? v.volume : 1;
    return { volume: Math.min(1, Math.max(0, volume)), muted: v?.muted === true };
  } catch {
    return { volume: 1, muted: false };
  }
}

/**
 * Sets the element's volume. While a room song is being put in line the element is held
 * silent and its listener's volume waits in `data-held-volume` (NowPlaying.tsx `hold`):
 * then that is what changes, so the release gives back the new volume.
 */
function applyVolume(el: HTMLAudioElement, volume: number) {
  if (el.dataset.heldVolume !== undefined) el.dataset.heldVolume = String(volume);
  else el.volume = volume;
}

/**
 * The player's volume slider and mute button (issue 20), kept in localStorage so a reload
 * or the next visit plays at the same level. Mute is the element's `muted` (the volume is
 * kept for unmuting); both are native controls, so arrows, Home/End and Space work.
 */
export function VolumeControl({ audioRef }: { audioRef: RefObject<HTMLAudioElement> }) {
  const t = useT();
  // The first paint (server and browser alike) shows full volume; the saved one follows.
  const [saved, setSaved] = useState<Saved | null>(null);
  useEffect(() => setSaved(readSaved()), []);
  useEffect(() => {
    const el = audioRef.current;
    if (!saved || !el) return;
    applyVolume(el, saved.volume);
    el.muted = saved.muted;
    try {
      localStorage.setItem(VOLUME_KEY, JSON.stringify(saved));
    } catch {
      /* storage can be off (private mode): the level holds for this visit */
    }
  }, [saved, audioRef]);

  const { volume, muted } = saved ?? { volume: 1, muted: false };
  const silent = muted || volume === 0;
  const Icon = silent ? VolumeX : volume < 0.5 ? Volume1 : Volume2;
  const percent = Math.round(volume * 100);
  return (
    <div className="flex shrink-0 items-center gap-1.5" data-testid="volume">
      <button
        type="button"
        onClick={() => setSaved({ volume, muted: !muted })}
        aria-label={muted ? t("player.unmute") : t("player.mute")}
        aria-pressed={muted}
        title={muted ? t("player.unmute") : t("player.mute")}
        className="grid size-9 place-items-center rounded-full text-ink-100 transition hover:bg-white/10 hover:text-white"
        data-testid="player-mute"
      >
        <Icon aria-hidden className="size-5" />
      </button>
      <input
        type="range"
        min={0}
        max={100}
        step={5}
        value={muted ? 0 : percent}
        onChange={(e) => setSaved({ volume: Number(e.target.value) / 100, muted: false })}
        aria-label={t("player.volume")}
        aria-valuetext={`${muted ? 0 : percent}%`}
        className="h-1.5 w-24 cursor-pointer accent-brand-light max-sm:hidden"
        data-testid="player-volume"
      />
    </div>
  );
}
