/** English strings of the Discord Activity page (issue 16); spread into en.ts. */
export const enActivity = {
  "activity.title": "Hangout in Discord",
  "activity.lede": "Listen together without leaving your voice channel.",
  "activity.connecting": "Connecting to Discord…",
  "activity.signingIn": "Signing you in…",
  "activity.opening": "Opening your server's room…",
  "activity.choose": "This server has {count} rooms. Pick one:",
  "activity.listeners": "{count} listening",
  "activity.noRoom":
    "No Hangout room is tied to this Discord server yet. A room's owner can tie their room to it (server id {guildId}).",
  "activity.noGuild": "Start Hangout from a server's voice channel to open that server's room.",
  "activity.browse": "See all rooms",
  "activity.outside":
    "This page runs inside Discord. Start Hangout from the Activities menu of a voice channel.",
  "activity.off": "Discord is not available on this server.",
  "activity.denied": "You didn't allow Hangout in Discord, so nothing happened.",
  "activity.failed": "Signing in through Discord didn't work.",
  "activity.retry": "Try again",
} as const;
