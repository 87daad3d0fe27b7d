import { nowMs } from "./now";
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The audit trail (issue 15; seed 001 "Audit service"): the audit queue's consumer writes it
 * (workers/queues/audit.ts), the audit-service reads it (`/audit-events`) and its retention
 * purge deletes from it (workers/audit-service/retention.ts). Times are epoch milliseconds.
 * Re-exported by schema.ts.
 */
const now = nowMs;

/** Audit trail written by the audit queue's consumer (login, chat, purchase, room, playlist...). */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Idempotency: the producer's event id; a redelivery writes nothing. */
    eventId: text("event_id").notNull().unique(),
    topic: text("topic").notNull(),
    /** Whose event it is (the history it belongs to); usually the one who acted. */
    userUuid: text("user_uuid"),
    /** Who acted (a moderator, an admin, "service") and on whom (migration 0019). */
    actorUuid: text("actor_uuid"),
    targetUuid: text("target_uuid"),
    /** The request that caused it (`cf-ray` or a generated id) and where it came from (`cf`). */
    requestId: text("request_id"),
    country: text("country"),
    region: text("region"),
    city: text("city"),
    data: text("data", { mode: "json" })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    occurredAt: integer("occurred_at").notNull(),
    createdAt: integer("created_at").notNull().default(now),
  },
  (t) => [
    index("audit_events_user_idx").on(t.userUuid, t.occurredAt),
    index("audit_events_topic_idx").on(t.topic, t.occurredAt),
    // The audit page's filters (user as actor or target) and the retention purge (time).
    index("audit_events_actor_idx").on(t.actorUuid, t.occurredAt),
    index("audit_events_target_idx").on(t.targetUuid, t.occurredAt),
    index("audit_events_time_idx").on(t.occurredAt),
  ],
);
