import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { NOTIFICATION_KINDS, NOTIFY_LIMITS } from "../../shared/notifications";
import {
  sendToDevice,
  sendWebPush,
  webPushOn,
  type PushOutcome,
  type PushPayload,
} from "../adapters/push";
import { batchOf, db } from "../db/client";
import { devices, notifications, webPushSubscriptions } from "../db/schema";
import type { Env } from "../env";
import {
  inJson,
  inQuietHours,
  settingsOf,
  disabledKinds,
  sweepThrottle,
  takeThrottle,
} from "./notify-rules";

/**
 * User notifications on the `hangout-notifications` queue (channel "users"): one message
 * carries one notification for up to 100 recipients, so "DJ is live" to 100,000 fans is
 * 1,000 messages. Per recipient the consumer applies, in order: the kind turned off
 * (nothing at all), the throttle, the in-app row, then push to each device and browser
 * unless it is the user's quiet hours (the row is still written).
 *
 * Exactly-once where it can tell: the in-app row is unique per (message id, recipient),
 * and its push is claimed by one delivery (`push_claimed_at`) and marked done
 * (`pushed_at`), so a redelivered or concurrently delivered message writes one row and
 * pushes once. Retries: a device or browser that fails (429, 5xx, network) does not fail
 * the others or the message; the message is acked and a NEW message carrying only the
 * failed targets is queued (up to MAX_ATTEMPTS, backing off), so a retry never re-sends
 * to a device that already got it. Only a failure of D1 or of the queue itself retries
 * the whole message; then, a claim older than CLAIM_STALE_MS is taken again, which can
 * send twice to a device reached just before the crash (documented, docs/NOTIFICATIONS.md).
 */

const CLAIM_STALE_MS = 60_000;
export const MAX_ATTEMPTS = 5;
const SEND_CONCURRENCY = 16;

const jsonObject = z
  .record(z.string(), z.unknown())
  .refine((o) => JSON.stringify(o).length <= NOTIFY_LIMITS.dataBytes, {
    message: `data must be at most ${NOTIFY_LIMITS.dataBytes} bytes of JSON`,
  });

/** What a producer asks for (notifyUsers' options, the routes' bodies reuse its fields). */
export const notifyInput = z.object({
  kind: z.enum(NOTIFICATION_KINDS),
  title: z.string().max(NOTIFY_LIMITS.title),
  body: z.string().max(NOTIFY_LIMITS.body),
  data: jsonObject.default({}),
  /** Data-only push: no visible row in the centre, not held by quiet hours. */
  silent: z.boolean().default(false),
  /** Which push channels (default both); the in-app row is written either way. */
  channels: z
    .array(z.enum(["web", "mobile"]))
    .min(1)
    .optional(),
  /** "At most once per window per recipient" for this key (e.g. `dj_live:<djUuid>`). */
  throttleKey: z.string().min(1).max(200).optional(),
  throttleSeconds: z.number().int().min(1).max(86_400).default(3600),
});
export type NotifyInput = z.input<typeof notifyInput>;

const retryTarget = z.object({
  userUuid: z.string(),
  notificationUuid: z.string(),
  tokens: z.array(z.string()).max(NOTIFY_LIMITS.devicesPerUser),
  endpoints: z.array(z.string()).max(NOTIFY_LIMITS.webSubscriptionsPerUser),
});
type RetryTarget = z.infer<typeof retryTarget>;

export const usersMessage = notifyInput.extend({
  channel: z.literal("users"),
  id: z.string().min(1).max(100),
  recipients: z.array(z.string().min(1).max(64)).min(1).max(NOTIFY_LIMITS.recipientsPerMessage),
  createdAt: z.number().int(),
  /** A retry of the pushes that failed: only these targets, nothing written again. */
  retry: z
    .object({
      attempt: z.number().int().min(1).max(MAX_ATTEMPTS),
      targets: z.array(retryTarget).max(100),
    })
    .optional(),
});
export type UsersMessage = z.infer<typeof usersMessage>;

/** Queues allow 100 messages and 256 KB per sendBatch; we stay under both. */
const BATCH_MESSAGES = 100;
const BATCH_BYTES = 200_000;

/**
 * THE producer: queue one notification for `userUuids` (deduplicated; any number). The
 * graph (DJ fans), the room (up next, mentions), events and the admin routes call this.
 * Answers how many recipients and messages were queued. Throws on bad options (a bug in
 * the caller, never user input: routes validate with the same schema first).
 *
 * @example await notifyUsers(env, fanUuids, { kind: "dj_live", title: "sam is DJing", body: "in Lounge", throttleKey: `dj_live:${djUuid}` })
 */
export async function notifyUsers(
  env: Env,
  userUuids: Iterable<string>,
  options: NotifyInput,
  /**
   * Message ids `<idPrefix>:<n>` instead of fresh uuids: a producer that may run twice for
   * the same notification (a redelivered fan-out page) makes the same messages, and the
   * in-app row's (message id, recipient) key writes each once.
   */
  idPrefix?: string,
) {
  const n = notifyInput.parse(options);
  const recipients = [...new Set(userUuids)].filter((u) => u.length > 0 && u.length <= 64);
  const createdAt = Date.now();
  const messages: UsersMessage[] = [];
  for (let i = 0; i < recipients.length; i += NOTIFY_LIMITS.recipientsPerMessage) {
    messages.push({
      ...n,
      channel: "users",
      id: idPrefix ? `${idPrefix}:${i / NOTIFY_LIMITS.recipientsPerMessage}` : crypto.randomUUID(),
      recipients: recipients.slice(i, i + NOTIFY_LIMITS.recipientsPerMessage),
      createdAt,
    });
  }
  await sendInBatches(env, messages);
  return { recipients: recipients.length, messages: messages.length };
}

async function sendInBatches(env: Env, messages: UsersMessage[]) {
  let batch: { body: UsersMessage }[] = [];
  let bytes = 0;
  for (const m of messages) {
    const size = JSON.stringify(m).length + 100;
    if (batch.length === BATCH_MESSAGES || (batch.length > 0 && bytes + size > BATCH_BYTES)) {
      await env.NOTIFICATIONS.sendBatch(batch);
      batch = [];
      bytes = 0;
    }
    batch.push({ body: m });
    bytes += size;
  }
  if (batch.length) await env.NOTIFICATIONS.sendBatch(batch);
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function pool<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const payloadOf = (m: UsersMessage, uuid: string): PushPayload => ({
  uuid,
  kind: m.kind,
  title: m.title,
  body: m.body,
  data: m.data,
  silent: m.silent,
});

/**
 * Pushes to each target's devices and browsers that still belong to them (a token that
 * moved to another user since is not theirs any more); removes the ones the services call
 * dead; answers the targets whose failures are worth a retry.
 */
async function pushTo(env: Env, m: UsersMessage, targets: RetryTarget[], all: boolean) {
  if (targets.length === 0) return [];
  const d = db(env);
  const users = targets.map((t) => t.userUuid);
  const wantMobile = !m.channels || m.channels.includes("mobile");
  // A channel that is off sends nothing (and so has nothing to retry); the row is written.
  const wantWeb = (!m.channels || m.channels.includes("web")) && webPushOn(env);
  const [devs, subs] = await Promise.all([
    wantMobile ? d.select().from(devices).where(inJson(devices.userUuid, users)).all() : [],
    wantWeb
      ? d
          .select()
          .from(webPushSubscriptions)
          .where(inJson(webPushSubscriptions.userUuid, users))
          .all()
      : [],
  ]);
  const byUser = new Map(targets.map((t) => [t.userUuid, t]));
  type Job = {
    target: RetryTarget;
    token?: string;
    endpoint?: string;
    run: () => Promise<PushOutcome | null>;
  };
  const jobs: Job[] = [];
  for (const dev of devs) {
    const t = byUser.get(dev.userUuid)!;
    if (!all && !t.tokens.includes(dev.token)) continue;
    jobs.push({
      target: t,
      token: dev.token,
      run: () => sendToDevice(env, dev, payloadOf(m, t.notificationUuid)),
    });
  }
  for (const sub of subs) {
    const t = byUser.get(sub.userUuid)!;
    if (!all && !t.endpoints.includes(sub.endpoint)) continue;
    jobs.push({
      target: t,
      endpoint: sub.endpoint,
      run: () => sendWebPush(env, sub, payloadOf(m, t.notificationUuid)),
    });
  }
  // A send never throws (adapters answer an outcome); a bug in one still fails only it.
  const outcomes = await pool(jobs, SEND_CONCURRENCY, (j) =>
    j.run().catch(() => "failed" as const),
  );
  const gone = [];
  const failed = new Map<string, RetryTarget>();
  for (const [i, j] of jobs.entries()) {
    const o = outcomes[i];
    if (o === "gone") {
      gone.push(
        j.token
          ? d
              .delete(devices)
              .where(and(eq(devices.token, j.token), eq(devices.userUuid, j.target.userUuid)))
          : d
              .delete(webPushSubscriptions)
              .where(
                and(
                  eq(webPushSubscriptions.endpoint, j.endpoint!),
                  eq(webPushSubscriptions.userUuid, j.target.userUuid),
                ),
              ),
      );
    } else if (o === "failed") {
      const f = failed.get(j.target.userUuid) ?? { ...j.target, tokens: [], endpoints: [] };
      if (j.token) f.tokens.push(j.token);
      else f.endpoints.push(j.endpoint!);
      failed.set(j.target.userUuid, f);
    }
  }
  if (gone.length) await d.batch(batchOf(gone));
  return [...failed.values()];
}

/** Queues the failed targets as a retry message, backing off; past MAX_ATTEMPTS they are dropped. */
async function queueRetry(env: Env, m: UsersMessage, failed: RetryTarget[]) {
  if (failed.length === 0) return;
  const attempt = (m.retry?.attempt ?? 0) + 1;
  if (attempt > MAX_ATTEMPTS) {
    console.error(
      `notification ${m.id}: giving up on ${failed.length} recipient(s) after ${MAX_ATTEMPTS} tries`,
    );
    return;
  }
  await env.NOTIFICATIONS.send(
    { ...m, recipients: failed.map((f) => f.userUuid), retry: { attempt, targets: failed } },
    { delaySeconds: Math.min(900, 15 * 2 ** attempt) },
  );
}

/** One "users" message (see the top of this file). Throws only when D1 or the queue fails. */
export async function consumeUsersMessage(env: Env, m: UsersMessage) {
  if (m.retry) {
    await queueRetry(env, m, await pushTo(env, m, m.retry.targets, false));
    return;
  }
  const d = db(env);
  const now = Date.now();
  const settings = await settingsOf(env, m.recipients);
  let wanted = m.recipients.filter((u) => !disabledKinds(settings.get(u)).includes(m.kind));
  if (m.throttleKey && wanted.length) {
    const got = await takeThrottle(env, m.throttleKey, m.throttleSeconds, m.id, wanted, now);
    wanted = wanted.filter((u) => got.has(u));
  }
  if (wanted.length === 0) return;
  const data = JSON.stringify(m.data);
  await d.batch(
    batchOf(
      wanted.map((u) =>
        d
          .insert(notifications)
          .values({
            uuid: crypto.randomUUID(),
            userUuid: u,
            messageId: m.id,
            kind: m.kind,
            title: m.title,
            body: m.body,
            data,
            silent: m.silent,
            createdAt: m.createdAt,
          })
          .onConflictDoNothing({ target: [notifications.messageId, notifications.userUuid] }),
      ),
    ),
  );
  // One delivery claims each recipient's push; a redelivery finds it claimed or done.
  const claimed = await d
    .update(notifications)
    .set({ pushClaimedAt: now })
    .where(
      and(
        eq(notifications.messageId, m.id),
        inJson(notifications.userUuid, wanted),
        sql`${notifications.pushedAt} is null`,
        sql`(${notifications.pushClaimedAt} is null or ${notifications.pushClaimedAt} < ${now - CLAIM_STALE_MS})`,
      ),
    )
    .returning({ userUuid: notifications.userUuid, uuid: notifications.uuid })
    .all();
  // Keep the newest rows per user (the centre is bounded); the new row is the newest.
  const prune = env.DB.prepare(
    `delete from notifications where user_uuid = ?1 and id < (select id from notifications
     where user_uuid = ?1 order by id desc limit 1 offset ${NOTIFY_LIMITS.keepPerUser - 1})`,
  );
  if (claimed.length) await env.DB.batch(claimed.map((c) => prune.bind(c.userUuid)));
  const pushing = claimed.filter((c) => m.silent || !inQuietHours(settings.get(c.userUuid), now));
  const failed = await pushTo(
    env,
    m,
    pushing.map((c) => ({
      userUuid: c.userUuid,
      notificationUuid: c.uuid,
      tokens: [],
      endpoints: [],
    })),
    true,
  );
  await queueRetry(env, m, failed);
  if (claimed.length)
    await d
      .update(notifications)
      .set({ pushedAt: Date.now() })
      .where(
        and(
          eq(notifications.messageId, m.id),
          inJson(
            notifications.userUuid,
            claimed.map((c) => c.userUuid),
          ),
        ),
      )
      .run();
}

/** Once per consumed batch: bounded housekeeping. */
export const usersHousekeeping = (env: Env) => sweepThrottle(env);
