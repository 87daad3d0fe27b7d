import { z } from "zod";

/**
 * Where an avatar backfill stopped: the award being given (by slug; awards go in slug order)
 * and the last user uuid examined for it (users go in uuid order). Opaque to the client: a
 * base64url JSON value it hands back as `?cursor=` to go on from there.
 */
export interface BackfillCursor {
  slug: string;
  after: string;
}

const shape = z.object({ slug: z.string().min(1).max(100), after: z.string().max(200) });

export const encodeCursor = (c: BackfillCursor): string =>
  btoa(JSON.stringify(c)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** The `cursor` query field: a cursor this route made, or a 400 with the message. */
export const cursorField = z
  .string()
  .max(600, "cursor is not one this route gave")
  .transform((s, ctx): BackfillCursor => {
    try {
      const json: unknown = JSON.parse(atob(s.replace(/-/g, "+").replace(/_/g, "/")));
      const r = shape.safeParse(json);
      if (r.success) return r.data;
    } catch {
      // not base64 or not JSON: the same answer as a wrong shape
    }
    ctx.addIssue({ code: "custom", message: "cursor is not one this route gave" });
    return z.NEVER;
  });
