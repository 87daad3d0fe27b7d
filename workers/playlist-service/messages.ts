/**
 * The playlist-service's own texts: crates, song data, exports and the music providers
 * (the seeds' catalogue texts for songs, crates and search are SONG_MSG in
 * workers/songs/messages.ts, shared with the upload-service). Routes, the provider
 * adapters' route helpers (adapters/music/index.ts) and tests import them from here.
 */
export const MSG = {
  // Crates (crate-repo.ts, special-crates.ts).
  specialLocked: "The queue and likes crates cannot be deleted or renamed.",
  refillCrate: "Choose one of your own crates (not the queue or likes) to refill your queue from.",
  positionRange: (n: number) =>
    n === 0
      ? "currentPosition must be 0 for an empty crate."
      : `currentPosition must be between 0 and ${n - 1}.`,
  // Song data (song-data.ts).
  streamIdUnknown: "id must be a song id or a 7digital track id, or name its provider",
  // Music providers (adapters/music/index.ts, song-data.ts, exports.ts).
  providerOff: (name: string) => `${name} is not configured on this server.`,
  noAdapter: (name: string) => `${name} links cannot be looked up on this server.`,
  providerFailed: (name: string) => `${name} did not answer; please try again.`,
  noLinkedAccount: (name: string) =>
    `Link your ${name} account under Connected accounts (or send accessToken) to export to it.`,
  refusedToken: (name: string) =>
    `${name} refused the access token; link your ${name} account again.`,
  trackNotFound: (name: string) => `${name} has no such track.`,
  badLink: "link must be an http or https URL.",
  noStream: "This song has no stream.",
  exportForbidden: "Only the owner of this crate can export it.",
  // Background playlist imports (track-import.ts).
  importKeyReused: "This importKey was used for an import into another crate.",
  importNotFound: "No such import for this crate.",
  tooManyImports: (wait: string) => `Too many playlist imports; try again in ${wait}.`,
  // Similar tracks (similar-tracks.ts, similar/analysis-jobs.ts).
  similarBudget: (wait: string) => `Too many similar-track requests; try again in ${wait}.`,
  analysisBudget: (wait: string) => `Too many analysis requests; try again in ${wait}.`,
  analysisQueueDown: "Music analysis could not be queued; please try again.",
  analysisOff: "Music analysis is not configured on this server.",
  analysisUnsupported: "This song has no Spotify id, so it cannot be analysed.",
} as const;
