/**
 * Messages of the song, crate and search calls: the seeds' catalogue word for word
 * (seed 001, section 8), then ours. Routes and tests import them from here.
 */
export const SONG_MSG = {
  // From the catalogue.
  editForbidden: "Unauthorized to edit tags that not belongs to the user.",
  notVerified: "Song is not verified.",
  importNoProviders: "Sorry, this song does not have any supported music providers to import from.",
  importNotInCatalog: "Sorry, this song is not in our catalog and can't be imported",
  // Ours.
  songNotFound: "Song not found.",
  crateNotFound: "Crate not found.",
  crateSongNotFound: "This song is not in the crate.",
  crateForbidden: "Only the owner of this crate can change it.",
  emptySearch: "Search needs a non-empty query.",
  unsupportedLink: "This link is not from a supported music provider.",
  linkNeedsIsrc: "This song cannot be resolved: it has no ISRC.",
  importNeedsNames:
    "trackName and artistName are needed: the provider cannot be asked on this server, so the song is kept as you name it.",
  tooManyUnverified: (wait: string) =>
    `You have added many songs that cannot be checked yet; try again in ${wait}.`,
} as const;
