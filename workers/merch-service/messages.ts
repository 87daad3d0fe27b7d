/**
 * Every text the merch-service answers with: the token shop (seed 000's error catalogue
 * where it names one; ours otherwise, written as the user-facing display rule asks: a
 * sentence a buyer can act on), points, seasons and ranking, avatars and custom fields.
 * Routes and tests import them from here, so each text is written once.
 */
export const MSG = {
  // The token shop (token-shop/).
  /** Seed 000, "User-facing display": the token account is missing. */
  accountNotFound: "We were unable to find your token account. Please try again.",
  notYourAccount: "This token account belongs to someone else.",
  accountDisabled: "This token account is disabled.",
  grantRefused: "Granting tokens is only possible in development and test mode.",
  holdNotFound: "That hold does not exist.",
  bundleNotFound: "Token bundle not found.",
  thumbnailNotFound: "This token bundle has no thumbnail.",
  bundleProductTaken:
    "Another token bundle already sells this product; edit that bundle, or choose a product no bundle sells.",
  consumableNotFound: "Consumable not found.",
  fileNotFound: "Consumable file not found.",
  unknownFile: "fileId does not name an uploaded consumable file.",
  roomNotFound: "Room not found.",
  costChanged: (now: number) =>
    `The price of this item is now ${now} tokens. Please review it and try again.`,
  stale: "Your token balance has changed. Please review it and try again.",
  keyReused: "This Idempotency-Key was already used for a different purchase.",
  cancelled: "This purchase was cancelled and nothing was charged.",
  deliveryFailed: "The room could not be reached, so nothing was charged. Please try again.",
  deliveryPending:
    "The room did not answer. Your purchase finishes on its own within a few minutes: charged only if it was shown in the room.",
  // Points, seasons and ranking (points/).
  userNotFound: "User not found.",
  occurredInFuture: "occurredAt must not be in the future",
  occurredTooLongAgo: (days: number) => `occurredAt must be within the last ${days} days.`,
  occurredInEndedSeason: (season: string) =>
    `occurredAt falls in season "${season}", which has ended: its ranking is frozen.`,
  seasonNotFound: "Season not found.",
  seasonIdNotFound: (id: number) => `Season ${id} not found.`,
  noLaterSeason: "There is no later season.",
  noEarlierSeason: "There is no earlier season.",
  overlap: "Seasons cannot overlap: another season already covers part of these dates.",
  nameTaken: (n: string) => `A season named "${n}" already exists.`,
  startedStart: "This season has started: its start date can no longer change.",
  endedFrozen: "This season has ended: its ranking is frozen and its dates can no longer change.",
  startInPast: "startDate must not be in the past.",
  endInPast: "endDate must be in the future.",
  endBeforeStart: "endDate must be after startDate",
  rankingStatusNotFound: "Ranking status not found.",
  deadLetterNotFound: "Dead letter not found.",
  deadLettersNotFound: (ids: number[]) => `Dead letters not found: ${ids.join(", ")}.`,
  deadLetterInvalid:
    "This dead letter is not a valid points event, so replaying it cannot apply it: discard it.",
  deadLetterExpired: (days: number) =>
    `This event happened over ${days} days ago: the boards may have forgotten its id, so a replay could count it twice. It cannot be replayed.`,
  // Avatars, their art and assignments, custom fields (avatars/).
  avatarNotFound: "Avatar not found.",
  avatarSlugTaken: (slug: string) => `An avatar with the slug "${slug}" already exists.`,
  awardFieldsOnlyForAward: "seasonId and pointsThreshold apply only to SEASON_AWARD avatars.",
  awardFieldsMissing: "A SEASON_AWARD avatar needs seasonId and pointsThreshold.",
  avatarLocked: (slug: string, howToUnlock: string | null) =>
    `You cannot use the avatar "${slug}" yet. ${howToUnlock}`,
  artNotFound: "Avatar art not found.",
  artTypes: "file must be a PNG, JPEG, WebP or SVG file.",
  artFileEmpty: "file is empty.",
  artUnreadable: "file could not be read as an image.",
  artSvgTooLarge: (kb: number) => `file must be at most ${kb} KB as SVG.`,
  artSvgActive: "SVG art must not contain scripts, event handlers, embedded documents or entities.",
  artTooLarge: (max: number, width: number, height: number) =>
    `file must be at most ${max} x ${max} pixels; it is ${width} x ${height}.`,
  assignmentNotFound: "Avatar assignment not found.",
  customFieldLimit: (max: number) => `You can keep at most ${max} custom fields; delete one first.`,
  customFieldNotFound: (key: string) => `Custom field "${key}" not found.`,
} as const;
