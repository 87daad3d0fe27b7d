import { Hono } from "hono";
import { z } from "zod";
import {
  CLIENT_ACTIONS,
  STATEFUL_MESSAGE_NAMES,
  STATELESS_MESSAGE_NAMES,
} from "../../shared/protocol";
import type { AppEnv } from "../env";
import { requireAdmin } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { valid } from "../lib/validate";
import { AUDIT_TOPICS } from "../queues/audit-topics";
import { lastEventOf, toAuditEventDto } from "./audit-events";
import { MSG } from "./messages";

/**
 * The audit-service's reference calls for the admin pages (seed 001, Audit service), admins
 * only. The names come from the code that uses them (shared/protocol.ts, the audit topics
 * list), so they cannot drift from what the product sends.
 *
 * - `GET /info-admin/socket-events-names`: `{ client, server }`, the room protocol's client
 *   actions and the names of the messages a room sends.
 * - `GET /info-admin/user-events-names`: every audit topic (play tracking's among them).
 * - `GET /info-admin/event-last/{id}`: the newest audit event involving user {id} (as its
 *   user, actor or target), 404 when there is none.
 */
export const infoAdminRoutes = new Hono<AppEnv>();

export const SOCKET_EVENT_NAMES = {
  client: [...CLIENT_ACTIONS],
  server: ["roomState", ...STATEFUL_MESSAGE_NAMES, ...STATELESS_MESSAGE_NAMES],
};

infoAdminRoutes.get("/info-admin/socket-events-names", requireAdmin, (c) =>
  c.json(SOCKET_EVENT_NAMES),
);

infoAdminRoutes.get("/info-admin/user-events-names", requireAdmin, (c) =>
  c.json([...AUDIT_TOPICS]),
);

infoAdminRoutes.get(
  "/info-admin/event-last/:id",
  requireAdmin,
  valid("param", z.object({ id: z.string().min(1).max(100) })),
  async (c) => {
    const row = await lastEventOf(c.env, c.req.valid("param").id);
    if (!row) throw new ApiError(404, MSG.noEventYet);
    return c.json(toAuditEventDto(row));
  },
);
