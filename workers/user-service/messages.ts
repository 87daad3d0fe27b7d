import { kickNotice } from "../../shared/platform-removal";
/**
 * The seeds' error catalogue for the user-service, word for word (seed 000, section 8),
 * plus the messages we chose where the seeds name none. Routes import these; tests assert
 * on them, so a message is written in exactly one place.
 */
export const MSG = {
  // From the catalogue.
  signUpMissing: "Email or password is missing in request.",
  emailTaken: "This email is already registered.",
  loggedOutEverywhere: "Every session of this account has ended.",
  loggedOut: "You are logged out.",
  notAWebSession: "This token is not a web session: there is nothing to log out of.",
  onlySuperUserMakesAdmins:
    "Only a superUser can create accounts with the admin or superUser role.",
  onlySuperUserResetsAdmins: "Only a superUser can reset the password of an admin or superUser.",
  botOwnerUnverified: "Verify your e-mail address before making a bot.",
  botEmailNotOwners: (owner: string) =>
    `A bot's e-mail must be your own address with a +tag, like ${owner.replace("@", "+bot@")}.`,
  tooManyBots: (n: number) => `You already have ${n} bots, the most one account can own.`,
  ownCapabilities: "You cannot change your own capabilities; ask another moderator.",
  voucherSignUpMissing: "Email, password, or voucher code is missing in request.",
  verifyWrongCode: "Email verification failed, incorrect code.",
  resendRefused:
    "This email is verified, or the minimum time since the last e-mail was sent has not elapsed.",
  emailNotFound: "Email not found.",
  samePassword: "New password must be different from your previous password.",
  changePasswordRefused: "Email address is not verified, or Incorrect email or password.",
  resetRefused: "Can not reset password.",
  badLogin: "Incorrect email or password.",
  profileNotFound: "User profile not found.",
  imageDeleteRefused: "Unauthorized to delete.",
  capabilityExists: "This user has already this role.",
  // Ours.
  tooManyLogins: (wait: string) => `Too many failed login attempts. Please try again in ${wait}.`,
  magicLinkInvalid: "This magic link is not valid.",
  magicLinkUsed: "This magic link has already been used.",
  magicLinkExpired: "This magic link has expired. Please ask for a new one.",
  voucherInvalid: "This voucher code is not valid or has already been used.",
  notABot: "Only a bot account can get a bot token.",
  passwordAlreadySet: "This account already has a password; use change password instead.",
  // Abuse limits (workers/lib/abuse-limits.ts); `wait` is like "12 minutes".
  tooManySignUps: (wait: string) =>
    `Too many accounts were made from your network. Please try again in ${wait}.`,
  tooManyEmailAdds: (wait: string) =>
    `Too many e-mail addresses were added; no mail was sent. Please try again in ${wait}.`,
  tooManyMails: (wait: string) =>
    `Too many e-mails were sent to this address; no mail was sent. Please try again in ${wait}.`,
  tooManyCodeGuesses: (wait: string) =>
    `Too many wrong verification codes for this address. Please try again in ${wait}.`,
  // E-mails, passwords and vouchers (emails.ts, passwords.ts, vouchers.ts).
  loginEmailUndeletable: "Your login e-mail cannot be deleted.",
  forgotPasswordSent: "If an account exists for this e-mail, we sent a link to reset the password.",
  passwordReset: "Your password has been reset. You can log in with the new one.",
  tooManyPictureUploads: (wait: string) => `Too many picture uploads. Please try again in ${wait}.`,
  tooManyPasswordAttempts: (wait: string) =>
    `Too many wrong passwords. Please try again in ${wait}.`,
  voucherNotFound: "Voucher not found.",
  voucherAlreadyRedeemed: "This voucher has been redeemed and can no longer be revoked.",
  // Profiles and images (profiles.ts, images.ts).
  imageNotFound: "Image not found.",
  profileUpdateEmpty: "Provide at least one profile field to update.",
  socialsUpdateEmpty: "Provide at least one of facebook, instagram, twitter, snapchat, tiktok.",
  userDataNotObject: "user data must be a JSON object",
  userDataNotJson: "Send the user data as JSON (Content-Type: application/json).",
  userDataTooLarge: (max: number, n?: number) =>
    `user data must be at most 16 KB (${max} bytes) as JSON${n ? `; it was ${n} bytes` : ""}.`,
  // Capabilities (capabilities.ts).
  capabilityNotHeld: "This user does not have this capability.",
  // Platform moderation (moderation-rules.ts and the routes that ask it).
  moderateSelf: "You cannot moderate your own account; ask another moderator.",
  outranked: "You cannot moderate an account whose role is equal to or above yours.",
  roleTooHigh: "You cannot grant or remove a role equal to or above your own.",
  superOnlyRoles: "Only a superUser can grant or remove the admin or superUser role.",
  targetChanged: "This account's roles changed while you acted; look at it again and retry.",
  notBanned: "This user is not banned.",
  roleNotHeld: "This user does not have this role.",
  kickNotice,
  banTooLong: "A temporary ban ends at least 1 minute and at most 1 year from now.",
  banEndMissing: "Give the temporary ban's end: until (a date) or minutes, not both.",
  // Deactivation (deactivation.ts).
  deactivationRequested: "Your request to deactivate your account was received.",
  deactivationNotRequested: "This user has no pending deactivation request.",
  alreadyDeactivated: "This account is already deactivated.",
  notDeactivated: "This account is not deactivated.",
  deactivationCancelled: "The deactivation request was cancelled.",
  tooManyProfileEdits: (wait: string) =>
    `You changed your name or look too often. Please try again in ${wait}.`,
  tooManyModerationComments: (wait: string) =>
    `Too many moderator notes in a short time. Please try again in ${wait}.`,
  // Phones (phone-validation.ts, mobile-auth.ts, phone-whitelist.ts).
  phoneInvalid: "Phone number is invalid. Only real, non-VoIP mobile numbers are allowed.",
  phoneCheckFailed: "We could not check this phone number just now. Please try again in a minute.",
  textChannelOff: (channel: string) =>
    `Sign-in codes by ${channel === "sms" ? "SMS" : "WhatsApp"} are not available; try the other channel.`,
  codeSent: "We sent you a code. It works once, for 10 minutes.",
  phoneCodeWrong: "This code is incorrect or has expired. Ask for a new one.",
  tooManyPhoneGuesses: (wait: string) =>
    `Too many wrong codes for this number. Please try again in ${wait}.`,
  tooManyCodes: (wait: string, rule: string) =>
    rule === "textCodePerPhone"
      ? `Too many codes were sent to this number. Please try again in ${wait}.`
      : rule === "textCodePerPrefix"
        ? `Too many codes were sent to numbers like this one. Please try again in ${wait}.`
        : `Too many codes were asked for from your network. Please try again in ${wait}.`,
  tooManyValidations: (wait: string) =>
    `Too many phone numbers checked from your network. Please try again in ${wait}.`,
  phoneTaken: "This phone number belongs to another account.",
  accountDeactivated: "This account is deactivated.",
  whitelistTaken: "This phone number is already on the whitelist.",
  whitelistNotFound: "This phone number is not on the whitelist.",
  // Client tokens (agora.ts, comet-chat.ts).
  agoraOff:
    "Live audio is not configured on this server: set AGORA_APP_ID and AGORA_APP_CERTIFICATE.",
  agoraNotPublisher:
    "Only the room's DJs and owner may publish live audio, and only while the room's live audio is on.",
} as const;
