import { and, count, desc, eq, or } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { ADMIN_ROLES } from "../../shared/roles";
import { db } from "../db/client";
import { friendInvitations, type FriendInvitationRow, type UserRow } from "../db/schema";
import type { AppEnv, Env } from "../env";
import { caller, requireUser } from "../lib/auth";
import { ApiError, isUniqueViolation } from "../lib/errors";
import { fields, valid } from "../lib/validate";
import { notifyUsers } from "../queues/user-notifications";
import { blockedEitherWay } from "./blocks";
import {
  answerInvitation,
  friendshipOf,
  invitationByUuid,
  invitationJson,
  sortedPair,
} from "./friendship";
import { SOCIAL_MSG } from "./messages";
import { activeUserOr404, paged, peoplePage, profilesOf, uuidParam, type Page } from "./people";

/**
 * Friend invitations (seed 001: pending becomes accepted or rejected through handle-friend).
 * - To yourself: 400. To a missing, deactivated or blocking (or blocked) user: the same 404,
 *   so an invitation cannot probe who blocked you.
 * - Already friends: 409. One pending invitation per pair (a partial unique index): a second
 *   the same way is 409; one the other way (they invited you) accepts theirs at once, also
 *   when both are sent at the same moment (the loser of the insert finds the winner's).
 * - Only the sender withdraws (DELETE, while pending); only the recipient answers.
 */
export const friendInvitationRoutes = new Hono<AppEnv>();

/** Pending invitations one account may have out at once: a bound on invitation floods. */
export const MAX_PENDING_SENT = 200;

const pendingBetween = (env: Env, from: string, to: string) =>
  db(env)
    .select()
    .from(friendInvitations)
    .where(
      and(
        eq(friendInvitations.fromUuid, from),
        eq(friendInvitations.toUuid, to),
        eq(friendInvitations.status, "pending"),
      ),
    )
    .get();

/**
 * Stores my pending invitation to them in one statement whose conditions hold when it is
 * written: my pending cap, no block either way, not already friends. The partial unique
 * index refuses a second pending one for the pair (a UNIQUE violation for the caller).
 */
async function insertInvitation(env: Env, me: string, them: string) {
  const [a, b] = sortedPair(me, them);
  const r = await env.DB.prepare(
    `insert into friend_invitations (uuid, from_uuid, to_uuid)
     select ?1, ?2, ?3
     where (select count(*) from friend_invitations where from_uuid = ?2 and status = 'pending') < ?4
       and not exists (select 1 from blocked_users
         where (blocker_uuid = ?2 and blocked_uuid = ?3) or (blocker_uuid = ?3 and blocked_uuid = ?2))
       and not exists (select 1 from friends where user_a = ?5 and user_b = ?6)
     returning uuid`,
  )
    .bind(crypto.randomUUID(), me, them, MAX_PENDING_SENT, a, b)
    .first<{ uuid: string }>();
  return r ? invitationByUuid(env, r.uuid) : undefined;
}

/**
 * Tells `to` about an invitation or its acceptance (issue 14). Keyed by the invitation, a
 * day long, so a retried or doubled request tells them once; a failure to queue it is
 * logged and never undoes the friendship.
 */
async function tell(
  env: Env,
  to: string,
  kind: "friend_invitation" | "friend_accepted",
  from: { uuid: string; nickname: string },
  invitationUuid: string,
) {
  const title =
    kind === "friend_invitation"
      ? `${from.nickname} sent you a friend request`
      : `${from.nickname} accepted your friend request`;
  await notifyUsers(env, [to], {
    kind,
    title: title.slice(0, 100),
    body: kind === "friend_invitation" ? "Open Friends to answer." : "You are friends now.",
    data: { fromUuid: from.uuid, invitationUuid },
    throttleKey: `${kind}:${invitationUuid}`,
    throttleSeconds: 86_400,
  }).catch((err) => console.error(`friends: could not queue ${kind}`, err));
}

/** Accepts their pending invitation to me; answers the friendship's invitation. */
async function acceptCrossing(env: Env, theirs: FriendInvitationRow, me: UserRow) {
  await answerInvitation(env, theirs, "accepted");
  const now = await invitationByUuid(env, theirs.uuid);
  const friends = !!(await friendshipOf(env, theirs.fromUuid, theirs.toUuid));
  if (!friends) throw new ApiError(409, SOCIAL_MSG.invitationNotPending);
  await tell(env, theirs.fromUuid, "friend_accepted", me, theirs.uuid);
  return { ...invitationJson(now ?? theirs), friends };
}

friendInvitationRoutes.post(
  "/friend-invitations",
  requireUser,
  valid("json", z.strictObject({ userUuid: fields.uuid })),
  async (c) => {
    const env = c.env;
    const account = caller(c).user;
    const me = account.uuid;
    const { userUuid: them } = c.req.valid("json");
    if (them === me) throw new ApiError(400, SOCIAL_MSG.selfInvite);
    await activeUserOr404(env, them);
    if (await blockedEitherWay(env, me, them)) throw new ApiError(404, SOCIAL_MSG.userNotFound);
    if (await friendshipOf(env, me, them)) throw new ApiError(409, SOCIAL_MSG.alreadyFriends);
    const theirs = await pendingBetween(env, them, me);
    if (theirs) return c.json(await acceptCrossing(env, theirs, account));
    let row: FriendInvitationRow | undefined;
    try {
      // The cap, the block and the friendship are checked again in the write itself.
      row = await insertInvitation(env, me, them);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // One is pending for the pair: theirs (crossing: accept it) or mine (409).
      const crossing = await pendingBetween(env, them, me);
      if (crossing) return c.json(await acceptCrossing(env, crossing, account));
      throw new ApiError(409, SOCIAL_MSG.invitationPending);
    }
    if (!row) {
      if (await blockedEitherWay(env, me, them)) throw new ApiError(404, SOCIAL_MSG.userNotFound);
      if (await friendshipOf(env, me, them)) throw new ApiError(409, SOCIAL_MSG.alreadyFriends);
      throw new ApiError(409, SOCIAL_MSG.tooManyPending(MAX_PENDING_SENT));
    }
    await tell(env, them, "friend_invitation", account, row.uuid);
    return c.json(invitationJson(row), 201);
  },
);

/**
 * One page of invitations matching `where`, newest first, each with the public profile of
 * the other side(s) asked for (null when that account is gone or deactivated).
 */
async function invitationPage(
  env: Env,
  where: ReturnType<typeof and>,
  page: Page,
  sides: ("from" | "to")[],
) {
  const d = db(env);
  const [rows, [{ total }]] = await d.batch([
    d
      .select()
      .from(friendInvitations)
      .where(where)
      .orderBy(desc(friendInvitations.createdAt), desc(friendInvitations.uuid))
      .limit(page.take)
      .offset(page.skip),
    d.select({ total: count() }).from(friendInvitations).where(where),
  ]);
  const profiles = await profilesOf(
    env,
    rows.flatMap((r) => [r.fromUuid, r.toUuid]),
  );
  const data = rows.map((r) => ({
    ...invitationJson(r),
    ...(sides.includes("from") ? { from: profiles.get(r.fromUuid) ?? null } : {}),
    ...(sides.includes("to") ? { to: profiles.get(r.toUuid) ?? null } : {}),
  }));
  return paged(data, total, page);
}

/** GET /friend-invitations/user-invitations-for: pending invitations to me, with senders. */
friendInvitationRoutes.get(
  "/friend-invitations/user-invitations-for",
  requireUser,
  valid("query", peoplePage),
  async (c) => {
    const where = and(
      eq(friendInvitations.toUuid, caller(c).uuid),
      eq(friendInvitations.status, "pending"),
    );
    return c.json(await invitationPage(c.env, where, c.req.valid("query"), ["from"]));
  },
);

/** GET /friend-invitations/user-invitations-from: my pending invitations, with recipients. */
friendInvitationRoutes.get(
  "/friend-invitations/user-invitations-from",
  requireUser,
  valid("query", peoplePage),
  async (c) => {
    const where = and(
      eq(friendInvitations.fromUuid, caller(c).uuid),
      eq(friendInvitations.status, "pending"),
    );
    return c.json(await invitationPage(c.env, where, c.req.valid("query"), ["to"]));
  },
);

/**
 * GET /friend-invitations/between/{id}: the pending invitation between me and id, either
 * way, or null: what a profile page needs to offer Add friend, Cancel or Accept. Only my own
 * pairs, so it tells nothing about anyone else.
 */
friendInvitationRoutes.get(
  "/friend-invitations/between/:id",
  requireUser,
  valid("param", uuidParam),
  async (c) => {
    const me = caller(c).uuid;
    const { id } = c.req.valid("param");
    const row = (await pendingBetween(c.env, me, id)) ?? (await pendingBetween(c.env, id, me));
    return c.json({ invitation: row ? invitationJson(row) : null });
  },
);

/** GET /friend-invitations/user-invitations/{id}: all of a user's invitations, any status; self or admin. */
friendInvitationRoutes.get(
  "/friend-invitations/user-invitations/:id",
  requireUser,
  valid("param", uuidParam),
  valid("query", peoplePage),
  async (c) => {
    const who = caller(c);
    const { id } = c.req.valid("param");
    if (id !== who.uuid && !who.roles.some((r) => ADMIN_ROLES.includes(r)))
      throw new ApiError(403, SOCIAL_MSG.invitationsHidden);
    const where = or(eq(friendInvitations.fromUuid, id), eq(friendInvitations.toUuid, id));
    return c.json(await invitationPage(c.env, where, c.req.valid("query"), ["from", "to"]));
  },
);

/** DELETE /friend-invitations/{invitationUuid}: the sender withdraws a pending invitation. */
friendInvitationRoutes.delete(
  "/friend-invitations/:id",
  requireUser,
  valid("param", uuidParam),
  async (c) => {
    const gone = await db(c.env)
      .delete(friendInvitations)
      .where(
        and(
          eq(friendInvitations.uuid, c.req.valid("param").id),
          eq(friendInvitations.fromUuid, caller(c).uuid),
          eq(friendInvitations.status, "pending"),
        ),
      )
      .returning()
      .get();
    // Someone else's, answered, or never there: one answer, so nothing is learned.
    if (!gone) throw new ApiError(404, SOCIAL_MSG.invitationNotFound);
    return c.json({ ...invitationJson(gone), withdrawn: true });
  },
);

const handleBody = z.strictObject({
  invitationUuid: fields.uuid,
  status: z.enum(["accepted", "rejected"], { error: "status must be accepted or rejected" }),
});

/**
 * POST /friend-invitations/handle-friend: the recipient accepts or rejects, while pending.
 * The same answer sent again (a retry, a double tap, two at once) gets the same 200; the
 * friendship is made once (friendship.ts). The other answer after one is 409.
 */
friendInvitationRoutes.post(
  "/friend-invitations/handle-friend",
  requireUser,
  valid("json", handleBody),
  async (c) => {
    const me = caller(c).uuid;
    const { invitationUuid, status } = c.req.valid("json");
    const inv = await invitationByUuid(c.env, invitationUuid);
    if (!inv || inv.toUuid !== me) throw new ApiError(404, SOCIAL_MSG.invitationNotFound);
    if (inv.status === "pending") await answerInvitation(c.env, inv, status);
    const now = (await invitationByUuid(c.env, invitationUuid)) ?? inv;
    if (now.status !== status) throw new ApiError(409, SOCIAL_MSG.invitationNotPending);
    const friends = !!(await friendshipOf(c.env, inv.fromUuid, inv.toUuid));
    if (friends) await tell(c.env, inv.fromUuid, "friend_accepted", caller(c).user, inv.uuid);
    return c.json({ ...invitationJson(now), friends });
  },
);
