/**
 * Every text the audit-service answers with beyond its request validation. Routes and tests
 * import them from here, so each text is written once.
 */
export const MSG = {
  bodyTooLarge: (max: number) => `Request body must be at most ${max} bytes`,
  /** Seed 001, error catalogue: "User actions call ...: Unauthorized to perform action." */
  userActionsRefused: "Unauthorized to perform action.",
  actionNotFound: "Moderation action not found.",
  eventNotFound: "Audit event not found.",
  noEventYet: "This user has no audit event.",
  targetsNotFound: (uuids: string[]) => `No such user: ${uuids.join(", ")}`,
  onlyReasonChanges:
    "Only reason may be changed: a moderation action is history (record a new action instead).",
  deleteRefused:
    "Moderation actions cannot be deleted: they are the history of what was done. Correct the reason with PATCH, or record the reversing action (an unban, a role removal).",
  fromAfterTo: "from must not be after to",
  changedMeanwhile: "This action changed meanwhile; read it again before editing.",
} as const;
