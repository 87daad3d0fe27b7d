import { env } from "cloudflare:test";
import { asc, eq, like } from "drizzle-orm";
import { expect, vi } from "vitest";
import type { UserRole } from "../shared/roles";
import { db } from "../workers/db/client";
import { auditEvents, moderationActions, users, webSessions } from "../workers/db/schema";
import { accountWithRoles, signUp, uniqueIp, user, type TestAccount } from "./helpers";

/** Helpers for the platform moderation tests (test/moderation-*.test.ts). */

export const mod = () => accountWithRoles(["user", "moderator"]);
export const gmod = () => accountWithRoles(["user", "globalModerator"]);
export const adminAccount = () => accountWithRoles(["user", "admin"]);
export const superUser = () => accountWithRoles(["user", "superUser"]);
export const withRoles = (roles: UserRole[]) => accountWithRoles(roles);
export { signUp };

/** The target's moderation action rows, oldest first. */
export const actionsOn = (uuid: string) =>
  db(env)
    .select()
    .from(moderationActions)
    .where(eq(moderationActions.targetUuid, uuid))
    .orderBy(asc(moderationActions.id))
    .all();

export const row = (uuid: string) => db(env).select().from(users).where(eq(users.uuid, uuid)).get();

export const webSessionCount = async (uuid: string) =>
  (await db(env).select().from(webSessions).where(eq(webSessions.userUuid, uuid)).all()).length;

/** Signs in with e-mail and password; answers the status and body. */
export const login = (a: Pick<TestAccount, "email" | "password">) =>
  user("/auth/login", { body: { email: a.email, password: a.password }, ip: uniqueIp() });

/** Waits for the audit queue's consumer to store the moderation event of action `uuid`. */
export async function auditOf(actionUuid: string) {
  return vi.waitFor(
    async () => {
      const e = await db(env)
        .select()
        .from(auditEvents)
        .where(eq(auditEvents.eventId, `moderation:${actionUuid}`))
        .get();
      if (!e) throw new Error(`no audit event for ${actionUuid}`);
      return e;
    },
    { timeout: 5000, interval: 50 },
  );
}

/** Every moderation audit event by `actor`. */
export const moderationEventsBy = (actor: string) =>
  db(env)
    .select()
    .from(auditEvents)
    .where(like(auditEvents.topic, "moderation.%"))
    .all()
    .then((rows) => rows.filter((r) => r.userUuid === actor));

/**
 * Calls `path` as nobody and as a plain user: 401 and 403, and no action row lands on the
 * target (the refused call changed nothing).
 */
export async function refusesOutsiders(
  path: string,
  body: (target: TestAccount) => unknown,
  method = "POST",
) {
  const target = await signUp();
  const plain = await signUp();
  const before = await row(target.uuid);
  const anon = await user(path, { method, body: body(target) });
  expect(anon.status, `${path} without a token`).toBe(401);
  const mine = await user(path, { method, body: body(target), token: plain.token });
  expect(mine.status, `${path} as a plain user`).toBe(403);
  expect(await actionsOn(target.uuid)).toEqual([]);
  expect(await row(target.uuid)).toEqual(before);
}
