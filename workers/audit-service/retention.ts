import type { Env } from "../env";

/**
 * Audit retention (docs/DECISIONS.md, "Audit trail"): an event is kept 400 days (a year and
 * a bit, so last year's same month can still be compared), then the cron (every minute)
 * deletes it. Moderation events (`moderation.*`) are kept with the moderation_actions rows
 * they describe, which are never purged: a person's history must stay whole.
 *
 * The purge runs in bounded batches (a few hundred rows a statement, a few statements a
 * run), oldest first, so one run never holds D1 for long; a backlog drains over some minutes.
 */
export const AUDIT_RETENTION_DAYS = 400;
const DAY = 86_400_000;

export interface PurgeLimits {
  batchSize: number;
  maxBatches: number;
}
export const PURGE_LIMITS: PurgeLimits = { batchSize: 500, maxBatches: 8 };

/** Deletes events older than the retention, in batches; answers how many went. */
export async function purgeExpiredAuditEvents(
  env: Pick<Env, "DB">,
  now = Date.now(),
  limits: PurgeLimits = PURGE_LIMITS,
): Promise<number> {
  const cutoff = now - AUDIT_RETENTION_DAYS * DAY;
  // The time index finds the oldest rows; the moderation range is the topic prefix
  // `moderation.` ('/' follows '.'), kept.
  const batch = env.DB.prepare(
    `delete from audit_events where id in (
       select id from audit_events
       where occurred_at < ?1 and not (topic >= 'moderation.' and topic < 'moderation/')
       order by occurred_at limit ?2
     )`,
  );
  let purged = 0;
  for (let i = 0; i < limits.maxBatches; i++) {
    const { meta } = await batch.bind(cutoff, limits.batchSize).run();
    purged += meta.changes;
    if (meta.changes < limits.batchSize) break;
  }
  return purged;
}
