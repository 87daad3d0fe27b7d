import { useEffect, useRef, useState, type ReactNode } from "react";

/**
 * How hard the room dances: nothing without a song; a nod while one plays; a groove, then
 * a jump, as the vibe rises (the room's vibeMeter, -1..1: likes minus dislikes over the
 * active listeners). Thresholds sit where a few likes in a small room lift the floor.
 */
export type DanceLevel = "still" | "nod" | "groove" | "hype";

export function danceLevel(playing: boolean, vibe: number | undefined): DanceLevel {
  if (!playing) return "still";
  const v = typeof vibe === "number" && Number.isFinite(vibe) ? vibe : 0;
  if (v >= 0.6) return "hype";
  if (v >= 0.25) return "groove";
  return "nod";
}

/**
 * An avatar that dances (issue 20, "Avatars that dance"): CSS animation only (app/styles.css,
 * `.dancer`), stopped for prefers-reduced-motion. `offset` (0..1) shifts the listener's beat
 * so the floor does not move as one block. `jumps` is how many times this user has liked
 * (useRoom's jump counter): each new one bobs the avatar once, on top of the dance.
 */
export function Dancer({
  level,
  jumps = 0,
  offset = 0,
  children,
}: {
  level: DanceLevel;
  jumps?: number;
  offset?: number;
  children: ReactNode;
}) {
  const [bobbing, setBobbing] = useState(false);
  const seen = useRef(jumps);
  useEffect(() => {
    if (jumps > seen.current) setBobbing(true);
    seen.current = jumps;
  }, [jumps]);
  return (
    <span
      className={`dancer-bob-wrap inline-block ${bobbing ? "dance-bob" : ""}`}
      onAnimationEnd={(e) => {
        if (e.animationName === "avatar-bob") setBobbing(false);
      }}
      data-testid="dancer"
      data-dance={level}
      data-bobbing={bobbing ? "true" : undefined}
    >
      <span
        className={`dancer inline-block ${level === "still" ? "" : `dance-${level}`}`}
        style={{ animationDelay: `${-(offset * 0.5).toFixed(3)}s` }}
      >
        {children}
      </span>
    </span>
  );
}
