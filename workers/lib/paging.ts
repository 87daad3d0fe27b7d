import { z } from "zod";

/**
 * `take/skip` lists (the spec names these for service and marketing lists). `maxSkip` bounds
 * how deep a list may be read, where each skipped row costs the store a step.
 */
export const takeSkip = (max = 100, dflt = 20, maxSkip = Number.MAX_SAFE_INTEGER) =>
  z.object({
    take: z.coerce
      .number()
      .int()
      .min(1, "take must be at least 1")
      .max(max, `take must be at most ${max}`)
      .default(dflt),
    skip: z.coerce
      .number()
      .int()
      .min(0, "skip must not be negative")
      .max(maxSkip, `skip must be at most ${maxSkip}`)
      .default(0),
  });

/** `limit/offset` lists. */
export const limitOffset = (max = 100, dflt = 20) =>
  z.object({
    limit: z.coerce
      .number()
      .int()
      .min(1, "limit must be at least 1")
      .max(max, `limit must be at most ${max}`)
      .default(dflt),
    offset: z.coerce.number().int().min(0, "offset must not be negative").default(0),
  });
