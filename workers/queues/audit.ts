import type { Context } from "hono";
import { z } from "zod";
import { batchOf, db } from "../db/client";
import { auditEvents } from "../db/schema";
import type { AppEnv, Env } from "../env";
import type { AuditTopic } from "./audit-topics";

/**
 * An audit event (seed 001: chat, purchase, playlist, room and login events, and more): who
 * acted (`actorUuid`), on whom (`targetUuid`), whose event it is (`userUuid`, the row the
 * user's history lists), when, the request it came from and where that request came from
 * (Cloudflare's `cf` country, region, city). Strings are bounded so one event stays a small row.
 */
const uuidish = z.string().min(1).max(100).nullable().optional();
const place = z.string().max(100).nullable().optional();
export const auditMessage = z.object({
  eventId: z.string().min(1).max(200),
  topic: z.string().min(1).max(100),
  userUuid: uuidish,
  actorUuid: uuidish,
  targetUuid: uuidish,
  requestId: z.string().max(100).nullable().optional(),
  country: place,
  region: place,
  city: place,
  data: z.record(z.string(), z.unknown()).default({}),
  occurredAt: z.number().int(),
});
export type AuditMessage = z.input<typeof auditMessage>;

/** Who acted and on whom, when it is not simply "the user did it to themselves". */
export interface AuditParties {
  /** Defaults to the event's user. */
  actorUuid?: string | null;
  /** Defaults to `data.targetUuid` when that is a string. */
  targetUuid?: string | null;
}

/** Where a request came from, as the audit trail keeps it. */
export interface RequestOrigin {
  requestId: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
}

// One id per request, however many events it records: Cloudflare's `cf-ray` when present
// (it names the request in Cloudflare's own logs too), otherwise a fresh one. Keyed by the
// Request object, so it lives exactly as long as the request.
const requestIds = new WeakMap<Request, string>();
const cfText = (v: unknown) => (typeof v === "string" && v ? v.slice(0, 100) : null);

/** The request's id and its `cf` geolocation (null fields when absent, as locally). */
export function requestOrigin(req: Request): RequestOrigin {
  let requestId = requestIds.get(req);
  if (!requestId) {
    requestId = (req.headers.get("cf-ray") ?? "").slice(0, 100) || crypto.randomUUID();
    requestIds.set(req, requestId);
  }
  const cf = (req as { cf?: Record<string, unknown> }).cf;
  return {
    requestId,
    country: cfText(cf?.country),
    region: cfText(cf?.region),
    city: cfText(cf?.city),
  };
}

/** A route's context (the event carries its request id and origin) or, outside a request, the env. */
export type AuditSource = Env | Context<AppEnv>;
const isContext = (s: AuditSource): s is Context<AppEnv> => "req" in s && "env" in s;
export const envOf = (s: AuditSource): Env => (isContext(s) ? s.env : s);

/**
 * Record an event without making the caller wait on the audit store. Pass the route's
 * context `c` (not `c.env`) so the event carries the request id and the caller's country,
 * region and city; a queue consumer or the cron passes `env`. `eventId` defaults to a fresh
 * one; pass a natural key (play tracking: `${topic}:${playId}:${userUuid}`) when a retried
 * request must not store the event twice; the consumer keeps the first row per id.
 *
 * @example await audit(c, "moderation.globalBan", mod.uuid, { reason }, `moderation:${id}`, { targetUuid })
 */
export async function audit(
  source: AuditSource,
  topic: AuditTopic,
  userUuid: string | null,
  data: Record<string, unknown> = {},
  eventId: string = crypto.randomUUID(),
  parties: AuditParties = {},
) {
  const env = envOf(source);
  const origin = isContext(source) ? requestOrigin(source.req.raw) : null;
  const dataTarget = typeof data.targetUuid === "string" ? data.targetUuid : null;
  const message: AuditMessage = {
    eventId,
    topic,
    userUuid,
    actorUuid: parties.actorUuid === undefined ? userUuid : parties.actorUuid,
    targetUuid: parties.targetUuid === undefined ? dataTarget : parties.targetUuid,
    ...origin,
    data,
    occurredAt: Date.now(),
  };
  await env.AUDIT.send(message);
}

/** 11 bound values per event (id is a literal null), 100 per statement at most. */
export const AUDIT_ROWS_PER_INSERT = 9;

export async function consumeAudit(batch: MessageBatch<unknown>, env: Env) {
  const rows = [];
  for (const m of batch.messages) {
    const parsed = auditMessage.safeParse(m.body);
    if (parsed.success) rows.push(parsed.data);
    else console.error("dropping malformed audit event", parsed.error.issues);
  }
  if (rows.length) {
    // D1 binds at most 100 values per statement (11 per event here): insert in chunks, all
    // in one batch (one transaction). The unique event id makes a redelivery a no-op.
    // Messages queued before the actor, target and origin fields existed store nulls there.
    const d = db(env);
    const inserts = [];
    for (let i = 0; i < rows.length; i += AUDIT_ROWS_PER_INSERT) {
      const chunk = rows.slice(i, i + AUDIT_ROWS_PER_INSERT).map((r) => ({
        eventId: r.eventId,
        topic: r.topic,
        userUuid: r.userUuid ?? null,
        actorUuid: r.actorUuid ?? null,
        targetUuid: r.targetUuid ?? null,
        requestId: r.requestId ?? null,
        country: r.country ?? null,
        region: r.region ?? null,
        city: r.city ?? null,
        data: r.data,
        occurredAt: r.occurredAt,
      }));
      inserts.push(
        d.insert(auditEvents).values(chunk).onConflictDoNothing({ target: auditEvents.eventId }),
      );
    }
    await d.batch(batchOf(inserts));
  }
  batch.ackAll();
}
