/**
 * Where a person stands on a room's floor, shared by the Room (allUserData's `position`) and
 * the page (someone the state does not name, such as the viewer in a stadium room past
 * ROOM_SHOWN_USERS, still stands at their own spot).
 */

/**
 * A stable pseudo-random spot on the floor for a uuid: FNV-1a over the uuid, two 16-bit
 * halves mapped to [0, 1) with 3 decimals. Same uuid, same spot, on every (re)connect.
 */
export function floorPosition(uuid: string): { x: number; y: number } {
  let h = 0x811c9dc5;
  for (let i = 0; i < uuid.length; i++) {
    h ^= uuid.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // A second round mixes the high bits into both halves.
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d) >>> 0;
  h ^= h >>> 12;
  const x = Math.floor(((h & 0xffff) / 0x10000) * 1000) / 1000;
  const y = Math.floor(((h >>> 16) / 0x10000) * 1000) / 1000;
  return { x, y };
}
