import { Hono } from "hono";
import { z } from "zod";
import { clearRefillChoice, refillChoice, setRefillChoice } from "../crates/queue-refill";
import type { AppEnv } from "../env";
import { caller, requireUser } from "../lib/auth";
import { notFound } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { MSG } from "./messages";

/**
 * The caller's "refill my queue from crate X" setting (issue 20; workers/crates/queue-refill.ts
 * does the refill). Mounted before the special crates, so `/crate/queue/refill` is never a
 * crate song path.
 */
export const queueRefillRoutes = new Hono<AppEnv>();

const PATH = "/crate/queue/refill";
const body = z.object({ crateUuid: fields.uuid });

/** GET /crate/queue/refill: `{ crateUuid, crateName }`, or both null when none is chosen. */
queueRefillRoutes.get(PATH, requireUser, async (c) => {
  const choice = await refillChoice(c.env, caller(c).uuid);
  return c.json({ crateUuid: choice?.crateUuid ?? null, crateName: choice?.crateName ?? null });
});

/** PUT /crate/queue/refill `{ crateUuid }`: one of the caller's own ordinary crates (404 otherwise). */
queueRefillRoutes.put(PATH, requireUser, valid("json", body), async (c) => {
  const who = caller(c).uuid;
  if (!(await setRefillChoice(c.env, who, c.req.valid("json").crateUuid)))
    throw notFound(MSG.refillCrate);
  const choice = await refillChoice(c.env, who);
  return c.json({ crateUuid: choice?.crateUuid ?? null, crateName: choice?.crateName ?? null });
});

/** DELETE /crate/queue/refill: no refill any more; 204. */
queueRefillRoutes.delete(PATH, requireUser, async (c) => {
  await clearRefillChoice(c.env, caller(c).uuid);
  return c.body(null, 204);
});
