import type { CSSProperties, ReactNode } from "react";
import { floorPosition } from "../../../shared/floor";
import type { RoomUser, UserData } from "../../../shared/protocol";

/** Avatars drawn on the floor at most; the rest are counted in a "+N" badge. */
export const FLOOR_MAX = 80;
const AVATAR_PX = 40;

/**
 * Where a listener stands: the room's `allUserData[uuid].position` (each coordinate in
 * [0, 1), the same spot on every reconnect and for every viewer), as CSS offsets that keep
 * the whole avatar inside the floor. Someone the room has no data for yet (the patch that
 * adds them is a tick behind) stands in the middle rather than jumping in from a corner.
 */
export function floorSpot(
  position: UserData["position"] | undefined,
  size = AVATAR_PX,
): { left: string; top: string; x: number; y: number } {
  const clamp = (v: unknown) =>
    typeof v === "number" && Number.isFinite(v) ? Math.min(0.999, Math.max(0, v)) : 0.5;
  const x = clamp(position?.x);
  const y = clamp(position?.y);
  return { left: `calc(${x} * (100% - ${size}px))`, top: `calc(${y} * (100% - ${size}px))`, x, y };
}

/**
 * The dance floor (UI.md "below, the floor of listeners' avatars"): each listener at their
 * own spot; those further down are drawn in front, as on a real floor seen from above.
 */
export function Floor({
  audience,
  count,
  locale,
  userData,
  render,
  label,
}: {
  audience: RoomUser[];
  /** Everyone on the floor, named or not (the caller's count, at least audience.length). */
  count: number;
  /** The page's language, for the "+N" figure. */
  locale: string;
  userData: Record<string, UserData> | undefined;
  render: (u: RoomUser) => ReactNode;
  label: (u: RoomUser) => string;
}) {
  const shown = audience.slice(0, FLOOR_MAX);
  return (
    <div className="relative">
      <ul
        className="relative h-48 rounded-2xl bg-[radial-gradient(ellipse_at_center,rgba(255,255,255,0.08),transparent_70%)] sm:h-56"
        data-testid="floor"
      >
        {shown.map((u) => {
          // The room's spot, or the same spot worked out here for someone it does not name.
          const spot = floorSpot(userData?.[u.uuid]?.position ?? floorPosition(u.uuid));
          return (
            <li
              key={u.uuid}
              title={label(u)}
              // The depth is a variable, not an inline z-index: an inline one would beat the
              // class that lifts the spot whose menu is open above every other avatar.
              className="absolute z-(--floor-z) transition-[left,top] duration-500 has-[[role=menu]]:z-[200]"
              style={
                {
                  left: spot.left,
                  top: spot.top,
                  "--floor-z": Math.round(spot.y * 100),
                } as CSSProperties
              }
              data-testid="floor-user"
              data-user={u.uuid}
              data-x={spot.x}
              data-y={spot.y}
            >
              {render(u)}
            </li>
          );
        })}
      </ul>
      {count > shown.length && (
        // Above every avatar (their depth is at most 100) and opaque enough to read over them.
        <span
          className="absolute bottom-2 right-2 z-[150] grid h-10 min-w-10 place-items-center rounded-full bg-black/75 px-3 text-xs font-bold text-white ring-1 ring-white/25 backdrop-blur-sm"
          data-testid="floor-more"
        >
          +{(count - shown.length).toLocaleString(locale)}
        </span>
      )}
    </div>
  );
}
