/**
 * The token shop's texts, in one place (seed 000 error catalogue where it names one; ours
 * otherwise, written as the user-facing display rule asks: a sentence a buyer can act on).
 */
export const STORE_MSG = {
  /** Seed 000, "User-facing display": the token account is missing. */
  accountNotFound: "We were unable to find your token account. Please try again.",
  notYourAccount: "This token account belongs to someone else.",
  accountDisabled: "This token account is disabled.",
  grantRefused: "Granting tokens is only possible in development and test mode.",
  holdNotFound: "That hold does not exist.",
  bundleNotFound: "Token bundle not found.",
  thumbnailNotFound: "This token bundle has no thumbnail.",
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
} as const;
