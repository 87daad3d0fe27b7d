import { Flame } from "lucide-react";
import { useT } from "~/i18n";

/** The vibe meter: -1 (the floor hates it) to 1 (the floor loves it). */
export function VibeMeter({ value, accent }: { value: number; accent: string }) {
  const t = useT();
  const v = Math.max(-1, Math.min(1, Number.isFinite(value) ? value : 0));
  const pct = Math.round(((v + 1) / 2) * 100);
  return (
    <div>
      <div className="mb-1.5 flex items-center justify-between text-sm text-ink-100">
        <span className="inline-flex items-center gap-1.5 font-semibold">
          <Flame aria-hidden className="size-4" style={{ color: accent }} />
          {t("room.vibe")}
        </span>
        <span className="tabular-nums">
          {t(v > 0.25 ? "room.vibeHot" : v < -0.25 ? "room.vibeCold" : "room.vibeMild")}
        </span>
      </div>
      <div
        role="meter"
        aria-label={t("room.vibe")}
        aria-valuemin={-100}
        aria-valuemax={100}
        aria-valuenow={Math.round(v * 100)}
        className="relative h-2.5 overflow-hidden rounded-full bg-white/15"
      >
        <div
          className="absolute inset-y-0 left-0 rounded-full transition-[width] duration-500"
          style={{ width: `${pct}%`, background: `linear-gradient(90deg, #3ee0ff, ${accent})` }}
        />
        <div aria-hidden className="absolute inset-y-0 left-1/2 w-px bg-white/60" />
      </div>
    </div>
  );
}
