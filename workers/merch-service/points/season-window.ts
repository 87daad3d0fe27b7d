import { badRequest, conflict } from "../../lib/errors";
import { MSG } from "../messages";

/**
 * When a season's window [startDate, endDate) may be set or moved (docs/DECISIONS.md,
 * "Points, seasons and ranking"). Checked before anything is written, so a refusal changes
 * nothing; the overlap rule is the writing statement's own (seasons.ts).
 *
 * - A season cannot start in the past: points are routed to a season as they arrive, so a
 *   start before its creation would promise a ranking of time it never saw. A minute of
 *   grace absorbs clock skew and the admin's "now" reaching us a little late.
 * - A season's end is always in the future when set: an end in the past would freeze the
 *   board at once, empty (or, for a running season, strand the points just counted).
 * - A started season keeps its start; an ended one is frozen (409: the state forbids it).
 */
export const START_GRACE_MS = 60_000;

interface Window {
  startDate: number;
  endDate: number;
}

/** A new season's window (end after start is the body schema's rule). */
export function checkNewWindow(w: Window, now = Date.now()): void {
  if (w.startDate < now - START_GRACE_MS) throw badRequest(MSG.startInPast);
  if (w.endDate <= now) throw badRequest(MSG.endInPast);
}

/** Moving `was` to `next`; an unchanged date is never refused (a rename always works). */
export function checkWindowChange(was: Window, next: Window, now = Date.now()): void {
  if (next.endDate <= next.startDate) throw badRequest(MSG.endBeforeStart);
  const moveStart = next.startDate !== was.startDate;
  const moveEnd = next.endDate !== was.endDate;
  if (!moveStart && !moveEnd) return;
  if (now >= was.endDate) throw conflict(MSG.endedFrozen);
  if (moveStart && now >= was.startDate) throw conflict(MSG.startedStart);
  if (moveStart && next.startDate < now - START_GRACE_MS) throw badRequest(MSG.startInPast);
  if (moveEnd && next.endDate <= now) throw badRequest(MSG.endInPast);
}
