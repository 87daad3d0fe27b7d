/** Messages of the linking calls (issue 16); the seeds name none, so these are ours. */
export const LINK_MSG = {
  notConfigured: (name: string) =>
    `${name} is not configured on this server, so it cannot be linked.`,
  badState:
    "This link request is unknown, expired, already used or was started by another account. Start linking again.",
  codeRefused: (name: string) =>
    `${name} refused the authorization code (it was already used or has expired). Start linking again.`,
  notLinked: (name: string) => `No ${name} account is linked.`,
  revoked: (name: string) =>
    `${name} no longer accepts this link (it was revoked at ${name}). Link your account again.`,
  linkedElsewhere: (name: string) =>
    `This ${name} account is already linked to another Hangout account.`,
  signInOnlyDiscord: "Only Discord can be used to sign in.",
  discordEmailTaken:
    "An account with this Discord e-mail address already exists. Sign in with it and link Discord from Connected accounts.",
  discordOnlyWayIn:
    "You sign in with Discord: add a login e-mail and set a password before unlinking it.",
  tooManyLinks: (wait: string) => `Too many link requests. Try again in ${wait}.`,
  notYours: "You can only read your own linked account's token.",
  appleTokenRefused: "Apple Music refused this Music User Token.",
  notOAuth:
    "provider must be one of discord, spotify, youtube, soundcloud (Apple Music links with POST /apple/user-token)",
  unknownProvider: "provider must be one of discord, spotify, youtube, soundcloud, apple",
  publicTokenBusy: "SoundCloud's token is being renewed; try again in a moment.",
} as const;
