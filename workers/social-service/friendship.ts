import { and, eq } from "drizzle-orm";
import { db } from "../db/client";
import { friendInvitations, friends, type FriendInvitationRow } from "../db/schema";
import type { Env } from "../env";
import { iso } from "./people";

/**
 * Friendships and the invitations that make them. A friendship is one `friends` row with the
 * pair sorted, so "are a and b friends" is one primary-key probe and a second insert of the
 * same pair is ignored: whatever races (two accepts, crossing invitations), it exists once.
 */

export const sortedPair = (a: string, b: string): [string, string] => (a < b ? [a, b] : [b, a]);

export async function friendshipOf(env: Env, a: string, b: string) {
  const [x, y] = sortedPair(a, b);
  return db(env)
    .select()
    .from(friends)
    .where(and(eq(friends.userA, x), eq(friends.userB, y)))
    .get();
}

export const invitationJson = (r: FriendInvitationRow) => ({
  uuid: r.uuid,
  fromUuid: r.fromUuid,
  toUuid: r.toUuid,
  status: r.status,
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt),
});

export const invitationByUuid = (env: Env, uuid: string) =>
  db(env).select().from(friendInvitations).where(eq(friendInvitations.uuid, uuid)).get();

/**
 * Answers a pending invitation with `status`, in one batch (one transaction): the update
 * happens only while it is pending, and for "accepted" the friendship is inserted only when
 * that update changed the row (`changes()` is the update's count) and no block stands
 * between the two. Of two concurrent answers exactly one changes the row. Answers whether
 * this call was the one.
 */
export async function answerInvitation(
  env: Env,
  inv: Pick<FriendInvitationRow, "uuid" | "fromUuid" | "toUuid">,
  status: "accepted" | "rejected",
): Promise<boolean> {
  const update = env.DB.prepare(
    `update friend_invitations set status = ?2, updated_at = ?3 where uuid = ?1 and status = 'pending'`,
  ).bind(inv.uuid, status, Date.now());
  if (status === "rejected") return ((await update.run()).meta.changes ?? 0) > 0;
  const [a, b] = sortedPair(inv.fromUuid, inv.toUuid);
  const [upd] = await env.DB.batch([
    update,
    env.DB.prepare(
      `insert or ignore into friends (user_a, user_b) select ?1, ?2 where changes() = 1
         and not exists (select 1 from blocked_users
           where (blocker_uuid = ?1 and blocked_uuid = ?2) or (blocker_uuid = ?2 and blocked_uuid = ?1))`,
    ).bind(a, b),
  ]);
  return (upd.meta.changes ?? 0) > 0;
}
