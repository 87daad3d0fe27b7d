/**
 * Every text the audit-service answers with beyond its request validation. Routes and tests
 * import them from here, so each text is written once.
 */
export const MSG = {
  bodyTooLarge: (max: number) => `Request body must be at most ${max} bytes`,
} as const;
