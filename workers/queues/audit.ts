import { z } from "zod";
import { batchOf, db } from "../db/client";
import { auditEvents } from "../db/schema";
import type { Env } from "../env";

/** An audit event (seed 001: chat, purchase, playlist, room and login events, and more). */
export const auditMessage = z.object({
  eventId: z.string().min(1),
  topic: z.string().min(1).max(100),
  userUuid: z.string().nullable().optional(),
  data: z.record(z.string(), z.unknown()).default({}),
  occurredAt: z.number().int(),
});
export type AuditMessage = z.input<typeof auditMessage>;

/**
 * Record an event without making the caller wait on the audit store. `eventId` defaults to
 * a fresh one; pass a natural key (play tracking: `${topic}:${playId}:${userUuid}`) when a retried
 * request must not store the event twice; the consumer keeps the first row per id.
 */
export async function audit(
  env: Env,
  topic: string,
  userUuid: string | null,
  data: Record<string, unknown> = {},
  eventId: string = crypto.randomUUID(),
) {
  const message: AuditMessage = { eventId, topic, userUuid, data, occurredAt: Date.now() };
  await env.AUDIT.send(message);
}

/** 5 bound values per event, 100 per statement at most. */
export const AUDIT_ROWS_PER_INSERT = 20;

export async function consumeAudit(batch: MessageBatch<unknown>, env: Env) {
  const rows = [];
  for (const m of batch.messages) {
    const parsed = auditMessage.safeParse(m.body);
    if (parsed.success) rows.push(parsed.data);
    else console.error("dropping malformed audit event", parsed.error.issues);
  }
  if (rows.length) {
    // D1 binds at most 100 values per statement (5 per event here): insert in chunks, all
    // in one batch (one transaction). The unique event id makes a redelivery a no-op.
    const d = db(env);
    const inserts = [];
    for (let i = 0; i < rows.length; i += AUDIT_ROWS_PER_INSERT) {
      inserts.push(
        d
          .insert(auditEvents)
          .values(rows.slice(i, i + AUDIT_ROWS_PER_INSERT))
          .onConflictDoNothing({ target: auditEvents.eventId }),
      );
    }
    await d.batch(batchOf(inserts));
  }
  batch.ackAll();
}
