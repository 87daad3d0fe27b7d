import { and, count, desc, eq, gte, lt, lte, or, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { db } from "../db/client";
import { auditEvents } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { requireAdmin } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { takeSkip } from "../lib/paging";
import { fields, valid } from "../lib/validate";
import { MSG } from "./messages";

/**
 * The audit trail for admins (issue 15, the audit page's contract):
 *
 * - `GET /audit-events?userUuid&topic&from&to&skip&take`: newest first. `userUuid` matches
 *   the event's user, actor or target; `topic` is exact, or a prefix when it ends in `.`
 *   (`moderation.`); `from`/`to` are ISO date-times or epoch ms, both inclusive; `take` at most
 *   100 (default 50). Answers `{ data, total, skip, take }`.
 * - `GET /audit-events/topics`: the distinct topics stored, sorted (the page's filter).
 * - `GET /audit-events/{id}`: one event by its row id, 404 if none.
 *
 * Append-only: no route changes or deletes an event; only the retention purge does.
 */
export const auditEventRoutes = new Hono<AppEnv>();

type AuditEventRow = typeof auditEvents.$inferSelect;

/** The API's shape of an event (the contract: times in ISO). */
export function toAuditEventDto(r: AuditEventRow) {
  return {
    id: r.id,
    eventId: r.eventId,
    topic: r.topic,
    userUuid: r.userUuid,
    actorUuid: r.actorUuid,
    targetUuid: r.targetUuid,
    requestId: r.requestId,
    country: r.country,
    region: r.region,
    city: r.city,
    data: r.data,
    occurredAt: new Date(r.occurredAt).toISOString(),
  };
}

// Dates from year 2000 to 9999: a ms value outside them is a mistake (seconds for ms).
const MIN_MS = Date.UTC(2000, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31);
const instant = (name: string) =>
  z
    .string()
    .max(40, `${name} must be an ISO date-time or epoch milliseconds`)
    .transform((v, ctx) => {
      const ms = /^\d+$/.test(v)
        ? Number(v)
        : z.iso.datetime({ offset: true }).safeParse(v).success
          ? Date.parse(v)
          : NaN;
      if (!(ms >= MIN_MS && ms <= MAX_MS)) {
        ctx.addIssue({
          code: "custom",
          message: `${name} must be an ISO date-time or epoch milliseconds`,
        });
        return z.NEVER;
      }
      return ms;
    });

export const auditEventQuery = takeSkip(100, 50, 100_000)
  .extend({
    userUuid: z.string().min(1).max(100).optional(),
    topic: z
      .string()
      .min(1)
      .max(100, "topic must be at most 100 characters")
      .regex(/^[A-Za-z0-9._:-]+$/, "topic may hold letters, digits and . _ : - only")
      .optional(),
    from: instant("from").optional(),
    to: instant("to").optional(),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    message: MSG.fromAfterTo,
    path: ["from"],
  });
export type AuditEventQuery = z.output<typeof auditEventQuery>;

/**
 * `topic.` as a range (`topic >= 'moderation.' and topic < 'moderation/'`, '/' follows '.'):
 * the topic index answers it, and `%` or `_` in a topic mean nothing special.
 */
function topicCondition(topic: string): SQL {
  if (!topic.endsWith(".")) return eq(auditEvents.topic, topic);
  const next = `${topic.slice(0, -1)}/`;
  return and(gte(auditEvents.topic, topic), lt(auditEvents.topic, next))!;
}

/** The user as the event's user, its actor or its target (each column has its index). */
export const involving = (uuid: string) =>
  or(
    eq(auditEvents.userUuid, uuid),
    eq(auditEvents.actorUuid, uuid),
    eq(auditEvents.targetUuid, uuid),
  )!;

export async function listAuditEvents(env: Env, q: AuditEventQuery) {
  const where = and(
    q.userUuid === undefined ? undefined : involving(q.userUuid),
    q.topic === undefined ? undefined : topicCondition(q.topic),
    q.from === undefined ? undefined : gte(auditEvents.occurredAt, q.from),
    q.to === undefined ? undefined : lte(auditEvents.occurredAt, q.to),
  );
  const d = db(env);
  const [rows, [{ total }]] = await Promise.all([
    d
      .select()
      .from(auditEvents)
      .where(where)
      // Newest first; the id breaks ties (events of one millisecond) the same way every page.
      .orderBy(desc(auditEvents.occurredAt), desc(auditEvents.id))
      .limit(q.take)
      .offset(q.skip)
      .all(),
    d.select({ total: count() }).from(auditEvents).where(where).all(),
  ]);
  return { data: rows.map(toAuditEventDto), total, skip: q.skip, take: q.take };
}

/** At most this many topics are listed (the product records a few dozen). */
const MAX_TOPICS = 500;

auditEventRoutes.get("/audit-events", requireAdmin, valid("query", auditEventQuery), async (c) =>
  c.json(await listAuditEvents(c.env, c.req.valid("query"))),
);

auditEventRoutes.get("/audit-events/topics", requireAdmin, async (c) => {
  // A skip-scan over the topic index: one seek per distinct topic, not a read of every event.
  const { results } = await c.env.DB.prepare(
    `with recursive t(topic) as (
       select min(topic) from audit_events
       union all
       select (select min(topic) from audit_events where topic > t.topic) from t
       where t.topic is not null
       limit ?1
     )
     select topic from t where topic is not null`,
  )
    .bind(MAX_TOPICS)
    .all<{ topic: string }>();
  return c.json(results.map((r) => r.topic));
});

auditEventRoutes.get(
  "/audit-events/:id",
  requireAdmin,
  valid("param", z.object({ id: fields.int(1, Number.MAX_SAFE_INTEGER) })),
  async (c) => {
    const row = await db(c.env)
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.id, c.req.valid("param").id))
      .get();
    if (!row) throw new ApiError(404, MSG.eventNotFound);
    return c.json(toAuditEventDto(row));
  },
);

/** The newest event involving `uuid` (its user, actor or target), or undefined. */
export const lastEventOf = (env: Env, uuid: string) =>
  db(env)
    .select()
    .from(auditEvents)
    .where(involving(uuid))
    .orderBy(desc(auditEvents.occurredAt), desc(auditEvents.id))
    .limit(1)
    .get();
