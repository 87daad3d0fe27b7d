/**
 * The crates domain's texts (workers/crates/crate-repo.ts: used by the playlist-service's
 * routes and by the Room object alike). The playlist-service's own texts are in
 * workers/playlist-service/messages.ts.
 */
export const CRATE_MSG = {
  positionRange: (n: number) =>
    n === 0
      ? "currentPosition must be 0 for an empty crate."
      : `currentPosition must be between 0 and ${n - 1}.`,
} as const;
