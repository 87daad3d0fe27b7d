import { Hono } from "hono";
import { z } from "zod";
import { DEAD_LETTER_STATUSES } from "../../db/schema";
import type { AppEnv } from "../../env";
import { caller, requireAdmin } from "../../lib/auth";
import { conflict } from "../../lib/errors";
import { takeSkip } from "../../lib/paging";
import { valid } from "../../lib/validate";
import {
  discardDeadLetter,
  getDeadLetter,
  listDeadLetters,
  replayDeadLetters,
} from "./dead-letter-repo";

/**
 * The points dead letters for admins (issue 12): events the points queue gave up on, or
 * bodies that were never events. Every route is for admins only (401 without a token, 403
 * for anyone else).
 *
 * - `GET /admin/points-dead-letters?take&skip&status`: newest death first; `take` 1..100
 *   (default 20), `skip` at most 10,000 (over either: 400, as every take/skip list);
 *   answers `{ data, total, take, skip, counts }` (`counts`: rows per status).
 * - `GET /admin/points-dead-letters/:id`: one.
 * - `POST /admin/points-dead-letters/:id/replay`: sends the event to the points queue again
 *   (409 when it cannot be replayed: an invalid body, or an event too old for the boards'
 *   dedupe window). Repeating it is harmless: the boards count an event id once.
 * - `POST /admin/points-dead-letters/replay` `{ ids }` (1..100): the same for a set; rows that
 *   cannot be replayed are answered in `skipped`, the rest replayed. An unknown id: 404 and
 *   nothing is sent.
 * - `POST /admin/points-dead-letters/:id/discard`: kept for the record, never sent.
 */
export const adminDeadLetterRoutes = new Hono<AppEnv>();

const BASE = "/admin/points-dead-letters";
const MAX_SKIP = 10_000;

// Ids: positive whole numbers (in a path, coerced from the segment; in a body, numbers).
const ID_MSG = ["id must be a whole number", "id must be positive", "id is too large"] as const;
const idParam = z.object({
  id: z.coerce
    .number({ error: "id must be a number" })
    .int(ID_MSG[0])
    .min(1, ID_MSG[1])
    .max(2 ** 52, ID_MSG[2]),
});
const bodyId = z
  .number({ error: "ids must be numbers" })
  .int(ID_MSG[0])
  .min(1, ID_MSG[1])
  .max(2 ** 52, ID_MSG[2]);
const listQuery = takeSkip(100, 20, MAX_SKIP).extend({
  status: z
    .enum(DEAD_LETTER_STATUSES, {
      error: `status must be one of ${DEAD_LETTER_STATUSES.join(", ")}`,
    })
    .optional(),
});
const replayBody = z.object({
  ids: z
    .array(bodyId, { error: "ids must be a list" })
    .min(1, "ids must name at least one dead letter")
    .max(100, "ids must name at most 100 dead letters")
    .transform((ids) => [...new Set(ids)]),
});

adminDeadLetterRoutes.get(BASE, requireAdmin, valid("query", listQuery), async (c) =>
  c.json(await listDeadLetters(c.env, c.req.valid("query"))),
);

adminDeadLetterRoutes.post(`${BASE}/replay`, requireAdmin, valid("json", replayBody), async (c) =>
  c.json(await replayDeadLetters(c.env, c.req.valid("json").ids, caller(c).uuid)),
);

adminDeadLetterRoutes.get(`${BASE}/:id`, requireAdmin, valid("param", idParam), async (c) =>
  c.json(await getDeadLetter(c.env, c.req.valid("param").id)),
);

adminDeadLetterRoutes.post(
  `${BASE}/:id/replay`,
  requireAdmin,
  valid("param", idParam),
  async (c) => {
    const r = await replayDeadLetters(c.env, [c.req.valid("param").id], caller(c).uuid);
    if (r.skipped.length) throw conflict(r.skipped[0].message);
    return c.json(r.replayed[0]);
  },
);

adminDeadLetterRoutes.post(
  `${BASE}/:id/discard`,
  requireAdmin,
  valid("param", idParam),
  async (c) => c.json(await discardDeadLetter(c.env, c.req.valid("param").id, caller(c).uuid)),
);
