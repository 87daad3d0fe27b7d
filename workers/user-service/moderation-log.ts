import type { BatchItem } from "drizzle-orm/batch";
import { and, desc, eq, exists, lt, sql, type SQL } from "drizzle-orm";
import type { UserRole } from "../../shared/roles";
import { batchOf, db } from "../db/client";
import { moderationActions, users, webSessions, type UserRow } from "../db/schema";
import type { Context } from "hono";
import type { AppEnv, Env } from "../env";
import { caller } from "../lib/auth";
import { ApiError, forbidden } from "../lib/errors";
import { audit, envOf, type AuditSource } from "../queues/audit";
import { MSG } from "./messages";
import { findAnyUserOr404 } from "./accounts";
import { refusalToAct, type ModerationActionType, type Refusal } from "./moderation-rules";

/**
 * The moderation action log (issue 15): every moderator-type change to an account is one
 * batch (one D1 transaction) of
 *
 *   1. the side effects that go with it (ending web sessions), then
 *   2. the action row (INSERT ... SELECT from the target's row), then
 *   3. the UPDATE of the account,
 *
 * all under one WHERE: the target still holds the roles the hierarchy was checked against
 * (a moderator cannot ban someone promoted to admin a moment ago) and the change's own
 * condition (a ban to lift, a capability to add). Each statement sees the state before the
 * update, so the row is written exactly when the change is, and two moderators acting at once
 * leave two rows in the order their changes landed. Then an audit event goes on the queue.
 */
export interface ModerationAction {
  actionType: ModerationActionType;
  actorUuid: string;
  reason?: string | null;
  previousRole?: UserRole[] | null;
  role?: string | null;
  until?: number | null;
  details?: Record<string, unknown> | null;
}

/** The row's fields as a SELECT list, literal values in the table's column order. */
function actionSelect(uuid: string, target: UserRow, a: ModerationAction, at: number) {
  const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
  return {
    id: sql<number>`null`.as("id"),
    uuid: sql<string>`${uuid}`.as("uuid"),
    actionType: sql<string>`${a.actionType}`.as("action_type"),
    actorUuid: sql<string>`${a.actorUuid}`.as("actor_uuid"),
    targetUuid: sql<string>`${target.uuid}`.as("target_uuid"),
    previousRole: sql<string>`${json(a.previousRole)}`.as("previous_role"),
    role: sql<string>`${a.role ?? null}`.as("role"),
    reason: sql<string>`${a.reason ?? null}`.as("reason"),
    until: sql<number>`${a.until ?? null}`.as("until"),
    details: sql<string>`${json(a.details)}`.as("details"),
    createdAt: sql<number>`${at}`.as("created_at"),
  };
}

export interface Moderate {
  /** What the action changes on the account (updatedAt is added). */
  set: Partial<Record<keyof UserRow, unknown>>;
  /** The change's own condition, beyond "the roles are as checked". */
  when?: SQL;
  /** End every web session of the account in the same transaction (kick, ban, deactivate). */
  endSessions?: boolean;
}

/**
 * Applies one moderation change and records it. Answers the updated account, or undefined
 * when `when` did not hold (the caller says why: nothing to unban, already held...). A target
 * whose roles changed since they were read is a 409: the hierarchy must be asked again.
 */
export async function moderate(
  source: AuditSource,
  target: UserRow,
  action: ModerationAction,
  change: Moderate,
): Promise<UserRow | undefined> {
  const env = envOf(source);
  const d = db(env);
  const at = Date.now();
  const uuid = crypto.randomUUID();
  const sameRoles = sql`json(${users.roles}) = json(${JSON.stringify(target.roles)})`;
  const where = and(eq(users.id, target.id), sameRoles, change.when)!;
  const statements: BatchItem<"sqlite">[] = [];
  if (change.endSessions)
    statements.push(
      d.delete(webSessions).where(
        and(
          eq(webSessions.userUuid, target.uuid),
          exists(
            d
              .select({ one: sql`1` })
              .from(users)
              .where(where),
          ),
        ),
      ),
    );
  statements.push(
    d.insert(moderationActions).select(
      d
        .select(actionSelect(uuid, target, action, at))
        .from(users)
        .where(where),
    ),
    d
      .update(users)
      .set({ ...change.set, updatedAt: at } as Partial<UserRow>)
      .where(where)
      .returning(),
  );
  const results = await d.batch(batchOf(statements));
  const updated = (results[results.length - 1] as UserRow[])[0];
  if (!updated) {
    const now = await d.select({ roles: users.roles }).from(users).where(eq(users.id, target.id));
    const roles = now[0]?.roles;
    if (roles && JSON.stringify(roles) !== JSON.stringify(target.roles))
      throw new ApiError(409, MSG.targetChanged);
    return undefined;
  }
  await announce(source, uuid, target.uuid, action, at);
  return updated;
}

/**
 * The audit event of an action: actor and target as the event's parties, and (given the
 * route's context) the request id and the moderator's country, region and city.
 */
export async function announce(
  source: AuditSource,
  actionUuid: string,
  targetUuid: string,
  a: ModerationAction,
  at: number,
) {
  // The action's uuid is the event's id: a retried send stores one event.
  await audit(
    source,
    `moderation.${a.actionType}`,
    a.actorUuid,
    {
      actionUuid,
      actionType: a.actionType,
      targetUuid,
      previousRole: a.previousRole ?? null,
      role: a.role ?? null,
      reason: a.reason ?? null,
      until: a.until ?? null,
      details: a.details ?? null,
      at,
    },
    `moderation:${actionUuid}`,
    { actorUuid: a.actorUuid, targetUuid },
  );
}

/** The API's shape of an action row. */
export function toActionDto(r: typeof moderationActions.$inferSelect) {
  return {
    uuid: r.uuid,
    actionType: r.actionType,
    actorUuid: r.actorUuid,
    targetUuid: r.targetUuid,
    previousRole: r.previousRole,
    role: r.role,
    reason: r.reason,
    until: r.until === null ? null : new Date(r.until).toISOString(),
    details: r.details,
    createdAt: new Date(r.createdAt).toISOString(),
  };
}

/**
 * A page of a user's moderation history, newest first (ids grow in the order actions
 * landed). The cursor is the last row's id (`before`), so a page stays right while new
 * actions arrive.
 */
export async function historyOf(env: Env, targetUuid: string, limit: number, before?: number) {
  const rows = await db(env)
    .select()
    .from(moderationActions)
    .where(
      and(
        eq(moderationActions.targetUuid, targetUuid),
        before === undefined ? undefined : lt(moderationActions.id, before),
      ),
    )
    .orderBy(desc(moderationActions.id))
    .limit(limit + 1)
    .all();
  const page = rows.slice(0, limit);
  return {
    data: page.map(toActionDto),
    nextBefore: rows.length > limit ? page[page.length - 1].id : null,
  };
}

const REFUSAL_MSG: Record<Refusal, string> = {
  notModerator: "Forbidden resource",
  self: MSG.moderateSelf,
  outranked: MSG.outranked,
  roleTooHigh: MSG.roleTooHigh,
  superOnly: MSG.superOnlyRoles,
};

/** Throws the 403 for a refusal of moderation-rules.ts; nothing for null. */
export function refuseIf(r: Refusal | null) {
  if (r) throw forbidden(REFUSAL_MSG[r]);
}

/**
 * The caller and the account they act on (by uuid or id, deactivated ones too: an admin
 * reactivates them), after the hierarchy allowed it: 404 for no such account, 403 otherwise.
 */
export async function actionTarget(c: Context<AppEnv>, idOrUuid: string) {
  const actor = caller(c);
  const target = await findAnyUserOr404(c.env, idOrUuid);
  refuseIf(refusalToAct(actor, target));
  return { actor, target };
}
