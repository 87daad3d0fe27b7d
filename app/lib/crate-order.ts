/**
 * Reordering a crate the reader sees only part of (issue 18): the server hides songs the
 * reader may not see (another person's private upload, a song taken down), so the list's
 * index is not the song's place in the crate. A move names the target's server `position`
 * (PUT .../position `{ newPosition }`), and the local list keeps server positions, shifted
 * exactly as the server shifts them, so a second move before a reload is placed right too.
 */
export interface Positioned {
  position: number;
}

/**
 * Moves the song at list index `from` to where the song at list index `to` is. Answers the
 * new list (positions updated as the server will) and the position to send.
 */
export function moveByPosition<T extends Positioned>(
  list: readonly T[],
  from: number,
  to: number,
): { list: T[]; newPosition: number } {
  const moved = list[from];
  const target = list[to];
  if (!moved || !target || from === to)
    return { list: [...list], newPosition: moved?.position ?? 0 };
  const p = moved.position;
  const q = target.position;
  const shifted = list.map((s) => {
    if (s === moved) return { ...s, position: q };
    // Moving down: the songs between step up one; moving up: they step down one.
    if (p < q && s.position > p && s.position <= q) return { ...s, position: s.position - 1 };
    if (p > q && s.position >= q && s.position < p) return { ...s, position: s.position + 1 };
    return s;
  });
  // The list in its new order: by position (hidden songs leave gaps; order is what counts).
  return { list: shifted.sort((a, b) => a.position - b.position), newPosition: q };
}
