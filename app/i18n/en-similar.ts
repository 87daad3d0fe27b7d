/** English strings of the room's "similar to what's playing" panel (issue 18); spread into en.ts. */
export const enSimilar = {
  "similar.heading": "Similar to what's playing",
  "similar.lede": "Suggestions for your queue",
  "similar.add": "Add to queue",
  "similar.addLabel": "Add “{track}” by {artist} to your queue",
  "similar.added": "Added",
  "similar.loading": "Finding similar songs…",
  "similar.empty":
    "No suggestions yet. They get better as people play, like and save songs to crates.",
  "similar.failed": "Couldn't load suggestions: {reason}",
  "similar.retry": "Try again",
  "similar.analysing": "This song is being analysed; better matches will follow.",
  "similar.reason.analysis": "Sounds alike",
  "similar.reason.liked": "Liked together",
  "similar.reason.crated": "In the same crates",
  "similar.reason.played": "Played nearby",
  "similar.reason.artist": "Same artist",
  "similar.reason.genre": "Same genre",
  "similar.reason.recent": "Fresh pick",
} as const;
